package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cloned repository can carry .aide with symbolic links out of the
// workspace. The engine must not write through them.

// TestSessionFileLinkedOutIsNotWritten: a session state file beside an
// event file that links to a file outside; cancelling the session (which
// appends an event) leaves that file alone and says why.
func TestSessionFileLinkedOutIsNotWritten(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	dir := filepath.Join(root, ".aide", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(parent, "bashrc")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fuzzSiblingID+".json"), []byte(fuzzSiblingState), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, fuzzSiblingID+".jsonl")); err != nil {
		t.Fatal(err)
	}
	// A state file that is itself a link is not loaded.
	if err := os.Symlink(victim, filepath.Join(dir, "20260101-000000-000000.json")); err != nil {
		t.Fatal(err)
	}
	e := fuzzEngine(t, root)
	if !strings.Contains(strings.Join(e.LoadProblems, "\n"), "a symbolic link") {
		t.Errorf("the linked state file is not reported: %q", e.LoadProblems)
	}
	arg, _ := json.Marshal(ReplanArgs{Session: fuzzSiblingID})
	_, _, _ = e.Execute(context.Background(), CmdCancel, arg)
	if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
		t.Fatalf("a file outside the workspace was written through a link: %q", data)
	}
}

// TestLinkedSessionsFolderRefusesNewSessions: with .aide/sessions linking
// out, a new session is refused with a message that says what to do, and
// nothing is written where the link points.
func TestLinkedSessionsFolderRefusesNewSessions(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	elsewhere := filepath.Join(parent, "elsewhere")
	for _, d := range []string{filepath.Join(root, ".aide"), elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, ".aide", "sessions")); err != nil {
		t.Fatal(err)
	}
	e := fuzzEngine(t, root)
	arg, _ := json.Marshal(map[string]any{"uri": "file://" + filepath.ToSlash(filepath.Join(root, "main.go")), "task": "add a flag"})
	_, _, err := e.Execute(context.Background(), CmdArchitect, arg)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "remove the link") {
		t.Fatalf("aide.architect with a linked .aide/sessions: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
}
