//go:build unix

package abuse_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestHostileFilesUnderAide: a repository ships .aide/config.json, the tag
// cache or a session state file as a link to /dev/zero or as a FIFO (and
// the user's own config file may be one too). initialize still answers,
// the server reports what it skipped, and an architect pass still works.
// Before the limits of contract §8, /dev/zero grew memory without bound and a FIFO made
// initialize never answer.
func TestHostileFilesUnderAide(t *testing.T) {
	devZero := func(p string) error { return os.Symlink("/dev/zero", p) }
	fifo := func(p string) error { return syscall.Mkfifo(p, 0o644) }
	cases := []struct {
		name string
		rel  string // under the workspace, or "user:" for the user's config
		make func(string) error
		// shown is what a message to the user says; "" when the file is
		// skipped silently (a cache is only a cache).
		shown string
	}{
		{"config-dev-zero", ".aide/config.json", devZero, "symbolic link"},
		{"config-fifo", ".aide/config.json", fifo, "FIFO"},
		{"user-config-fifo", "user:", fifo, "FIFO"},
		{"tag-cache-dev-zero", ".aide/cache/tags-v3.bin", devZero, ""},
		{"tag-cache-fifo", ".aide/cache/tags-v3.bin", fifo, ""},
		{"session-fifo", ".aide/sessions/s-fifo.json", fifo, ""},
		{"session-dev-zero", ".aide/sessions/s-zero.json", devZero, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, xdg := t.TempDir(), t.TempDir()
			writeFile(t, root, "m.go", mGo)
			fake := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n1. In m.go, make A return 10.\n## End Plan\n"})
			user := filepath.Join(xdg, "config", "aide-lsp", "config.json")
			writeFile(t, filepath.Dir(user), "config.json", `{"providers":{"fake":{"kind":"openai","baseURL":"`+fake.BaseURL()+`"}},"architectModel":"fake/m"}`)
			p := filepath.Join(root, filepath.FromSlash(c.rel))
			if c.rel == "user:" {
				p = user
				os.Remove(p)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.make(p); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(xdg, "config"), "XDG_STATE_HOME": filepath.Join(xdg, "state")}
			// Start runs initialize/initialized under the hang guard: a
			// blocked initialize fails the test there.
			ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "helix-25.1", Roots: []string{root},
				Server: lsp.Options{Version: "abuse", Setup: lsp.NewSetup(lsp.SetupOptions{
					Env: func(k string) string { return env[k] }, RetryBaseDelay: time.Millisecond})},
				Timeout: hangGuard})
			if c.shown != "" {
				ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
					return strings.Contains(string(m.Params), c.shown) && strings.Contains(string(m.Params), "skipped")
				})
			}
			if c.rel == "user:" {
				return // no provider: nothing more to run
			}
			ed.Open("m.go", mGo)
			if _, _, err := ed.ExecuteCommand("aide.architect", map[string]any{"uri": ed.URI("m.go"), "task": "make A return 10"}); err != nil {
				t.Fatal(err)
			}
			ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))
			if n := len(fake.Requests()); n != 1 {
				t.Fatalf("the architect pass made %d model calls, want 1", n)
			}
		})
	}
}
