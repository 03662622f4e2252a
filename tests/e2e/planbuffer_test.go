package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"

	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// fileFormProfiles are the editors shown the plan file with
// window/showDocument (Helix 25.01, Neovim 0.9+, Emacs); Helix 25.07 is
// told where it is instead (TestPlanNotShownWhereItReplacesTheCode).
var fileFormProfiles = []string{"neovim-0.10", "neovim-0.12", "helix-25.1", "emacs-30.1"}

// planEdits are the workspace/applyEdit requests that target a file.
func (e *env) planEdits(path string) []protocol.TextDocumentEdit {
	var out []protocol.TextDocumentEdit
	planURI := e.ed.URI(path)
	for _, m := range e.ed.Requests("workspace/applyEdit") {
		var p protocol.ApplyWorkspaceEditParams
		if err := m.Decode(&p); err != nil {
			e.t.Fatalf("applyEdit params: %v", err)
		}
		for _, ch := range p.Edit.DocumentChanges {
			if te, ok := ch.(*protocol.TextDocumentEdit); ok && string(te.TextDocument.URI) == planURI {
				out = append(out, *te)
			}
		}
	}
	return out
}

// shownFor lists the showDocument requests of a session's plan file.
func (e *env) shownFor(session string) []fakeeditor.Shown {
	var out []fakeeditor.Shown
	for _, sh := range e.ed.Shown() {
		if sh.Path == e.ed.Abs(e.planPath(session)) {
			out = append(out, sh)
		}
	}
	return out
}

// checkClean: the plan buffer is open, holds the file, and has no unsaved
// changes and nothing that would make writing it ask "really write?".
func (e *env) checkClean(path, when string) string {
	e.t.Helper()
	text, _, open := e.ed.Doc(path)
	switch {
	case !open:
		e.t.Fatalf("%s: the plan file %s is not open in the editor", when, path)
	case e.ed.Modified(path):
		e.t.Errorf("%s: the plan buffer is left modified (Helix's :qa refuses)", when)
	case e.ed.WriteWouldAsk(path):
		e.t.Errorf("%s: writing the plan buffer would ask \"file changed, really write?\"", when)
	case text != e.disk(path):
		e.t.Errorf("%s: the plan buffer does not hold the file:\n--- buffer\n%s\n--- file\n%s", when, text, e.disk(path))
	}
	return text
}

// waitDisk waits until the file holds want: an event is written before
// the plan document that shows it (emit → save → plan document).
func (e *env) waitDisk(path, want string) {
	e.t.Helper()
	for deadline := time.Now().Add(hangGuard); !strings.Contains(e.disk(path), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("%s never held %q:\n%s", path, want, e.disk(path))
		}
	}
}

func (e *env) disk(path string) string {
	b, err := os.ReadFile(filepath.Join(e.root, path))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// TestPlanBufferFollowsAndStaysClean: in Helix and Neovim 0.10/0.12 the
// plan file opens (once, beside the code) when its plan is complete; the
// server never edits that buffer, so it is never left modified and the
// file never changes under an edited buffer; each re-read of the file
// (Helix's :reload, Neovim's autoread) shows the engine's newest state;
// approving from the buffer carries out the plan it shows.
func TestPlanBufferFollowsAndStaysClean(t *testing.T) {
	for _, profile := range fileFormProfiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			plan := e.planPath(session)
			e.waitEvent(session, "plan")
			text := e.checkClean(plan, "plan shown")
			if !strings.Contains(text, "waiting for approval") || !strings.Contains(text, "make greet return") {
				t.Errorf("the plan buffer opened on a plan that is not complete:\n%s", text)
			}
			e.approveInPlanFile(session, nil)
			diags := e.diagnostics(2)
			if reqs := e.model.Requests(); len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), "make greet return") {
				t.Fatalf("approving from the plan buffer did not carry out its plan (%d model requests)", len(reqs))
			}
			e.ed.Reload(plan)
			if text := e.checkClean(plan, "proposed"); !strings.Contains(text, "## Proposed changes") {
				t.Errorf("after a re-read the plan buffer lacks the proposed changes:\n%s", text)
			}
			e.pickOn(diags[0], "AIDE: Accept all")
			e.waitEvent(session, "done")
			e.waitDisk(plan, "**State:** done")
			e.ed.Reload(plan)
			if text := e.checkClean(plan, "done"); !strings.Contains(text, "**State:** done") {
				t.Errorf("after a re-read the plan buffer does not say done:\n%s", text)
			}
			if edits := e.planEdits(plan); len(edits) != 0 {
				t.Errorf("%d workspace/applyEdit(s) sent to the plan buffer: each leaves it modified", len(edits))
			}
			shown := e.shownFor(session)
			if len(shown) != 1 || shown[0].TakeFocus || !shown[0].Split {
				t.Errorf("plan shown %+v; want once, takeFocus false (beside the code)", shown)
			}
		})
	}
}

// TestPlanBufferEditIsCarriedOut: the user edits the open plan buffer and
// approves without saving; the edit is what the editor pass gets, the
// server neither writes over the buffer nor writes the file under it.
func TestPlanBufferEditIsCarriedOut(t *testing.T) {
	for _, profile := range []string{"neovim-0.12", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(otherEdit)})
			session := e.toPlan(profile)
			plan := e.planPath(session)
			e.waitEvent(session, "plan")
			before := e.disk(plan)
			const note = "1. Leave greet alone; make other return 2 (USER-EDITED STEP)."
			e.approveInPlanFile(session, func(text string) string {
				return strings.Replace(text, "1. In main.go, make greet return \"hello\".", note, 1)
			})
			diags := e.diagnostics(2)
			if reqs := e.model.Requests(); len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), "USER-EDITED STEP") {
				t.Fatalf("the editor pass was not given the edited plan buffer")
			}
			if buffer := e.ed.Text(plan); !strings.Contains(buffer, note) {
				t.Errorf("the user's edit of the plan buffer was overwritten:\n%s", buffer)
			}
			if e.ed.WriteWouldAsk(plan) || e.disk(plan) != before {
				t.Errorf("the plan file changed under the edited buffer: saving it would ask \"really write?\"")
			}
			// Saved, the edit is the file; the engine writes again after that.
			e.ed.Save(plan)
			e.pickOn(diags[0], "AIDE: Accept all")
			e.waitEvent(session, "done")
			e.waitDisk(plan, "**State:** done")
			e.ed.Reload(plan)
			if text := e.checkClean(plan, "done"); !strings.Contains(text, "**State:** done") || !strings.Contains(text, "USER-EDITED STEP") {
				t.Errorf("after saving and a re-read, the plan buffer does not show the session done with the user's plan:\n%s", text)
			}
		})
	}
}

// TestPlanShownOnceComplete: the plan file is not shown while the plan
// streams in (an editor reads it once), and every editor that is sent a
// showDocument opens it beside the code with the cursor left in the code
// (as each reads takeFocus: Neovim an absent one as true, Eglot a present
// one as true).
func TestPlanShownOnceComplete(t *testing.T) {
	for _, profile := range fileFormProfiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			m := e.ed.WaitRequest("window/showDocument", nil)
			if shown := e.shownFor(session); len(shown) != 1 || !shown[0].Split {
				t.Errorf("showDocument %s: %s opened it %+v; want beside the code, the cursor left there", m.Params, profile, shown)
			}
			text, _, _ := e.ed.Doc(e.planPath(session))
			if strings.Contains(text, "planning…") {
				t.Errorf("the plan file was opened while the plan streamed in:\n%s", text)
			}
		})
	}
}

// TestOneCallPlanShownWhenProposed: aide.edit has no plan to read while
// the editor runs; its plan document opens once there is something in it
// (the proposed changes), not at "editing…".
func TestOneCallPlanShownWhenProposed(t *testing.T) {
	for _, profile := range []string{"neovim-0.12", "helix-25.1", "emacs-30.1"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: []modeltest.Reply{{ToolCalls: []model.ToolCall{greetEdit}}}})
			res, _, err := e.ed.ExecuteCommand("aide.edit", map[string]any{"uri": e.ed.URI("main.go"), "task": "make greet say hello"})
			if err != nil {
				t.Fatal(err)
			}
			var r struct{ Session string }
			if err := json.Unmarshal(res, &r); err != nil || r.Session == "" {
				t.Fatalf("aide.edit answered %s", res)
			}
			e.ed.WaitRequest("window/showDocument", func(m fakeeditor.Message) bool {
				return strings.Contains(string(m.Params), r.Session+".md")
			})
			if text := e.checkClean(e.planPath(r.Session), "shown"); !strings.Contains(text, "## Proposed changes") {
				t.Errorf("the one-call plan document opened before it had the proposal:\n%s", text)
			}
		})
	}
}

// TestPlanNotShownWhereItReplacesTheCode: Helix 25.07 opens any shown
// document in place of the code, the cursor in it, so keys meant for the
// code land in the plan (docs/editors.md, measured). It is told the plan is
// ready instead, with the key that opens it beside the code, once the plan
// is complete; nothing is opened and the code stays the view.
func TestPlanNotShownWhereItReplacesTheCode(t *testing.T) {
	e := start(t, "helix-25.07", envOptions{replies: replies(greetEdit)})
	session := e.startFromAIComment()
	m := e.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), session+".md")
	})
	if !strings.Contains(string(m.Params), "space A") {
		t.Errorf("the message %s does not name space A", m.Params)
	}
	if text := e.disk(e.planPath(session)); !strings.Contains(text, "waiting for approval") {
		t.Errorf("told before the plan was complete:\n%s", text)
	}
	if reqs := e.ed.Requests("window/showDocument"); len(reqs) != 0 {
		t.Errorf("%d showDocument sent to Helix 25.07: it replaces the code's view", len(reqs))
	}
	if _, _, open := e.ed.Doc(e.planPath(session)); open {
		t.Error("the plan file was opened in Helix 25.07")
	}
}
