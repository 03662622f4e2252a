package e2e

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestApproveAsSoonAsShown: the user approves the moment the plan is on
// screen (found in real Neovim 0.10, where the approve request could reach
// the server before the architect's turn had returned and was refused with
// "session … is waiting for approval; approvePlan needs a plan waiting for
// approval"). The approve is sent right after the editor is asked to show
// the plan (Helix 25.07: told it is ready), before anything else; it must
// be carried out.
func TestApproveAsSoonAsShown(t *testing.T) {
	for _, profile := range []string{"neovim-0.10", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.startFromAIComment()
			e.planShown(profile, session)
			if _, _, err := e.ed.ExecuteCommand(commands.CmdApprovePlan, map[string]any{"session": session}); err != nil {
				t.Fatalf("approving the plan as soon as it was shown: %v", err)
			}
			e.diagnostics(2)
		})
	}
}

// TestSavedPlanEditFollows: the user edits the plan buffer, saves it and
// approves, as in real Neovim; the editor has not re-read the file the
// engine rewrote on approval when the session moves on. The plan file must
// still follow the session (found in real Neovim: it stayed at "waiting for
// approval", the saved and approved buffer taken for an unsaved edit), and
// a re-read shows the proposed changes with the user's plan.
func TestSavedPlanEditFollows(t *testing.T) {
	for _, profile := range []string{"neovim-0.10", "neovim-0.12", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(otherEdit)})
			session := e.toPlan(profile)
			plan := e.planPath(session)
			const note = "1. Leave greet alone; make other return 2 (USER-EDITED STEP)."
			e.ed.Replace(plan, strings.Replace(e.ed.Text(plan), "1. In main.go, make greet return \"hello\".", note, 1))
			e.ed.Save(plan)
			e.approveInPlanFile(session, nil)
			e.diagnostics(2)
			e.waitDisk(plan, "## Proposed changes")
			e.ed.Reload(plan)
			if text := e.checkClean(plan, "proposed"); !strings.Contains(text, note) {
				t.Errorf("the re-read plan buffer lost the user's plan:\n%s", text)
			}
		})
	}
}

// TestHelixOutOfOrderChanges: Helix 25.01 sends some didChange
// notifications out of order when the user types fast (seen in tests/helix:
// version 54 on the wire before 53). The server puts them back in version
// order, so its text is the buffer's: here the AI comment the user typed
// into, which the code action's title carries.
func TestHelixOutOfOrderChanges(t *testing.T) {
	e := start(t, "helix-25.1", envOptions{replies: replies(greetEdit)})
	_, version, open := e.ed.Doc("main.go")
	if !open {
		t.Fatal("main.go is not open")
	}
	insert := func(v int32, char uint32, text string) {
		t.Helper()
		at := protocol.Position{Line: 4, Character: char}
		if err := e.ed.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": e.ed.URI("main.go"), "version": v},
			"contentChanges": []any{map[string]any{"range": protocol.Range{Start: at, End: at}, "text": text}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// "// AI: make…" → "// AI: Xmake…" (version+1) → "// AI: XYmake…" (version+2),
	// the second sent first.
	insert(version+2, 8, "Y")
	insert(version+1, 7, "X")
	actions, err := e.ed.CodeActions("main.go", lineRange(4))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fakeeditor.FindAction(actions, lsp.TitleArchitect+": XYmake greet say hello"); !ok {
		t.Errorf("the server's text is not the buffer's: architect titles %v", titles(actions))
	}
}
