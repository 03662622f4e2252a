package commands_test

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The user edited the lines of h2 while it waited: h2 went stale, the
// user's text stays; re-running the editor for it makes the change again
// against the current content.
func TestRerunAStaleHunkAgainstTheCurrentContent(t *testing.T) {
	first := modeltest.Reply{Text: plan("1. Make a return 10.\n2. Make b return 20.")}
	edits := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }"), editCall("m.go", "return 2 }", "return 20 }")}}
	redo := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "func b() int { return 2 + 0 }", "func b() int { return 20 }")}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": threeFuncs}, archReplies: []modeltest.Reply{first, edits, redo}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.exec(commands.CmdRerunHunk, map[string]any{"session": id, "hunks": []string{"h2"}}); err == nil || !strings.Contains(err.Error(), "only a hunk gone stale") {
		t.Fatalf("re-run of a pending hunk: %v", err)
	}
	writeFile(t, e.root, "m.go", strings.Replace(threeFuncs, "return 2 }", "return 2 + 0 }", 1))
	if _, err := e.eng.Stale(id, []string{"h2"}, "the document changed under it"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.exec(commands.CmdRerunHunk, map[string]any{"session": id, "hunks": []string{"h2"}}); err != nil {
		t.Fatal(err)
	}
	reqs := e.arch.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want one more editor call", len(reqs))
	}
	prompt := userText(reqs[2])
	for _, want := range []string{"the user edited these lines", "return 2 + 0 }", "return 20 }"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the re-run's request lacks %q:\n%s", want, prompt)
		}
	}
	pending := e.eng.Pending(id)
	if e.state(id) != commands.StateProposed || len(pending) != 2 {
		t.Fatalf("state %s, pending %+v; want h1 and the new hunk", e.state(id), pending)
	}
	if p := pending[1]; !strings.Contains(p.OldText, "return 2 + 0 }") || !strings.Contains(p.NewText, "return 20 }") {
		t.Errorf("new hunk %+v does not change the user's current line", p)
	}
}
