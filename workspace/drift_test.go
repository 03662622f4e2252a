package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDriftKinds(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"modified.go":  "a\nb\nc\nd\n",
		"deleted.go":   "bye\n",
		"renamed.go":   "unique content that moves\n",
		"untouched.go": "same\n",
		"buffered.go":  "disk\n",
	})
	w := open(t, root)
	bufs := buffers{}
	w.SetBuffers(bufs)
	_, c := startWatch(t, w, WatchOptions{})

	s := w.Snapshot([]string{"modified.go", "deleted.go", "renamed.go", "untouched.go", "created.go", "buffered.go", ".env", "../outside"})
	if _, ok := s.Files[".env"]; ok {
		t.Error("a denied path went into the snapshot")
	}
	if st := s.Files["created.go"]; st.Exists {
		t.Error("created.go exists in the snapshot")
	}
	if st := s.Files["untouched.go"]; !st.Exists || st.Hash == "" || st.Version != nil {
		t.Errorf("untouched.go snapshot = %+v", st)
	}

	write(t, root, "modified.go", "a\nB\nc\nd\ne\nf\n") // one line replaced, two added
	if err := os.Remove(filepath.Join(root, "deleted.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "renamed.go"), filepath.Join(root, "sub-new.go")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "created.go", "new\nfile\n")
	bufs[filepath.Join(root, "buffered.go")] = "unsaved\nedit\n" // an open buffer wins over disk
	c.waitFor(t, "the rename seen by the watcher", has(disk("sub-new.go", "create")))

	got := w.Drift(s)
	want := []Change{
		{Path: "buffered.go", Kind: "modified", Summary: "+2 -1 lines"},
		{Path: "created.go", Kind: "created", Summary: "created (2 lines)"},
		{Path: "deleted.go", Kind: "deleted", Summary: "deleted"},
		{Path: "modified.go", Kind: "modified", Summary: "+3 -1 lines"},
		{Path: "renamed.go", Kind: "renamed", NewPath: "sub-new.go", Summary: "renamed to sub-new.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Drift =\n%+v\nwant\n%+v", got, want)
	}

	// A snapshot of the current state has no drift.
	if d := w.Drift(w.Snapshot([]string{"modified.go", "deleted.go", "buffered.go"})); len(d) != 0 {
		t.Errorf("fresh snapshot drifted: %+v", d)
	}
}

func TestDriftWithoutWatcherAndUnreadable(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	tree(t, root, map[string]string{"a.go": "x\n", "dir/b.go": "y\n"})
	w := open(t, root)
	s := w.Snapshot([]string{"a.go", "dir/b.go"})
	// a.go renamed without a watcher: best effort says deleted. dir/ is
	// replaced by a symlink leading out: the file is no longer readable.
	if err := os.Rename(filepath.Join(root, "a.go"), filepath.Join(root, "c.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	tree(t, outside, map[string]string{"b.go": "y\n"})
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	got := w.Drift(s)
	if len(got) != 2 || got[0].Kind != "deleted" || got[1].Path != "dir/b.go" || got[1].Kind != "deleted" || !strings.Contains(got[1].Summary, "outside") {
		t.Errorf("Drift = %+v", got)
	}
}

func TestLineDiff(t *testing.T) {
	cases := []struct {
		a, b     string
		add, del int
	}{
		{"", "", 0, 0},
		{"a\n", "a\n", 0, 0},
		{"", "a\nb\n", 2, 0},
		{"a\nb\n", "", 0, 2},
		{"a\nb\nc\n", "a\nc\n", 0, 1},
		{"a\nb\nc\n", "c\nb\na\n", 2, 2},
		{"a", "a\n", 1, 1}, // a final newline added changes the last line
	}
	for _, c := range cases {
		add, del := lineDiff(c.a, c.b)
		if add != c.add || del != c.del {
			t.Errorf("lineDiff(%q, %q) = +%d -%d, want +%d -%d", c.a, c.b, add, del, c.add, c.del)
		}
	}
}
