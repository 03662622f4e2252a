package commands_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/proc"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// BenchmarkTurn is one architect → editor turn of the engine alone, as in
// tests/perf's BenchmarkTurnOverhead but without the LSP wire and without
// a repository index (treesitter's BenchmarkMapTasks measures the map):
// a new session per op, instant fakes, plan and session files written to
// a temporary workspace. ms/op is wall time, model calls included;
// overhead-ms/op leaves out the two model passes (their own Duration);
// cpu-ms/op is the process's CPU per turn, the fakes' included.
//
//	go test ./commands -run '^$' -bench Turn -benchtime 50x
func BenchmarkTurn(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "turn.go"), []byte("package aideperf\n\n// Answer is the answer.\nfunc Answer() int { return 41 }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	arch := modeltest.NewOpenAI(b)
	ed := modeltest.NewAnthropic(b)
	providers := map[string]model.ProviderConfig{
		"arch": {Kind: "openai", BaseURL: arch.BaseURL()},
		"ed":   {Kind: "anthropic", BaseURL: ed.BaseURL()},
	}
	cfg := config.Defaults()
	layer, _ := json.Marshal(map[string]any{"architectModel": "arch/big", "editorModel": "ed/small", "reviewPlan": false})
	if p := cfg.Apply("bench", layer); p != nil {
		b.Fatal(p)
	}
	ws, err := workspace.Open([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	router := model.NewRouter(providers, model.Options{Env: func(string) string { return "" }, MaxRetries: -1, Timeout: time.Minute})
	client := &passClient{}
	eng, err := commands.NewEngine(commands.Options{Workspace: ws, Config: cfg, Model: router, Client: client})
	if err != nil {
		b.Fatal(err)
	}
	plan := modeltest.Reply{Text: "I read turn.go.\n\n## Plan\n1. In turn.go, make Answer return 42.\n## End Plan\n"}
	edit := modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "c1", Name: "edit_file",
		Arguments: `{"path":"turn.go","old_text":"return 41 }","new_text":"return 42 }"}`}}}
	arg, _ := json.Marshal(map[string]any{"uri": "file://" + filepath.ToSlash(filepath.Join(root, "turn.go")), "task": "make Answer return 42"})
	ctx := context.Background()
	var overhead time.Duration
	c0 := proc.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		arch.Script(plan)
		ed.Script(edit)
		client.reset()
		t0 := time.Now()
		_, work, err := eng.Execute(ctx, commands.CmdArchitect, arg)
		if err != nil {
			b.Fatal(err)
		}
		if err := work(ctx, nil); err != nil {
			b.Fatal(err)
		}
		took := time.Since(t0)
		if client.proposals != 1 {
			b.Fatalf("turn %d made %d proposals", i, client.proposals)
		}
		overhead += took - client.modelTime
	}
	b.StopTimer()
	b.ReportMetric(float64(overhead.Microseconds())/float64(b.N)/1000, "overhead-ms/op")
	b.ReportMetric(float64(proc.CPUTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

// passClient counts proposals and sums the model passes' own time.
type passClient struct {
	proposals int
	modelTime time.Duration
}

func (c *passClient) reset() { c.proposals, c.modelTime = 0, 0 }
func (c *passClient) SessionEvent(ev commands.Event) {
	if ev.Event == "architect_pass" || ev.Event == "editor_pass" {
		switch d := ev.Data.(type) {
		case commands.PassData:
			c.modelTime += time.Duration(d.Ms) * time.Millisecond
		case commands.EditorPassData:
			c.modelTime += time.Duration(d.Ms) * time.Millisecond
		}
	}
}
func (c *passClient) ShowPlan(commands.PlanDoc)                  {}
func (c *passClient) PlanChanged(commands.PlanDoc)               {}
func (c *passClient) Delivery() commands.Delivery                { return commands.ReviewInPlace }
func (c *passClient) Propose(context.Context, commands.Proposal) { c.proposals++ }
func (c *passClient) Message(string, string)                     {}
func (c *passClient) ApplyHunks(context.Context, string, string, []editapply.Hunk) ([]string, error) {
	return nil, nil
}
func (c *passClient) PlanBuffer(string) (string, bool) { return "", false }
