package workspace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// WriteFileAtomic makes the folder, gives the file its mode, replaces a
// link at the path instead of writing through it, and leaves nothing
// behind when the content cannot be written.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "s.json")
	if err := WriteFileAtomic(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("content %q, want two", b)
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, want 0600", st.Mode().Perm())
		}
		if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
			t.Fatalf("made folder mode %v, want 0700 for a private file", st.Mode().Perm())
		}
		outside := filepath.Join(dir, "outside")
		os.WriteFile(outside, []byte("keep"), 0o644)
		link := filepath.Join(dir, "state", "link.json")
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(link, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "keep" {
			t.Fatalf("wrote through a link: the target holds %q", b)
		}
	}
	boom := errors.New("boom")
	if err := WriteAtomic(path, 0o600, func(w io.Writer) error { w.Write([]byte("half")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != "s.json" && e.Name() != "link.json" {
			t.Fatalf("left behind %s", e.Name())
		}
	}
}
