//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO or a link to /dev/zero as .aide/config.json is reported and
// skipped: the load neither blocks nor reads without end.
func TestHostileWorkspaceFileSkipped(t *testing.T) {
	for name, mk := range map[string]func(p string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"dev-zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"too-big":  func(p string) error { return os.WriteFile(p, make([]byte, 1<<20+1), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, "", "")
			p := filepath.Join(f.root, ".aide", "config.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := mk(p); err != nil {
				t.Fatal(err)
			}
			l := f.load()
			if l.Workspace.Err == nil || len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Msg, "skipped") {
				t.Fatalf("not reported: %+v %v", l.Workspace, l.Problems)
			}
		})
	}
}
