package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// Review rounds (contract §5): hunks name their plan step, and what the user
// writes in the plan document reaches the re-plan.

const twoStepPlan = "I read main.go.\n## Plan\n1. In main.go, make greet return \"hello\".\n2. Add a doc comment to main.\n## End Plan\n"

func stepCall(path, old, new string, step int) model.ToolCall {
	args, _ := json.Marshal(map[string]any{"path": path, "old_text": old, "new_text": new, "step": step})
	return model.ToolCall{ID: "call_step_" + strings.Fields(old)[0], Name: "edit_file", Arguments: string(args)}
}

// TestHunksNameTheirStep: the diagnostic (Helix, Neovim) and the change
// annotation (VS Code) say "step N" or "not in the plan"; the plan
// document names the step no hunk carries out.
func TestHunksNameTheirStep(t *testing.T) {
	greet := stepCall("main.go", "\treturn \"hi\"\n", "\treturn \"hello\"\n", 1)
	other := editCall("main.go", "\treturn 1\n", "\treturn 2\n") // no step: not in the plan
	for _, profile := range []string{"vscode-1.96", "neovim-0.10", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: []modeltest.Reply{{Text: twoStepPlan}, {ToolCalls: []model.ToolCall{greet, other}}}})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				msgs := map[string]bool{}
				for _, d := range e.diagnostics(3) {
					msgs[regexp.MustCompile(`^AIDE proposal h[0-9]+ ?`).ReplaceAllString(d.Message, "")] = true
					if !strings.Contains(d.Message, "(step 1)") {
						continue
					}
					// The hover on it names the step too.
					var hover json.RawMessage
					params := map[string]any{"textDocument": map[string]any{"uri": e.ed.URI("main.go")}, "position": d.Range.Start}
					if err := e.ed.Call("textDocument/hover", params, &hover); err != nil || !strings.Contains(string(hover), ", step 1): ") {
						t.Errorf("hover on the step-1 hunk %+v: %v\n%s", d, err, hover)
					}
				}
				for _, want := range []string{
					`(step 1): main.go:8 change 1 line → return "hello"`,
					`(not in the plan): main.go:12 change 1 line → return 2`,
				} {
					if !msgs[want] {
						t.Errorf("diagnostics %v lack %q", msgs, want)
					}
				}
			} else {
				e.waitEvent(session, "done")
				var p protocol.ApplyWorkspaceEditParams
				if err := e.ed.Requests("workspace/applyEdit")[0].Decode(&p); err != nil {
					t.Fatal(err)
				}
				labels := map[string]bool{}
				for _, a := range p.Edit.ChangeAnnotations {
					labels[a.Label] = true
				}
				for _, want := range []string{"AIDE step 1: " + task, "AIDE not in the plan: " + task, "AIDE: " + task} {
					if !labels[want] {
						t.Errorf("annotation labels %v lack %q", labels, want)
					}
				}
			}
			doc, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"— step 1 — ", "— not in the plan — ", "**Step with no change:** 2"} {
				if !strings.Contains(string(doc), want) {
					t.Errorf("plan document lacks %q:\n%s", want, doc)
				}
			}
			ev := e.waitEvent(session, "proposal")
			if !strings.Contains(mustJSON(t, ev), `"stepsWithoutHunks":[2]`) {
				t.Errorf("proposal event %s", mustJSON(t, ev))
			}
		})
	}
}

// TestReasonWrittenInThePlanDocument: in Helix the user writes why on the
// hunk's line and a Notes section in the plan buffer, then re-plans from
// there; the architect is told, and the rejection is recorded.
func TestReasonWrittenInThePlanDocument(t *testing.T) {
	const profile = "helix-25.07"
	e := start(t, profile, envOptions{replies: []modeltest.Reply{{Text: planText}, {ToolCalls: []model.ToolCall{greetEdit}}, {Text: planText}}})
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	diags := e.diagnostics(2)
	greetHunk := ""
	for _, d := range diags {
		if strings.Contains(d.Message, `return "hello"`) {
			greetHunk = hunkOf(d)
		}
	}
	e.waitEvent(session, "proposal")
	path := e.planPath(session)
	text, err := os.ReadFile(filepath.Join(e.root, path))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, open := e.ed.Doc(path); !open {
		e.ed.Open(path, string(text))
	} else {
		e.ed.Reload(path) // Helix's :reload shows the proposal the file now holds
	}
	edited := regexp.MustCompile("(`"+greetHunk+"` [^\n]*— )pending").ReplaceAllString(e.ed.Text(path), "${1}rejected: keep hi, the tests expect it")
	edited += "\n## Notes\n\nDo not touch greet at all.\n"
	e.ed.Replace(path, edited)
	actions, err := e.ed.CodeActions(path, lineRange(0))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := fakeeditor.FindAction(actions, lsp.TitleReplan)
	if !ok {
		t.Fatalf("no re-plan action among %v", titles(actions))
	}
	if _, err := e.ed.Pick(a); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(session, "notes")
	e.progressEnds(3) // plan ready, proposed, plan ready again
	reqs := e.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want the re-plan's third", len(reqs))
	}
	prompt := requestText(reqs[2])
	for _, want := range []string{"The user rejected " + greetHunk + ": keep hi, the tests expect it", "Do not touch greet at all."} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the re-plan's request lacks %q:\n%s", want, prompt)
		}
	}
	if rej := e.hunksOf(session, "rejected"); len(rej) != 1 || rej[0] != greetHunk {
		t.Errorf("rejected %v, want %s", rej, greetHunk)
	}
}

// TestRerunTheEditorForAConflictedHunk: the user edits the line a pending
// hunk changes; the hunk goes stale and their text stays; the plan
// document offers to re-run the editor for it, which proposes the change
// again on the user's text.
func TestRerunTheEditorForAConflictedHunk(t *testing.T) {
	const profile = "helix-25.07"
	redo := editCall("main.go", "\treturn \"hi there\"\n", "\treturn \"hello\"\n")
	e := start(t, profile, envOptions{replies: []modeltest.Reply{{Text: planText}, {ToolCalls: []model.ToolCall{greetEdit}}, {ToolCalls: []model.ToolCall{redo}}}})
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	e.diagnostics(2)
	greetHunk := e.hunksOfProposal(session)[0]
	edited := strings.Replace(mainGo, "return \"hi\"", "return \"hi there\"", 1)
	e.ed.Replace("main.go", edited)
	e.waitEvent(session, "stale")
	e.diagnostics(1) // the AI comment's removal is still pending
	path := e.planPath(session)
	if _, _, open := e.ed.Doc(path); !open {
		text, _ := os.ReadFile(filepath.Join(e.root, path))
		e.ed.Open(path, string(text))
	}
	actions, err := e.ed.CodeActions(path, lineRange(0))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := fakeeditor.FindAction(actions, lsp.TitleRerun+greetHunk+" on the current text")
	if !ok {
		t.Fatalf("no re-run action for %s among %v", greetHunk, titles(actions))
	}
	if _, err := e.ed.Pick(a); err != nil {
		t.Fatal(err)
	}
	d := e.diagnostics(2)
	found := false
	for _, x := range d {
		found = found || strings.Contains(x.Message, `→ return "hello"`)
	}
	if !found {
		t.Errorf("no proposal of the change on the user's text: %+v", d)
	}
	if reqs := e.model.Requests(); len(reqs) != 3 || !strings.Contains(requestText(reqs[2]), "hi there") {
		t.Errorf("the re-run's editor call did not get the current text (%d calls)", len(reqs))
	}
	if got := e.ed.Text("main.go"); got != edited {
		t.Errorf("the user's text was not kept:\n%s", got)
	}
}

// hunksOfProposal are the hunk ids of the session's first proposal event.
func (e *env) hunksOfProposal(session string) []string {
	e.t.Helper()
	ev := e.waitEvent(session, "proposal")
	var out []string
	hs, _ := ev["hunks"].([]any)
	for _, h := range hs {
		if m, ok := h.(map[string]any); ok {
			id, _ := m["id"].(string)
			out = append(out, id)
		}
	}
	return out
}

// TestApproveWithAnotherModel: while the plan waits the plan file prices
// the editor call (no history here: it says so) and offers the other
// configured model; approving with it sends the editor call there, and
// the cost section then shows the estimate against the actual use.
func TestApproveWithAnotherModel(t *testing.T) {
	for _, profile := range []string{"neovim-0.10", "helix-25.07"} {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			path := e.planPath(session)
			text, err := os.ReadFile(filepath.Join(e.root, path))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"**Editor call (estimate):** `fake/editor-model`: ~", "no history yet for this model", "- `fake/architect-model`: ~"} {
				if !strings.Contains(string(text), want) {
					t.Errorf("the waiting plan file lacks %q:\n%s", want, text)
				}
			}
			if _, _, open := e.ed.Doc(path); !open {
				e.ed.Open(path, string(text))
			}
			actions, err := e.ed.CodeActions(path, lineRange(0))
			if err != nil {
				t.Fatal(err)
			}
			a, ok := fakeeditor.FindAction(actions, lsp.TitleApproveWith+"fake/architect-model")
			if !ok {
				t.Fatalf("no approve-with action among %v", titles(actions))
			}
			if _, err := e.ed.Pick(a); err != nil {
				t.Fatal(err)
			}
			e.diagnostics(2)
			reqs := e.model.Requests()
			if len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), `"model":"architect-model"`) {
				t.Fatalf("the editor call did not go to the chosen model (%d calls)", len(reqs))
			}
			after, _ := os.ReadFile(filepath.Join(e.root, path))
			if !strings.Contains(string(after), "Editor call fake/architect-model: estimated ~") || strings.Contains(string(after), "(estimate):") {
				t.Errorf("after the call the plan file should show the estimate against the actual use:\n%s", after)
			}
		})
	}
}

// TestVSCodeReasonAfterUnticking: in the Refactor Preview the user unticks
// the greet change (a rejection without a reason); the extension then
// sends aide.reject with the reason it asked for, and the re-plan tells
// the architect.
func TestVSCodeReasonAfterUnticking(t *testing.T) {
	const profile = "vscode-1.96"
	o := envOptions{replies: []modeltest.Reply{{Text: planText}, {ToolCalls: []model.ToolCall{greetEdit}}, {Text: planText}}}
	greetHunk := ""
	o.applyEdit = func(ed *fakeeditor.Editor, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		for id, a := range p.Edit.ChangeAnnotations {
			if a.Description != nil && strings.Contains(*a.Description, "change 1 line") {
				greetHunk = string(id)
			}
		}
		return ed.ApplyAnnotated(p.Edit, func(id string) bool { return id != greetHunk })
	}
	e := start(t, profile, o)
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	e.waitEvent(session, "done")
	if rej := e.hunksOf(session, "rejected"); len(rej) != 1 || rej[0] != greetHunk {
		t.Fatalf("rejected %v, want the unticked %q", rej, greetHunk)
	}
	// What the extension sends once the user answered its input box.
	if _, _, err := e.ed.ExecuteCommand("aide.reject", map[string]any{"session": session, "hunks": []string{greetHunk}, "reason": "keep hi for now"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.ed.ExecuteCommand("aide.replan", map[string]any{"session": session}); err != nil {
		t.Fatal(err)
	}
	e.progressEnds(3)
	reqs := e.model.Requests()
	if len(reqs) != 3 || !strings.Contains(requestText(reqs[2]), "The user rejected "+greetHunk+": keep hi for now") {
		t.Errorf("the re-plan was not told the reason (%d calls)", len(reqs))
	}
}
