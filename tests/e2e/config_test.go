package e2e

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestConfigurationLayers: the "aide" section of workspace/configuration
// overrides .aide/config.json (delivery: codeActions for VS Code), its
// problems are shown with window/showMessage, and didChangeConfiguration
// reads it again.
func TestConfigurationLayers(t *testing.T) {
	var section atomic.Value
	section.Store(map[string]any{"delivery": "codeActions", "noSuchKey": true})
	e := start(t, "vscode-1.96", envOptions{
		replies:       replies(greetEdit),
		configuration: func(s string) any { return section.Load() },
	})
	e.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), "noSuchKey")
	})
	session := e.toPlan("vscode-1.96")
	e.approveInPlanFile(session, nil)
	diags := e.diagnostics(2) // code-action delivery although VS Code could take an applyEdit
	if n := len(e.ed.Requests("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit requests with delivery codeActions", n)
	}
	e.pickOn(diags[0], "AIDE: Accept all")
	e.waitEvent(session, "done")
	if got := e.ed.Text("main.go"); got != afterGreet {
		t.Errorf("main.go:\n%s", got)
	}

	section.Store(map[string]any{"secondKey": 1})
	if err := e.ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil}); err != nil {
		t.Fatal(err)
	}
	e.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), "secondKey")
	})
}

// TestCancel: a running architect call is stopped by
// window/workDoneProgress/cancel (VS Code) or by the plan file's discard
// action (Helix and Neovim never send a progress cancel); the progress ends
// and the session is cancelled.
func TestCancel(t *testing.T) {
	slow := modeltest.Reply{Text: planText, Stall: 10 * time.Minute}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: []modeltest.Reply{slow}})
			session := e.startFromAIComment()
			begin := e.ed.WaitNotification("$/progress", fakeeditor.ProgressKind("begin"))
			for deadline := time.Now().Add(hangGuard); len(e.model.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the architect call never reached the model")
				}
			}
			if profile == "vscode-1.96" {
				var p struct {
					Token json.RawMessage `json:"token"`
				}
				_ = json.Unmarshal(begin.Params, &p)
				if err := e.ed.Notify("window/workDoneProgress/cancel", map[string]any{"token": p.Token}); err != nil {
					t.Fatal(err)
				}
			} else {
				e.ed.Open(e.planPath(session), "")
				actions, err := e.ed.CodeActions(e.planPath(session), lineRange(0))
				if err != nil {
					t.Fatal(err)
				}
				a, ok := fakeeditor.FindAction(actions, "AIDE: Discard")
				if !ok {
					t.Fatalf("no discard action in the plan file while planning: %v", titles(actions))
				}
				if _, err := e.ed.Pick(a); err != nil {
					t.Fatal(err)
				}
			}
			if ends := e.progressEnds(1); ends[0] != "cancelled" {
				t.Errorf("progress ended with %q", ends[0])
			}
			e.waitEvent(session, "cancelled")
		})
	}
}
