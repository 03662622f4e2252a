package abuse_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// TestUntrustedWorkspaceAddsNoChoiceNorPrice: a cloned repository's
// .aide/config.json prices a model of a provider the user configured.
// Untrusted, the plan waiting for approval offers only the user's models
// and prices (the planted model is no "Approve with" choice); trusted,
// the model is offered and its cost says whose price it is.
func TestUntrustedWorkspaceAddsNoChoiceNorPrice(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		root, xdg := t.TempDir(), t.TempDir()
		writeFile(t, root, "m.go", mGo)
		writeFile(t, root, ".aide/config.json", `{"prices":{"fake/planted":{"input":0,"output":0}}}`)
		fake := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n1. In m.go, make A return 10.\n## End Plan\n"})
		user, _ := json.Marshal(map[string]any{
			"providers":      map[string]any{"fake": map[string]any{"kind": "openai", "baseURL": fake.BaseURL()}},
			"architectModel": "fake/big", "editorModel": "fake/small",
			"prices": map[string]any{"fake/small": map[string]float64{"input": 1, "output": 2}},
		})
		writeFile(t, xdg, "config/aide-lsp/config.json", string(user))
		env := baseEnv("XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
		if trusted {
			cmd := exec.Command(binary(t), "trust", "--dir", root)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("aide-lsp trust: %v\n%s", err, out)
			}
		}
		p := startServer(t, root, env)
		p.initialize(root, nil)
		var s struct{ Session string }
		if err := json.Unmarshal(p.command("aide.architect", map[string]any{"uri": string(uri.File(filepath.Join(root, "m.go"))), "task": "make A return 10"}), &s); err != nil || s.Session == "" {
			t.Fatal("no session")
		}
		var doc string
		deadline := time.Now().Add(hangGuard)
		for !strings.Contains(doc, "Editor call (estimate)") {
			if time.Now().After(deadline) {
				t.Fatalf("no estimate in the plan document:\n%s", doc)
			}
			time.Sleep(20 * time.Millisecond)
			b, _ := os.ReadFile(filepath.Join(root, ".aide", "plans", s.Session+".md"))
			doc = string(b)
		}
		p.shutdown()
		if !strings.Contains(doc, "`fake/small`") {
			t.Fatalf("the user's editor model is not priced:\n%s", doc)
		}
		offered := strings.Contains(doc, "fake/planted")
		labelled := strings.Contains(doc, "price from .aide/config.json")
		if !trusted && (offered || labelled) {
			t.Fatalf("an untrusted workspace's price added a choice:\n%s", doc)
		}
		if trusted && (!offered || !labelled) {
			t.Fatalf("a trusted workspace's priced model is not offered with whose price it is:\n%s", doc)
		}
	}
}
