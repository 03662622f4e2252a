package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// TestProposalsSayTheyBuild: with verify configured in the user's file, the
// editor shows "verifying: build" while it runs, and each hunk's diagnostic
// (Neovim, Helix) or change annotation (VS Code) says "builds"; the plan
// document has its ## Verification section (contract §6.1).
func TestProposalsSayTheyBuild(t *testing.T) {
	for _, profile := range []string{"vscode-1.96", "neovim-0.10", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{
				config:  map[string]any{"verify": []map[string]any{{"name": "build", "run": []string{"true"}}}},
				replies: []modeltest.Reply{{Text: twoStepPlan}, {ToolCalls: []model.ToolCall{greetEdit}}},
			})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				// The model's hunk and the AI comment's removal.
				found := false
				for _, d := range e.diagnostics(2) {
					found = found || strings.HasPrefix(d.Message, "AIDE proposal h1 (builds): main.go:8")
				}
				if !found {
					t.Errorf("no diagnostic says the hunk builds: %+v", e.diagnostics(2))
				}
			} else {
				e.waitEvent(session, "done")
				var p protocol.ApplyWorkspaceEditParams
				if err := e.ed.Requests("workspace/applyEdit")[0].Decode(&p); err != nil {
					t.Fatal(err)
				}
				var labels []string
				for _, a := range p.Edit.ChangeAnnotations {
					labels = append(labels, a.Label)
				}
				if !slices.Contains(labels, "AIDE builds: "+task) {
					t.Errorf("annotation labels %v lack %q", labels, "AIDE builds: "+task)
				}
			}
			if !slices.Contains(e.progressReports(), "verifying: build") {
				t.Errorf("progress never said verifying: %v", e.progressReports())
			}
			doc, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
			if err != nil || !strings.Contains(string(doc), "- `build` (`true`): ok") {
				t.Errorf("the plan document lacks the verification: %v\n%s", err, doc)
			}
			if ev := e.waitEvent(session, "verify"); ev["ok"] != true || ev["name"] != "build" {
				t.Errorf("verify event %v", ev)
			}
		})
	}
}
