package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func progressMessage(m fakeeditor.Message) string {
	var p struct{ Value struct{ Message string } }
	_ = json.Unmarshal(m.Params, &p)
	return p.Value.Message
}

// The background index shows in the editor as work-done progress: a begin
// when the client is ready, files done of files listed, and an end that
// says how many files were indexed.
func TestIndexProgressInTheEditor(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "helper.go": "package main\n\nfunc helper() {}\n", "notes.txt": "not code"})
	release := make(chan struct{})
	setup := lsp.NewSetup(lsp.WithIndexStartHook(lsp.SetupOptions{
		Env: func(string) string { return "" }, RetryBaseDelay: time.Millisecond,
	}, func() { <-release }))
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "vscode-1.96", Roots: []string{root}, Server: lsp.Options{Setup: setup}})
	ed.WaitNotification("$/progress", fakeeditor.BackgroundProgress("begin"))
	close(release)
	end := ed.WaitNotification("$/progress", fakeeditor.BackgroundProgress("end"))
	if msg := progressMessage(end); msg != "2 files indexed" {
		t.Errorf("the index's progress ended with %q, want \"2 files indexed\"", msg)
	}
}

// A workspace opened through a symbolic link to its folder is indexed at
// start, as the folder opened by its real path is.
func TestLinkedRootIsIndexedAtStart(t *testing.T) {
	real := t.TempDir()
	writeFiles(t, real, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "pkg/util.go": "package pkg\n\nfunc Util() {}\n"})
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	stats := make(chan treesitter.Stats, 1)
	setup := lsp.NewSetup(lsp.WithIndexBuildHook(lsp.SetupOptions{
		Env: func(string) string { return "" }, RetryBaseDelay: time.Millisecond,
	}, func(s treesitter.Stats) { stats <- s }))
	fakeeditor.Start(t, fakeeditor.Options{Profile: "helix-25.1", Roots: []string{link}, Server: lsp.Options{Setup: setup}})
	select {
	case s := <-stats:
		if s.Files != 2 {
			t.Errorf("the index through the link holds %d files, want 2", s.Files)
		}
	case <-time.After(time.Minute):
		t.Fatal("no background index build through the linked root")
	}
}

// Rules that ignore the whole top level (a packaging repository's "/*")
// are said in the editor, as `run` and `map` say them on stderr.
func TestIgnoreRulesHidingTheTreeAreSaid(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"main.c": "int main(void) { return 0; }\n", "lib/x.c": "int x;\n",
		".gitignore": "# Debian packaging\n/*\n!/debian/\n"})
	setup := lsp.NewSetup(lsp.SetupOptions{Env: func(string) string { return "" }, RetryBaseDelay: time.Millisecond})
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "helix-25.1", Roots: []string{root}, Server: lsp.Options{Setup: setup}})
	m := ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), ".gitignore")
	})
	if !strings.Contains(string(m.Params), `/*`) {
		t.Errorf("the warning does not name the rule to check: %s", m.Params)
	}
}
