package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// VS Code answers the proposal's workspace/applyEdit only when the user
// closes the Refactor Preview (docs/design.md, "What each editor
// supports"); the fake editor holds the request open the same way. While
// it is open the session must still be stoppable and re-plannable, and
// what the user applies of the preview afterwards must be recorded, never
// lost (docs/architecture.md, "The boundary").

// TestCancelWhilePreviewOpen: aide.cancel acts while the applyEdit is
// unanswered; applying the preview afterwards is recorded as accepted,
// and the session stays cancelled (no done, no rejected).
func TestCancelWhilePreviewOpen(t *testing.T) {
	const profile = "vscode-1.96"
	e := start(t, profile, envOptions{replies: replies(greetEdit)})
	e.ed.HoldApplyEdits()
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	held := e.ed.WaitHeld(1)

	if _, _, err := e.ed.ExecuteCommand(commands.CmdCancel, map[string]any{"session": session}); err != nil {
		t.Fatalf("aide.cancel while the preview is open: %v", err)
	}
	e.waitEvent(session, "cancelled") // the applyEdit is still unanswered
	if got := e.sessionState(session); got != string(commands.StateCancelled) {
		t.Fatalf("state %q after cancel with the preview open", got)
	}
	if stale := e.hunksOf(session, "stale"); len(stale) != 2 {
		t.Errorf("withdrawn hunks %v, want the change and the AI comment's removal", stale)
	}

	e.ed.Release(held[0], true) // the user applies the preview anyway
	e.waitEvent(session, "accepted")
	if got := e.ed.Text("main.go"); got != afterGreet {
		t.Errorf("main.go after applying the preview:\n%s", got)
	}
	if acc := e.hunksOf(session, "accepted"); len(acc) != 2 {
		t.Errorf("accepted %v, want both hunks the user applied; events %v", acc, eventNames(e.events(session)))
	}
	names := eventNames(e.events(session))
	if slices.Contains(names, "done") || slices.Contains(names, "rejected") {
		t.Errorf("events %v: a cancelled session neither finishes nor rejects what the user applied", names)
	}
	if i, j := slices.Index(names, "cancelled"), slices.Index(names, "accepted"); i < 0 || j < i {
		t.Errorf("events %v: want cancelled, then accepted", names)
	}
	if got := e.sessionState(session); got != string(commands.StateCancelled) {
		t.Errorf("state %q after the late apply, want cancelled", got)
	}
}

// TestReplanWhilePreviewOpen: aide.replan is taken while the applyEdit is
// unanswered; the discarded preview decides nothing more, and the new
// plan's proposal is reviewed in a preview of its own.
func TestReplanWhilePreviewOpen(t *testing.T) {
	const profile = "vscode-1.96"
	second := "I read main.go again.\n## Plan\n1. In main.go, make other return 2.\n## End Plan\n"
	e := start(t, profile, envOptions{replies: []modeltest.Reply{
		{Text: planText}, {ToolCalls: []model.ToolCall{greetEdit}},
		{Text: second}, {ToolCalls: []model.ToolCall{otherEdit}},
	}})
	e.ed.HoldApplyEdits()
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	first := e.ed.WaitHeld(1)[0]

	if _, _, err := e.ed.ExecuteCommand(commands.CmdReplan, map[string]any{"session": session, "feedback": "change other instead"}); err != nil {
		t.Fatalf("aide.replan while the preview is open: %v", err)
	}
	e.waitState(session, commands.StateWaiting) // the first preview is still open
	e.ed.Release(first, false)                  // the first preview is discarded
	e.approveInPlanFile(session, nil)
	held := e.ed.WaitHeld(1)
	e.ed.Release(held[0], true)
	e.waitEvent(session, "done")

	if reqs := e.model.Requests(); len(reqs) != 4 || !strings.Contains(requestText(reqs[2]), "change other instead") {
		t.Errorf("model requests %d; the re-plan must carry the feedback", len(reqs))
	}
	if rej := e.hunksOf(session, "rejected"); len(rej) != 0 {
		t.Errorf("rejected %v: hunks withdrawn by the re-plan are not rejected when their preview closes", rej)
	}
	if got := e.ed.Text("main.go"); !strings.Contains(got, "return 2") || strings.Contains(got, `return "hello"`) {
		t.Errorf("main.go: want only the second plan's change:\n%s", got)
	}
}

// waitState waits until aide.sessions lists the session in state.
func (e *env) waitState(session string, state commands.State) {
	e.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for e.sessionState(session) != string(state) {
		if time.Now().After(deadline) {
			e.t.Fatalf("session %s is %s, waited for %s; events %v", session, e.sessionState(session), state, eventNames(e.events(session)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
