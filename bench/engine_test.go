package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

const engineCommentedGo = "package main\n\n// AI: greet the world\nfunc main() {\n\tprintln(\"hello\")\n}\n"

// engineCopy is a copy folder holding main.go and a router over a fake
// answering with a plan and one edit (or, with nothing, no edit at all).
func engineCopy(t *testing.T, nothing bool) (string, model.Client) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(engineCommentedGo), 0o644); err != nil {
		t.Fatal(err)
	}
	replies := []modeltest.Reply{{Text: "## Plan\n1. In `main.go`, print hello, world.\n## End Plan\n"}}
	if nothing {
		replies = append(replies, modeltest.Reply{Text: "I see nothing to change."})
	} else {
		args, _ := json.Marshal(map[string]string{"path": "main.go", "old_text": `println("hello")`, "new_text": `println("hello, world")`})
		replies = append(replies, modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "c1", Name: "edit_file", Arguments: string(args)}}})
	}
	srv := modeltest.NewOpenAI(t, replies...)
	router := model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: "openai", BaseURL: srv.BaseURL()}},
		model.Options{Env: func(string) string { return "" }, MaxRetries: -1, Timeout: time.Minute})
	return dir, router
}

func runEngineOn(t *testing.T, dir string, client model.Client, task Task) EngineRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	er, err := RunEngine(ctx, EngineSpec{Dir: dir, Task: task, Config: config.Defaults().Effective(), Model: client,
		ArchitectModel: fakeArchitect, EditorModel: fakeEditor})
	if err != nil {
		t.Fatal(err)
	}
	return er
}

func TestRunEngineAppliesAndAccepts(t *testing.T) {
	dir, client := engineCopy(t, false)
	er := runEngineOn(t, dir, client, Task{Instruction: "greet the world", Files: []string{"main.go"}})
	if er.State != "done" || er.Reason != "" || len(er.Applied) != 1 || er.sessionError() {
		t.Fatalf("run = %+v", er)
	}
	// The instruction was given, not taken from the comment: the comment stays.
	want := "package main\n\n// AI: greet the world\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != want {
		t.Fatalf("main.go:\n%s", data)
	}
}

func TestRunEngineRemovesTheAICommentItTookTheTaskFrom(t *testing.T) {
	dir, client := engineCopy(t, false)
	er := runEngineOn(t, dir, client, Task{Files: []string{"main.go"}})
	want := "package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); er.State != "done" || string(data) != want {
		t.Fatalf("run %+v; main.go:\n%s", er, data)
	}
}

func TestRunEngineSaysWhenNothingWasProposed(t *testing.T) {
	dir, client := engineCopy(t, true)
	er := runEngineOn(t, dir, client, Task{Instruction: "greet the world", Files: []string{"main.go"}})
	if er.Reason == "" || len(er.Applied) != 0 {
		t.Fatalf("run = %+v", er)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != engineCommentedGo {
		t.Fatalf("main.go changed:\n%s", data)
	}
}
