package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"

	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestNeovimSkippedEditIsNotTakenForApplied: Neovim 0.7 skips a code
// action's edit whose version is stale and says nothing. The server checks
// the document: an edit that did not land is applied again at the current
// version when it still applies, and withdrawn as stale when the user typed
// into it — never counted as accepted on Neovim's word.
func TestNeovimSkippedEditIsNotTakenForApplied(t *testing.T) {
	const profile = "neovim-0.7"
	e := start(t, profile, envOptions{replies: replies(greetEdit, otherEdit)})
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	diags := e.diagnostics(3)
	actionsFor := func(hunk string) fakeeditor.CodeAction {
		for _, d := range diags {
			if hunkOf(d) == hunk {
				actions, err := e.ed.CodeActions("main.go", d.Range)
				if err != nil {
					t.Fatal(err)
				}
				if a, ok := fakeeditor.FindAction(actions, "AIDE: Accept "+hunk); ok {
					return a
				}
			}
		}
		t.Fatalf("no accept action for %s", hunk)
		return fakeeditor.CodeAction{}
	}
	acceptGreet, acceptOther := actionsFor("h1"), actionsFor("h2")

	// The user types on the first line: both actions' edits are now stale.
	e.ed.Change("main.go", fakeeditor.Edit{Range: e.ed.Range("main.go", 0, 0), Text: "// top\n"})
	if _, err := e.ed.Pick(acceptGreet); err != nil { // Neovim skips the edit, runs the command
		t.Fatal(err)
	}
	if got := e.ed.Text("main.go"); !strings.Contains(got, "return \"hello\"") {
		t.Fatalf("the skipped but still valid change was not applied again:\n%s", got)
	}

	// Now the user types into the other change, then picks its old action.
	text := e.ed.Text("main.go")
	at := strings.Index(text, "return 1") + len("return 1")
	e.ed.Change("main.go", fakeeditor.Edit{Range: e.ed.Range("main.go", at, at), Text: "0"})
	// The typing already withdrew it: the command is refused with why.
	if _, err := e.ed.Pick(acceptOther); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("accepting a stale change answered %v; want a refusal saying it is stale", err)
	}
	got := e.ed.Text("main.go")
	if strings.Contains(got, "return 2") || !strings.Contains(got, "return 10") {
		t.Errorf("a stale change was applied over the user's typing:\n%s", got)
	}
	if acc := e.hunksOf(session, "accepted"); len(acc) != 1 || acc[0] != "h1" {
		t.Errorf("accepted %v, want [h1]", acc)
	}
	if stale := e.hunksOf(session, "stale"); len(stale) != 1 || stale[0] != "h2" {
		t.Errorf("stale %v, want [h2]", stale)
	}
}

// TestNewFileInEveryEditor: a proposed new file reaches the disk when
// accepted, whether the client takes a CreateFile (VS Code, Helix) or not
// (Neovim 0.7 advertises no documentChanges: the server writes it).
func TestNewFileInEveryEditor(t *testing.T) {
	const content = "package main\n\nfunc helper() {}\n"
	write := model.ToolCall{ID: "call_w", Name: "write_file", Arguments: `{"path":"helper.go","content":` + strconv.Quote(content) + `}`}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit, write)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				diags := e.diagnostics(2)
				e.pickOn(diags[0], "AIDE: Accept all 3 changes")
			}
			e.waitEvent(session, "done")
			b, err := os.ReadFile(filepath.Join(e.root, "helper.go"))
			if err != nil || string(b) != content {
				t.Errorf("helper.go = %q (%v), want the proposed content", b, err)
			}
			if acc := e.hunksOf(session, "accepted"); len(acc) != 3 {
				t.Errorf("accepted %v, want all 3", acc)
			}
		})
	}
}
