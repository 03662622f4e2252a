package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

const utilGo = "package main\n\nfunc util() int {\n\treturn 3\n}\n"

var utilEdit = editCall("util.go", "\treturn 3\n", "\treturn 4\n")

// typed is what the user types after accepting, away from every hunk.
func typed(text string) string {
	return strings.Replace(text, "func main()", "// typed by the user\nfunc main()", 1)
}

// current is a file as the user sees it: the open buffer, else the disk.
func (e *env) current(path string) string {
	if text, _, open := e.ed.Doc(path); open {
		return text
	}
	b, _ := os.ReadFile(filepath.Join(e.root, path))
	return string(b)
}

// undo runs aide.undo and decodes its result.
func (e *env) undo(arg map[string]any) commands.UndoResult {
	e.t.Helper()
	raw, _, err := e.ed.ExecuteCommand(commands.CmdUndo, arg)
	if err != nil {
		e.t.Fatalf("aide.undo %v: %v", arg, err)
	}
	var r commands.UndoResult
	if err := json.Unmarshal(raw, &r); err != nil {
		e.t.Fatalf("aide.undo answered %s: %v", raw, err)
	}
	return r
}

// acceptAllOf reviews a proposal the way the profile's user does: VS Code
// confirms the Refactor Preview (the fake applies it whole); the
// code-action editors pick "Accept all" on one of the n diagnostics of
// main.go.
func (e *env) acceptAllOf(profile string, n, total int) {
	e.t.Helper()
	if codeActionDelivery(profile) {
		diags := e.diagnostics(n)
		e.pickOn(diags[0], "AIDE: Accept all "+itoa(total)+" changes")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// acceptThree runs a session whose three hunks in two files (and the AI
// comment's removal) are all accepted.
func acceptThree(t *testing.T, profile string) (*env, string) {
	e := start(t, profile, envOptions{replies: replies(greetEdit, otherEdit, utilEdit)})
	write(t, filepath.Join(e.root, "util.go"), utilGo)
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	e.acceptAllOf(profile, 3, 4)
	e.waitEvent(session, "done")
	if acc := e.hunksOf(session, "accepted"); len(acc) != 4 {
		t.Fatalf("accepted %v, want 4", acc)
	}
	if got := e.current("util.go"); got != strings.Replace(utilGo, "return 3", "return 4", 1) {
		t.Fatalf("util.go after accepting: %q", got)
	}
	if codeActionDelivery(profile) {
		e.diagnostics(0)
	}
	return e, session
}

// TestUndoKeepsTheTyping: three hunks in two files accepted, the user
// types elsewhere, aide.undo: the hunks revert (after a review like any
// proposal), the typing stays; the undo is undoable.
func TestUndoKeepsTheTyping(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e, session := acceptThree(t, profile)
			e.ed.Replace("main.go", typed(e.ed.Text("main.go")))
			res := e.undo(map[string]any{"session": session})
			got := slices.Clone(res.Undone)
			slices.Sort(got)
			if !slices.Equal(got, []string{"h1", "h2", "h3", "h4"}) || len(res.Conflicts) != 0 || res.Session == "" {
				t.Fatalf("aide.undo = %+v", res)
			}
			e.acceptAllOf(profile, 3, 4)
			e.waitEvent(res.Session, "done")
			if got := e.ed.Text("main.go"); got != typed(mainGo) {
				t.Errorf("main.go after undo:\n%s\nwant:\n%s", got, typed(mainGo))
			}
			if got := e.current("util.go"); got != utilGo {
				t.Errorf("util.go after undo: %q", got)
			}
			if ev := e.waitEvent(session, "undone"); ev["by"] != res.Session {
				t.Errorf("undone event %v", ev)
			}
			plan, _ := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
			if !strings.Contains(string(plan), "## Undo") || !strings.Contains(string(plan), "`h1` — undone by session "+res.Session) {
				t.Errorf("the plan document of the undone session does not list the undo:\n%s", plan)
			}
			// Undo the undo: the session's changes are back, the typing still stays.
			again := e.undo(map[string]any{"session": res.Session})
			if len(again.Undone) != 4 || len(again.Conflicts) != 0 {
				t.Fatalf("undo of the undo = %+v", again)
			}
			e.acceptAllOf(profile, 3, 4)
			e.waitEvent(again.Session, "done")
			if got, want := e.ed.Text("main.go"), typed(afterGreetOther); got != want {
				t.Errorf("main.go after undoing the undo:\n%s\nwant:\n%s", got, want)
			}
			// What is undone cannot be undone twice.
			raw, _, err := e.ed.ExecuteCommand(commands.CmdUndo, map[string]any{"session": res.Session})
			if err == nil && !strings.Contains(string(raw), "already undone") {
				t.Errorf("a second undo of the same undo answered %s", raw)
			}
		})
	}
}

var afterGreetOther = strings.Replace(afterGreet, "return 1", "return 2", 1)

// TestUndoConflict: a line a hunk wrote is changed, then undone: that hunk
// is a conflict (its lines in the reason), never reverted; the others are.
func TestUndoConflict(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e, session := acceptThree(t, profile)
			mine := strings.Replace(e.ed.Text("main.go"), `return "hello"`, `return "hey"`, 1)
			e.ed.Replace("main.go", mine)
			res := e.undo(map[string]any{"session": session})
			if len(res.Conflicts) != 1 || res.Conflicts[0].ID != "h1" || !strings.Contains(res.Conflicts[0].Reason, `return \"hello\"`) {
				t.Fatalf("conflicts %+v, want h1 with its lines", res.Conflicts)
			}
			if slices.Contains(res.Undone, "h1") || len(res.Undone) != 3 {
				t.Fatalf("undone %v", res.Undone)
			}
			e.acceptAllOf(profile, 2, 3)
			e.waitEvent(res.Session, "done")
			want := strings.Replace(mainGo, `return "hi"`, `return "hey"`, 1)
			if got := e.ed.Text("main.go"); got != want {
				t.Errorf("main.go after undo:\n%s\nwant:\n%s", got, want)
			}
			if got := e.current("util.go"); got != utilGo {
				t.Errorf("util.go after undo: %q", got)
			}
			if ev := e.waitEvent(session, "undo_conflict"); !strings.Contains(mustJSON(t, ev), "h1") {
				t.Errorf("undo_conflict event %v", ev)
			}
			plan, _ := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
			if !strings.Contains(string(plan), "`h1` — not undone:") || !strings.Contains(string(plan), "`h2` — undone by session") {
				t.Errorf("the plan document does not list the conflict and the undone hunks:\n%s", plan)
			}
		})
	}
}

// TestUndoCreatedRenamedDeleted: a session that created, renamed and
// deleted files is undone: every file is back as it was.
func TestUndoCreatedRenamedDeleted(t *testing.T) {
	calls := []model.ToolCall{greetEdit,
		{ID: "call_w", Name: "write_file", Arguments: `{"path":"helper.go","content":"package main\n\nfunc helper() {}\n"}`},
		{ID: "call_r", Name: "rename_file", Arguments: `{"path":"old.txt","new_path":"moved.txt"}`},
		{ID: "call_d", Name: "delete_file", Arguments: `{"path":"gone.txt"}`},
	}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(calls...)})
			write(t, filepath.Join(e.root, "old.txt"), "to be moved\n")
			write(t, filepath.Join(e.root, "gone.txt"), "to be deleted\n")
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			e.acceptAllOf(profile, 2, 5)
			e.waitEvent(session, "done")
			exists := func(p string) bool { _, err := os.Stat(filepath.Join(e.root, p)); return err == nil }
			if !exists("helper.go") || !exists("moved.txt") || exists("old.txt") || exists("gone.txt") {
				t.Fatalf("the session did not create, rename and delete: helper.go %v moved.txt %v old.txt %v gone.txt %v",
					exists("helper.go"), exists("moved.txt"), exists("old.txt"), exists("gone.txt"))
			}
			res := e.undo(map[string]any{"session": session})
			if len(res.Undone) != 5 || len(res.Conflicts) != 0 {
				t.Fatalf("aide.undo = %+v", res)
			}
			e.acceptAllOf(profile, 2, 5)
			e.waitEvent(res.Session, "done")
			if exists("helper.go") || exists("moved.txt") {
				t.Errorf("helper.go %v moved.txt %v after undo", exists("helper.go"), exists("moved.txt"))
			}
			for p, want := range map[string]string{"old.txt": "to be moved\n", "gone.txt": "to be deleted\n", "main.go": mainGo} {
				if got := e.current(p); got != want {
					t.Errorf("%s after undo = %q, want %q", p, got, want)
				}
			}
		})
	}
}

// lineOf is the 0-based line of the first line of text holding s.
func lineOf(text, s string) int {
	return strings.Count(text[:strings.Index(text, s)], "\n")
}

// TestUndoOfferedWhereTheUserIs: on a line a session changed, the code
// actions offer to undo the session or that hunk alone; the plan document
// of the done session offers the undo too.
func TestUndoOfferedWhereTheUserIs(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e, session := acceptThree(t, profile)
			short := strings.Join(strings.Fields(task), " ")
			actions, err := e.ed.CodeActions("main.go", lineRange(lineOf(e.ed.Text("main.go"), `return "hello"`)))
			if err != nil {
				t.Fatal(err)
			}
			whole, okWhole := fakeeditor.FindAction(actions, lsp.TitleUndo+short)
			one, okOne := fakeeditor.FindAction(actions, lsp.TitleUndo+short+" (h1 only)")
			if !okWhole || !okOne || whole.Title != lsp.TitleUndo+short {
				t.Fatalf("actions on the changed line %v lack the undos", titles(actions))
			}
			// A line no session changed offers none.
			actions, _ = e.ed.CodeActions("main.go", lineRange(lineOf(e.ed.Text("main.go"), "import")))
			if _, ok := fakeeditor.FindAction(actions, lsp.TitleUndo); ok {
				t.Errorf("an undo offered on a line no session changed: %v", titles(actions))
			}
			// The plan document of the done session.
			planFile := e.planPath(session)
			if _, _, open := e.ed.Doc(planFile); !open {
				b, _ := os.ReadFile(filepath.Join(e.root, planFile))
				e.ed.Open(planFile, string(b))
			}
			pa, err := e.ed.CodeActions(planFile, lineRange(0))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := fakeeditor.FindAction(pa, lsp.TitleUndo+short); !ok {
				t.Errorf("the done session's plan document offers %v, no undo", titles(pa))
			}
			// Undo that hunk alone.
			raw, err := e.ed.Pick(one)
			if err != nil {
				t.Fatal(err)
			}
			var res commands.UndoResult
			if err := json.Unmarshal(raw, &res); err != nil || !slices.Equal(res.Undone, []string{"h1"}) {
				t.Fatalf("the hunk's undo answered %s (%v)", raw, err)
			}
			e.acceptAllOf(profile, 1, 1)
			e.waitEvent(res.Session, "done")
			want := strings.Replace(afterGreetOther, `return "hello"`, `return "hi"`, 1)
			if got := e.ed.Text("main.go"); got != want {
				t.Errorf("main.go after undoing h1 alone:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestUndoApplyAtOnce: with apply, the reverts land without a review (the
// user asked from a prompt that said so).
func TestUndoApplyAtOnce(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e, session := acceptThree(t, profile)
			res := e.undo(map[string]any{"session": session, "apply": true})
			if len(res.Undone) != 4 || len(res.Conflicts) != 0 {
				t.Fatalf("aide.undo = %+v", res)
			}
			e.waitEvent(res.Session, "done")
			if got := e.ed.Text("main.go"); got != mainGo {
				t.Errorf("main.go after undo with apply:\n%s\nwant:\n%s", got, mainGo)
			}
			if got := e.current("util.go"); got != utilGo {
				t.Errorf("util.go after undo with apply: %q", got)
			}
			if codeActionDelivery(profile) && len(e.ed.Diagnostics("main.go")) != 0 {
				t.Errorf("reverts applied at once were offered for review: %v", e.ed.Diagnostics("main.go"))
			}
		})
	}
}
