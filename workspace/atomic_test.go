package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApplyAllIsAllOrNothing(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("old a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "blocker"), []byte("a file where a folder is needed\n"), 0o644)
	w, err := Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	if err := w.SetStateDir(state); err != nil {
		t.Fatal(err)
	}
	written, err := w.ApplyAll([]FileWrite{{Rel: "a.go", Content: []byte("new a\n")}, {Rel: "blocker/b.go", Content: []byte("b\n")}})
	var ae *ApplyError
	if !errors.As(err, &ae) || len(written) != 0 || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("want a failure before any rename: %v %v", written, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != "old a\n" {
		t.Fatal("a.go changed although the apply failed")
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".aide-apply-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if _, err := os.Stat(JournalPath(state, root)); err == nil {
		t.Error("journal left after a failed apply")
	}
}

// A symbolic link inside the workspace is written through to its target;
// the link stays a link.
func TestApplyAllWritesThroughAnInsideLink(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "real.go"), []byte("old\n"), 0o600)
	if err := os.Symlink("real.go", filepath.Join(root, "link.go")); err != nil {
		t.Skip("no symlinks here")
	}
	w, _ := Open([]string{root}, nil)
	if _, err := w.ApplyAll([]FileWrite{{Rel: "link.go", Content: []byte("new\n")}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "real.go")); string(b) != "new\n" {
		t.Fatalf("target: %q", b)
	}
	if st, _ := os.Lstat(filepath.Join(root, "link.go")); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if st, _ := os.Stat(filepath.Join(root, "real.go")); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v", st.Mode())
	}
	// A link that leads outside is refused, nothing written there.
	out := t.TempDir()
	os.Symlink(out, filepath.Join(root, "escape"))
	if _, err := w.ApplyAll([]FileWrite{{Rel: "escape/x.go", Content: []byte("x")}}); err == nil {
		t.Fatal("a write through a link to outside was allowed")
	}
	if _, err := os.Stat(filepath.Join(out, "x.go")); err == nil {
		t.Fatal("written outside the workspace")
	}
}

// A workspace of two folders: one apply writes in both, each through its
// own root; a second root's file is named by its absolute path (relName).
func TestApplyAllWritesInEveryRoot(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(one, "a.go"), []byte("old a\n"), 0o644)
	os.WriteFile(filepath.Join(two, "b.go"), []byte("old b\n"), 0o644)
	w, err := Open([]string{one, two}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, bRel, err := w.Resolve(filepath.Join(two, "b.go"))
	if err != nil {
		t.Fatal(err)
	}
	written, err := w.ApplyAll([]FileWrite{{Rel: "a.go", Content: []byte("new a\n")}, {Rel: bRel, Content: []byte("new b\n")},
		{Rel: filepath.ToSlash(filepath.Join(two, "sub", "c.go")), Content: []byte("c\n")}})
	if err != nil || len(written) != 3 {
		t.Fatalf("written %v, %v", written, err)
	}
	for path, want := range map[string]string{filepath.Join(one, "a.go"): "new a\n", filepath.Join(two, "b.go"): "new b\n", filepath.Join(two, "sub", "c.go"): "c\n"} {
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s holds %q, want %q", path, b, want)
		}
	}
	for _, dir := range []string{one, two, filepath.Join(two, "sub")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".aide-apply-") {
				t.Errorf("temporary file left in %s: %s", dir, e.Name())
			}
		}
	}
}

// TestKilledApplyLeavesNothing: an apply stopped as a kill would, after
// its first temporary file was written, leaves a journal in the user's
// state folder that names it; the next start removes it, and says that
// nothing was changed. A journal a repository ships under .aide is not
// read, and its .aide-apply-* files are not touched.
func TestKilledApplyLeavesNothing(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("old a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.go"), []byte("old b\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".aide"), 0o755)
	os.WriteFile(filepath.Join(root, ".aide", "apply-journal.json"), []byte(`{"files":[{"path":"rm -rf ~ to fix","temp":".aide-apply-1-x"}]}`), 0o644)
	os.WriteFile(filepath.Join(root, ".aide-apply-1-x"), []byte("the repository's\n"), 0o644)
	w, _ := Open([]string{root}, nil)
	if err := w.SetStateDir(state); err != nil {
		t.Fatal(err)
	}
	if msg := w.Interrupted(); msg != "" {
		t.Fatalf("the repository's journal was reported: %s", msg)
	}
	func() {
		applyHook = func(stage string, _ int) {
			if stage == "temp" {
				panic("killed")
			}
		}
		defer func() { applyHook = nil; _ = recover() }()
		w.ApplyAll([]FileWrite{{Rel: "a.go", Content: []byte("new a\n")}, {Rel: "b.go", Content: []byte("new b\n")}})
	}()
	if temps := aideTemps(root); len(temps) != 2 {
		t.Fatalf("the kill should have left one temporary file: %v", temps)
	}
	w2, _ := Open([]string{root}, nil)
	if err := w2.SetStateDir(state); err != nil {
		t.Fatal(err)
	}
	msg := w2.Interrupted()
	if !strings.Contains(msg, "before it changed any file") {
		t.Fatalf("interrupted: %q", msg)
	}
	if temps := aideTemps(root); len(temps) != 1 || temps[0] != ".aide-apply-1-x" {
		t.Fatalf("after the next start: %v", temps)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != "old a\n" {
		t.Fatal("a.go changed")
	}
	if w2.Interrupted() != "" {
		t.Fatal("reported twice")
	}
	// A state folder inside the workspace is refused.
	if err := w2.SetStateDir(filepath.Join(root, "state")); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Fatalf("a state folder inside the workspace: %v", err)
	}
}

func aideTemps(root string) []string {
	var out []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".aide-apply-") {
			out = append(out, e.Name())
		}
	}
	return out
}
