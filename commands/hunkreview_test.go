package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The review one hunk at a time (hunkreview.go), as a front end that asks
// about each hunk drives it: the engine names the next hunk, carries out
// the answer, ignores a second answer, and writes through the client only
// the buffer its read showed (the disk otherwise).
func TestReviewOneHunkAtATime(t *testing.T) {
	src := "package main\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"
	two := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }"), editCall("m.go", "return 2 }", "return 20 }")}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": src}, archReplies: []modeltest.Reply{two}})
	id := e.start(commands.CmdEdit, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	abs := filepath.Join(e.root, "m.go")
	buffer := src // the client's buffer: as the disk, until the user types
	var writes []string
	f := commands.Files{Buffers: true,
		Read: func(context.Context, string) (string, error) { return buffer, nil },
		Write: func(_ context.Context, _, text string) error {
			writes = append(writes, text)
			buffer = text
			return nil
		},
	}
	ctx := context.Background()

	step, ok := e.eng.Next(ctx, id, f)
	if !ok || step.Ask == nil || step.Ask.ID != "h1" || !strings.HasPrefix(step.Ask.Title, "m.go:3") || !strings.Contains(step.Ask.After, "return 10 }") {
		t.Fatalf("first step %+v, want the question about h1 on m.go:3", step)
	}
	o, ok := e.eng.Answer(ctx, id, "h1", true, f)
	if !ok || o.Decision != commands.DecisionAccepted || len(writes) != 0 {
		t.Fatalf("accept h1: %+v, client writes %d: the read showed the disk, so the disk is written", o, len(writes))
	}
	if got, _ := os.ReadFile(abs); !strings.Contains(string(got), "return 10 }") {
		t.Fatalf("disk after accepting h1:\n%s", got)
	}
	if _, ok := e.eng.Answer(ctx, id, "h1", false, f); ok {
		t.Fatal("a second answer to h1 was taken")
	}

	// The user types in the buffer (unsaved): h2 is judged on it and
	// written through the client, the edit kept.
	disk, _ := os.ReadFile(abs)
	buffer = string(disk) + "// unsaved\n"
	step, ok = e.eng.Next(ctx, id, f)
	if !ok || step.Ask == nil || step.Ask.ID != "h2" {
		t.Fatalf("second step %+v, want h2", step)
	}
	o, ok = e.eng.Answer(ctx, id, "h2", true, f)
	if !ok || o.Decision != commands.DecisionAccepted || len(writes) != 1 || !strings.Contains(writes[0], "return 20 }") || !strings.HasSuffix(writes[0], "// unsaved\n") {
		t.Fatalf("accept h2: %+v, writes %q: want one client write on the user's buffer", o, writes)
	}
	if _, ok := e.eng.Next(ctx, id, f); ok {
		t.Fatal("a step after every hunk was decided")
	}
	if e.state(id) != commands.StateDone {
		t.Fatalf("state %q", e.state(id))
	}
}
