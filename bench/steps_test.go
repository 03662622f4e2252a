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

// Verification counts per proposal: first time, after feedback, still
// failing; and the report's table shows them per mode.
func TestCountsVerification(t *testing.T) {
	first, _ := CountEvents(strings.NewReader(`{"event":"verify","name":"build","ok":true,"ms":10}
{"event":"verify","name":"vet","ok":true,"ms":10}
{"event":"proposal","hunks":[{"id":"h1"}]}
{"event":"proposal","hunks":[{"id":"h2"}],"aiComment":true}
`))
	after, _ := CountEvents(strings.NewReader(`{"event":"verify","name":"build","ok":false,"ms":10,"output":"main.go:6: undefined: x"}
{"event":"fallback","kind":"verify","reason":"asking again"}
{"event":"verify","name":"build","ok":false,"ms":10}
{"event":"verify","name":"build","ok":true,"ms":10}
{"event":"proposal","hunks":[{"id":"h1"}]}
`))
	failing, err := CountEvents(strings.NewReader(`{"event":"verify","name":"build","ok":false,"ms":10}
{"event":"proposal","hunks":[{"id":"h1"}]}
{"event":"proposal","hunks":[{"id":"h2"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if first.VerifiedFirst != 1 || first.VerifiedAfter != 0 || after.VerifiedAfter != 1 || after.VerifiedFirst != 0 || after.VerifyFailedRuns != 2 || failing.VerifyFailed != 1 {
		t.Fatalf("first %+v\nafter %+v\nfailing %+v", first, after, failing)
	}
	var sum Counts
	sum.Add(first)
	sum.Add(after)
	sum.Add(failing)
	rep := &Report{Modes: []string{"two-pass"}, Rows: aggregate([]RunResult{{Mode: "two-pass", ArchitectModel: "a/x", EditorModel: "a/y", Counts: sum}}, nil)}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| two-pass | a/x | a/y | 1 | 1 | 1 | 3 |") {
		t.Errorf("report lacks the verification row:\n%s", md.String())
	}
}
