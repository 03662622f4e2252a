package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// latestPlan is the stable plan path of contract §5.
var latestPlan = filepath.Join(".aide", "plans", "latest.md")

// TestLatestPlanPath: .aide/plans/latest.md always holds the newest
// session's plan document, and its code actions (approve, re-plan,
// discard) act on that session and name it, so one key binding that opens
// it beside the code (Helix: :vsplit) serves every session. An edit of it
// is the plan carried out, as in <session>.md.
func TestLatestPlanPath(t *testing.T) {
	for _, profile := range []string{"neovim-0.10", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: []modeltest.Reply{
				{Text: planText}, {ToolCalls: replies(greetEdit)[1].ToolCalls},
				{Text: planText}, {ToolCalls: replies(otherEdit)[1].ToolCalls},
			}})
			first := e.toPlan(profile)
			e.waitEvent(first, "plan")
			if e.disk(latestPlan) != e.disk(e.planPath(first)) {
				t.Fatalf("latest.md does not hold the newest plan document")
			}
			e.ed.Open(latestPlan, e.disk(latestPlan)) // the user's key binding opens it
			approve := e.latestAction(first, lsp.TitleApprovePlan)
			if _, err := e.ed.Pick(approve); err != nil {
				t.Fatal(err)
			}
			e.pickOn(e.diagnostics(2)[0], "AIDE: Accept all")
			e.waitEvent(first, "done")
			e.waitDisk(latestPlan, "**State:** done")
			if e.disk(latestPlan) != e.disk(e.planPath(first)) || !strings.Contains(e.disk(latestPlan), "**State:** done") {
				t.Errorf("latest.md does not follow its session to done:\n%s", e.disk(latestPlan))
			}

			// A second session: latest.md shows it now.
			res, _, err := e.ed.ExecuteCommand("aide.architect", map[string]any{"uri": e.ed.URI("main.go"), "task": "make other return 2"})
			if err != nil {
				t.Fatal(err)
			}
			var r struct{ Session string }
			if err := json.Unmarshal(res, &r); err != nil || r.Session == "" || r.Session == first {
				t.Fatalf("aide.architect answered %s", res)
			}
			second := r.Session
			e.waitEvent(second, "plan")
			e.progressEnds(3)
			if !e.ed.Reload(latestPlan) || !strings.Contains(e.ed.Text(latestPlan), second) {
				t.Fatalf("latest.md does not show the second session:\n%s", e.ed.Text(latestPlan))
			}
			e.ed.Replace(latestPlan, strings.Replace(e.ed.Text(latestPlan), "## End Plan", "USER NOTE IN LATEST\n## End Plan", 1))
			if _, err := e.ed.Pick(e.latestAction(second, lsp.TitleApprovePlan)); err != nil {
				t.Fatal(err)
			}
			e.waitEvent(second, "proposal")
			reqs := e.model.Requests()
			if len(reqs) != 4 || !strings.Contains(requestText(reqs[3]), "USER NOTE IN LATEST") {
				t.Errorf("the edit of latest.md was not the plan carried out (%d requests)", len(reqs))
			}
			if _, err := os.Stat(filepath.Join(e.root, latestPlan)); err != nil {
				t.Error(err)
			}
		})
	}
}

// latestAction finds an action of latest.md and checks it names session.
func (e *env) latestAction(session, prefix string) fakeeditor.CodeAction {
	e.t.Helper()
	actions, err := e.ed.CodeActions(latestPlan, lineRange(0))
	if err != nil {
		e.t.Fatal(err)
	}
	a, ok := fakeeditor.FindAction(actions, prefix)
	if !ok || !strings.Contains(a.Title, "session "+session) {
		e.t.Fatalf("latest.md actions %v: want %q naming session %s", titles(actions), prefix, session)
	}
	return a
}
