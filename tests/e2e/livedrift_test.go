package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestLiveDrift: while the plan waits for approval, a file it depends on
// changes, in an open buffer or on disk (the watcher). The drift is known
// at once, before any approval: a drift event, a ## Drift section in the
// plan document and a re-plan action that says why; onDrift still decides
// at approval.
func TestLiveDrift(t *testing.T) {
	for _, profile := range []string{"vscode-1.96", "neovim-0.12", "helix-25.07"} {
		for _, where := range []string{"buffer", "disk"} {
			t.Run(profile+"/"+where, func(t *testing.T) {
				e := start(t, profile, envOptions{replies: replies(greetEdit)})
				session := e.toPlan(profile)
				e.waitEvent(session, "plan")
				changed := strings.Replace(mainGo, "\treturn 1\n", "\treturn 10 // changed while the plan waits\n", 1)
				if where == "buffer" {
					text := e.ed.Text("main.go")
					at := strings.Index(text, "\treturn 1\n")
					e.ed.Change("main.go", fakeeditor.Edit{Range: e.ed.Range("main.go", at, at+len("\treturn 1\n")), Text: "\treturn 10 // changed while the plan waits\n"})
				} else {
					e.ed.Close("main.go")
					write(t, filepath.Join(e.root, "main.go"), changed)
				}
				drift := e.waitEvent(session, "drift")
				if drift["live"] != true || !strings.Contains(mustJSON(t, drift["files"]), "main.go") {
					t.Errorf("drift event %v", drift)
				}
				if n := len(e.model.Requests()); n != 1 {
					t.Errorf("%d model requests: the drift must be seen before any approval", n)
				}
				// The event comes first, then the plan document (emit → save → plan).
				for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
					disk, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
					if err == nil && strings.Contains(string(disk), "## Drift") && strings.Contains(string(disk), "main.go") {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the plan document has no ## Drift section naming main.go:\n%s", disk)
					}
				}
				if profile == "vscode-1.96" {
					return // the virtual form: its re-plan is the extension's
				}
				e.ed.Reload(e.planPath(session))
				actions, err := e.ed.CodeActions(e.planPath(session), lineRange(0))
				if err != nil {
					t.Fatal(err)
				}
				if a, ok := fakeeditor.FindAction(actions, lsp.TitleReplan); !ok || !strings.Contains(a.Title, "main.go") {
					t.Errorf("no re-plan action naming main.go among %v", titles(actions))
				}
				if _, ok := fakeeditor.FindAction(actions, lsp.TitleApprovePlan); !ok {
					t.Errorf("approve is still offered: onDrift decides at approval; actions %v", titles(actions))
				}
			})
		}
	}
}
