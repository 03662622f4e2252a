package e2e

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestDrift: between the plan and its approval the user changes main.go in
// the editor. Each onDrift mode does what contract §7 says, and a model
// call made after the change is given the new content, never the snapshot.
func TestDrift(t *testing.T) {
	const newLine = "\treturn 10 // changed by the user after the plan\n"
	modes := []struct {
		mode    string
		replies []modeltest.Reply
		calls   int // model requests in all
	}{
		{"continue", replies(greetEdit), 2},
		{"replan", []modeltest.Reply{{Text: planText}, {Text: planText}, {ToolCalls: []model.ToolCall{greetEdit}}}, 3},
		{"stop", []modeltest.Reply{{Text: planText}}, 1},
	}
	for _, profile := range profiles {
		for _, m := range modes {
			t.Run(profile+"/"+m.mode, func(t *testing.T) {
				e := start(t, profile, envOptions{replies: m.replies, config: map[string]any{"onDrift": m.mode}})
				session := e.toPlan(profile)
				text := e.ed.Text("main.go")
				at := strings.Index(text, "\treturn 1\n")
				e.ed.Change("main.go", fakeeditor.Edit{Range: e.ed.Range("main.go", at, at+len("\treturn 1\n")), Text: newLine})
				e.approveInPlanFile(session, nil)
				ends := e.progressEnds(2)
				drift := e.waitEvent(session, "drift")
				if drift["onDrift"] != m.mode || !strings.Contains(mustJSON(t, drift["files"]), "main.go") {
					t.Errorf("drift event %v", drift)
				}
				reqs := e.model.Requests()
				if len(reqs) != m.calls {
					t.Fatalf("%d model requests, want %d", len(reqs), m.calls)
				}
				for i, r := range reqs[1:] {
					if !strings.Contains(requestText(r), "changed by the user after the plan") {
						t.Errorf("model request %d after the change was not given the new content", i+2)
					}
				}
				switch m.mode {
				case "stop":
					ev := e.waitEvent(session, "error")
					if !strings.Contains(mustJSON(t, ev["message"]), "stop") || !strings.HasPrefix(ends[1], "failed") {
						t.Errorf("stop: error event %v, progress end %q", ev, ends[1])
					}
				case "continue":
					if !strings.Contains(requestText(reqs[1]), "changed since the plan") {
						t.Errorf("continue: the editor was not told about the drift")
					}
					e.waitEvent(session, "proposal")
				case "replan":
					if n := len(eventsNamed(e.events(session), "architect_pass")); n != 2 {
						t.Errorf("replan: %d architect passes, want 2", n)
					}
					e.waitEvent(session, "proposal")
				}
			})
		}
	}
}

func eventsNamed(evs []map[string]any, name string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["event"] == name {
			out = append(out, ev)
		}
	}
	return out
}
