package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// The repository index is built once per connection: Setup builds it in the
// background, and the first architect pass waits for that build (its
// request carries the repository map) instead of building it again (the
// engine side is TestIndexIsBuiltOnceWhenTheCallerBuildsIt in commands).
func TestSetupBuildsTheIndexOnce(t *testing.T) {
	root := t.TempDir()
	srv := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n1. In main.go, call farAwayHelper.\n## End Plan\n"})
	cfg, _ := json.Marshal(map[string]any{
		"architectModel": "fake/a", "editorModel": "fake/a",
		"providers": map[string]any{"fake": map[string]any{"kind": "openai", "baseURL": srv.BaseURL()}},
	})
	// The provider comes from the user's config (a temporary
	// XDG_CONFIG_HOME), as a careful user has it: a workspace file may not
	// route requests.
	xdg := t.TempDir()
	for name, text := range map[string]string{
		filepath.Join(xdg, "aide-lsp", "config.json"): string(cfg),
		filepath.Join(root, "main.go"):                "package main\n\nfunc main() {}\n",
		filepath.Join(root, "helper.go"):              "package main\n\n// farAwayHelper is only in the repository map.\nfunc farAwayHelper() int { return 1 }\n",
	} {
		p := name
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var builds atomic.Int32
	setup := lsp.NewSetup(lsp.WithIndexBuildHook(lsp.SetupOptions{
		Env: xdgEnv(xdg, ""), RetryBaseDelay: time.Millisecond,
	}, func(treesitter.Stats) { builds.Add(1) }))
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "helix-25.1", Roots: []string{root}, Server: lsp.Options{Setup: setup}})
	ed.Open("main.go", "package main\n\nfunc main() {}\n")
	if _, _, err := ed.ExecuteCommand("aide.architect", map[string]any{"uri": ed.URI("main.go"), "task": "use the helper"}); err != nil {
		t.Fatal(err)
	}
	ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want the architect's one", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Raw), "farAwayHelper") {
		t.Errorf("the architect's request has no repository map from the index: %s", reqs[0].Raw)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("Setup built the index %d times, want once", n)
	}
}

// TestOpenedDocumentsWarmTheIndex: a document the editor opens inside the
// workspace is handed to the index (so its first save is an incremental
// parse); one outside the workspace is not.
func TestOpenedDocumentsWarmTheIndex(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "other.go")
	warmed := make(chan string, 4)
	setup := lsp.NewSetup(lsp.WithWarmHook(lsp.SetupOptions{
		Env: func(string) string { return "" }, RetryBaseDelay: time.Millisecond,
	}, func(rel string) { warmed <- rel }))
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "neovim-0.7", Roots: []string{root}, Server: lsp.Options{Setup: setup}})
	ed.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file://" + filepath.ToSlash(outside), "languageId": "go", "version": 1, "text": "package other\n"}})
	ed.Open("main.go", "package main\n\nfunc main() {}\n")
	select {
	case rel := <-warmed:
		if rel != "main.go" {
			t.Fatalf("warmed %q first, want main.go (the outside file must be skipped)", rel)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the opened document never reached the index")
	}
}

// xdgEnv is an environment holding only XDG_CONFIG_HOME and XDG_STATE_HOME.
func xdgEnv(configHome, stateHome string) func(string) string {
	return func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return configHome
		case "XDG_STATE_HOME":
			return stateHome
		}
		return ""
	}
}
