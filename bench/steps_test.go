package bench

import (
	"bytes"
	"strings"
	"testing"
)

func TestCountsHunksOutsideThePlanAndIdleSteps(t *testing.T) {
	c, err := CountEvents(strings.NewReader(`{"event":"plan","plan":"1. a\n2. b\n3. c"}
{"event":"proposal","hunks":[{"id":"h1","step":1},{"id":"h2","step":null,"notInPlan":true}],"stepsWithoutHunks":[2,3]}
{"event":"proposal","hunks":[{"id":"h3","step":null}],"aiComment":true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Proposed != 3 || c.OutsidePlan != 1 || c.IdleSteps != 2 {
		t.Fatalf("counts %+v: want 3 proposed, 1 outside the plan, 2 steps without hunks", c)
	}
	rep := &Report{Modes: []string{"two-pass"}, Rows: aggregate([]RunResult{{Mode: "two-pass", ArchitectModel: "a/x", EditorModel: "a/y", Counts: c}}, nil)}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| two-pass | a/x | a/y | 3 | 1 | 2 |") {
		t.Errorf("report lacks the plan row:\n%s", md.String())
	}
}
