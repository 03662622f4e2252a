package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFollowsNoLink: every subcommand with --log opens it the one way
// (workspace.OpenLog): a symbolic link planted at the log's path (to the
// user's ~/.bashrc, say) is refused, and its target is not written.
func TestLogFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "aide.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"serve", "acp"} {
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{cmd, "--log", link}, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "log") {
			t.Errorf("%s --log <link>: exit %d, stderr %q; want a refusal", cmd, code, stderr.String())
		}
		if data, _ := os.ReadFile(target); len(data) > 0 {
			t.Errorf("%s --log wrote through the link: %q", cmd, data)
		}
	}
}
