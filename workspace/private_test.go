package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateFilesRefuseLinks: aide-lsp's own folders and files are never
// written through a symbolic link out of the workspace (a cloned
// repository can carry them), and the refusal says what to do.
func TestPrivateFilesRefuseLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A real .aide/sessions, missing folders, and a regular file: fine.
	if err := CheckPrivateDir(root, filepath.Join(root, ".aide", "sessions")); err != nil {
		t.Fatalf("missing folders refused: %v", err)
	}
	sessions := filepath.Join(root, ".aide", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}

	// A file that is a link out.
	link := filepath.Join(sessions, "s1.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenPrivate(link, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		f.Close()
		t.Fatal("opened a symbolic link for writing")
	} else if !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("refusal does not say why: %v", err)
	}

	// A folder that is a link out.
	plans := filepath.Join(root, ".aide", "plans")
	if err := os.Symlink(outside, plans); err != nil {
		t.Fatal(err)
	}
	err := CheckPrivateDir(root, plans)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "remove the link") {
		t.Fatalf("a linked folder: %v", err)
	}
	if err := CheckPrivateDir(root, filepath.Join(outside, "x")); err == nil {
		t.Fatal("a folder outside the workspace passed")
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
		t.Fatalf("the file outside the workspace changed: %q", data)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("something was written outside the workspace: %v", entries)
	}
}

// TestOpenLogRefusesLinksAndSpecialFiles: --log follows no symbolic link
// (another local user could point one at ~/.bashrc) and opens regular
// files only; a regular file is appended to.
func TestOpenLogRefusesLinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(victim, []byte("safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "aide.log")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenLog(link); err == nil {
		f.Close()
		t.Fatal("the log was opened through a symbolic link")
	}
	if f, err := OpenLog(dir); err == nil {
		f.Close()
		t.Fatal("a folder was opened as the log")
	}
	logPath := filepath.Join(dir, "real.log")
	for i := 0; i < 2; i++ {
		f, err := OpenLog(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("line\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if b, _ := os.ReadFile(logPath); string(b) != "line\nline\n" {
		t.Fatalf("log: %q", b)
	}
	if b, _ := os.ReadFile(victim); string(b) != "safe\n" {
		t.Fatal("the link's target was written")
	}
}
