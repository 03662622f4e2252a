package commands_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// ApplyHunks writes edits, a rename (keeping the file's mode) and a
// delete at once, and two spellings of one path are one file: both of
// its hunks land, neither write clobbers the other.
func TestApplyHunksWritesEveryKindOnce(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("one\ntwo\n"), 0o644)
	os.WriteFile(filepath.Join(root, "run.sh"), []byte("echo hi\n"), 0o755)
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("x\n"), 0o644)
	ws, err := workspace.Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hunks := []editapply.Hunk{
		{ID: "h1", Path: "a.go", Kind: editapply.KindEdit, Start: 0, End: 4, OldText: "one\n", NewText: "ONE\n"},
		{ID: "h2", Path: "./a.go", Kind: editapply.KindEdit, Start: 4, End: 8, OldText: "two\n", NewText: "TWO\n"},
		{ID: "h3", Path: "run.sh", Kind: editapply.KindRename, NewPath: "bin/run.sh"},
		{ID: "h4", Path: "old.txt", Kind: editapply.KindDelete},
	}
	written, err := commands.ApplyHunks(ws, hunks)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != "ONE\nTWO\n" {
		t.Errorf("a.go = %q, want both hunks applied", b)
	}
	if st, err := os.Stat(filepath.Join(root, "bin", "run.sh")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("renamed run.sh: %v %v, want mode 0755", st, err)
	}
	for _, gone := range []string{"run.sh", "old.txt"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); err == nil {
			t.Errorf("%s still exists", gone)
		}
	}
	if len(written) != 4 {
		t.Errorf("written %v, want a.go, bin/run.sh, run.sh and old.txt", written)
	}
}

// A hunk that no longer applies stops the whole apply before any write.
func TestApplyHunksWritesNothingWhenOneFails(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("one\n"), 0o644)
	ws, _ := workspace.Open([]string{root}, nil)
	_, err := commands.ApplyHunks(ws, []editapply.Hunk{
		{ID: "h1", Path: "new.go", Kind: editapply.KindWrite, NewText: "package x\n", Created: true},
		{ID: "h2", Path: "gone.go", Kind: editapply.KindEdit, OldText: "x\n", NewText: "y\n"},
	})
	if err == nil {
		t.Fatal("an edit of a missing file was applied")
	}
	if _, err := os.Lstat(filepath.Join(root, "new.go")); err == nil {
		t.Error("new.go was written although the apply failed")
	}
}
