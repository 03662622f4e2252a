package abuse_test

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// TestRunJSONCostIsAideCost: with the user's own prices, `run --json`
// reports the same cost as aide.cost for the same calls, through the real
// binary: one pricing of a call (model.Price.Cost, Engine.Cost). The
// figures are the fake's reported usage priced by hand.
func TestRunJSONCostIsAideCost(t *testing.T) {
	const plan = "I read m.go.\n\n## Plan\n1. In m.go, make A return 10.\n## End Plan\n"
	replies := func() []modeltest.Reply {
		return []modeltest.Reply{
			{Text: plan, Usage: &model.Usage{PromptTokens: 1000, CompletionTokens: 200}},
			{ToolCalls: []model.ToolCall{editCall("c1", "m.go", "return 1 }", "return 10 }")}, Usage: &model.Usage{PromptTokens: 500, CompletionTokens: 100}},
		}
	}
	// fake/big: $3 in, $15 out per million; fake/small: $1 in, $2 out.
	const want = (1000*3+200*15)/1e6 + (500*1+100*2)/1e6
	config := func(fake *modeltest.Server) string {
		b, _ := json.Marshal(map[string]any{
			"providers":      map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": fake.BaseURL()}},
			"architectModel": "fake/big", "editorModel": "fake/small", "reviewPlan": false,
			"prices": map[string]any{"fake/big": map[string]float64{"input": 3, "output": 15}, "fake/small": map[string]float64{"input": 1, "output": 2}},
		})
		return string(b)
	}
	type costTable struct {
		Rows  []model.CostRow
		Total float64
	}
	check := func(who string, c costTable) {
		t.Helper()
		sum := 0.0
		for _, r := range c.Rows {
			sum += r.CostUSD
		}
		if len(c.Rows) != 2 || math.Abs(c.Total-want) > 1e-12 || math.Abs(sum-want) > 1e-12 {
			t.Fatalf("%s: cost %+v, want 2 rows costing $%.6f in all", who, c, want)
		}
	}

	// run --json.
	root, xdg := t.TempDir(), t.TempDir()
	writeFile(t, root, "m.go", mGo)
	fake := modeltest.NewOpenAI(t, replies()...)
	writeFile(t, xdg, "config/aide-lsp/config.json", config(fake))
	cmd := exec.Command(binary(t), "run", "--dir", root, "--json", "make A return 10")
	cmd.Env = baseEnv("XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	var res struct{ Usage costTable }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("run --json printed no JSON object: %v\n%s", err, out)
	}
	check("run --json", res.Usage)

	// aide.cost, in a server, for the same calls.
	root, xdg = t.TempDir(), t.TempDir()
	writeFile(t, root, "m.go", mGo)
	fake = modeltest.NewOpenAI(t, replies()...)
	writeFile(t, xdg, "config/aide-lsp/config.json", config(fake))
	p := startServer(t, root, baseEnv("XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state")))
	p.initialize(root, nil)
	var s struct{ Session string }
	_ = json.Unmarshal(p.command("aide.architect", map[string]any{"uri": string(uri.File(filepath.Join(root, "m.go"))), "task": "make A return 10"}), &s)
	for deadline := time.Now().Add(hangGuard); !settled[p.sessionState(s.Session)] && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if st := p.sessionState(s.Session); st != "proposed" {
		t.Fatalf("the session ended %q, want proposed (stderr %s)", st, p.stderrText())
	}
	var cost costTable
	if err := json.Unmarshal(p.command("aide.cost", map[string]any{}), &cost); err != nil {
		t.Fatal(err)
	}
	check("aide.cost", cost)
	p.shutdown()
}
