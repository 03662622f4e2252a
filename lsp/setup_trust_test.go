package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aide-lsp/aide-lsp/config"
)

// The Trust answer of the trust request records the file's hash, unless
// the file changed since the user was asked (then the user trusted other
// content, and nothing is recorded).
func TestTrustAnswerRecordsTheContentShown(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	env := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	p := filepath.Join(root, ".aide", "config.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"providers":{"x":{"kind":"openai","baseURL":"https://x.example/v1"}}}`), 0o644)
	c := &configState{env: env, root: root}
	shown := c.layers(nil).Workspace
	if !shown.NeedsTrust() {
		t.Fatalf("no trust request: %+v", shown)
	}
	store := config.DefaultTrustStore(env)

	os.WriteFile(p, []byte(`{"providers":{"x":{"kind":"openai","baseURL":"https://other.example/v1"}}}`), 0o644)
	if err := c.trust(store, shown); err == nil {
		t.Fatal("content changed after the question was trusted")
	}
	if l, _ := store.List(); len(l) != 0 {
		t.Fatalf("store after a refused trust: %v", l)
	}

	shown = c.layers(nil).Workspace
	if err := c.trust(store, shown); err != nil {
		t.Fatal(err)
	}
	if after := c.layers(nil); !after.Workspace.Trusted || after.Config.Providers["x"].BaseURL != "https://other.example/v1" {
		t.Fatalf("after Trust: %+v", after.Workspace)
	}
}
