package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A workspace opened through a symbolic link to its folder (macOS's /tmp
// and /var, a linked project folder) lists and watches the same files as
// the folder opened by its real path; links below the root are still not
// followed.
func TestRootThroughALink(t *testing.T) {
	real, outside := t.TempDir(), t.TempDir()
	tree(t, real, map[string]string{"a.go": "package a", "pkg/b.go": "package pkg",
		".gitignore": "build/\n", "build/out.go": "package build"})
	tree(t, outside, map[string]string{"secret.go": "package secret"})
	if err := os.Symlink(outside, filepath.Join(real, "elsewhere")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	want, err := open(t, real).Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := open(t, link).Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("Files through the link = %q; by the real path %q (want .gitignore, a.go, pkg/b.go)", got, want)
	}

	w := open(t, link)
	_, c := startWatch(t, w, WatchOptions{})
	write(t, link, "pkg/b.go", "package pkg // edited")
	c.waitFor(t, "write pkg/b.go through the linked root", has(disk("pkg/b.go", "write")))
}

// Rules that ignore the whole top level (Debian's kernel tarball ends its
// .gitignore with "/*") are said, not silently obeyed; ordinary rules are not.
func TestIgnoreWarning(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"Makefile": "all:", "kernel/sched.c": "int x;", "drivers/net/e1000.c": "int y;",
		"build/out.o": "", ".gitignore": "build/\n*.o\n"})
	if msg := open(t, root).IgnoreWarning(); msg != "" {
		t.Errorf("ordinary rules warned: %s", msg)
	}
	tree(t, root, map[string]string{".gitignore": "build/\n#\n# Debian packaging\n/*\n!/debian/\n"})
	w := open(t, root)
	msg := w.IgnoreWarning()
	if msg == "" || !strings.Contains(msg, ".gitignore") || !strings.Contains(msg, "/*") {
		t.Errorf("IgnoreWarning = %q, want a message naming .gitignore and the \"/*\" rule", msg)
	}
	if files, _ := w.Files(context.Background()); len(files) != 0 {
		t.Errorf("Files = %q under \"/*\"", files)
	}
}
