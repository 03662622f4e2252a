package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzGitignore(f *testing.F) {
	for _, s := range [][2]string{
		{"*.log", "a/b.log"}, {"/build/", "build"}, {"!keep.txt", "keep.txt"}, {"a/**/b", "a/x/y/b"},
		{"**/foo/**", "x/foo/y"}, {"[!a-z]?", "1x"}, {"[[:alpha:]]*", "Q"}, {"\\#x\\ ", "#x "},
		{"[", "["}, {"a[]b", "a]b"}, {"**/**/**/**/**/**/**/x", strings.Repeat("a/", 40) + "y"},
		{"*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 60)}, {"x\\", "x\\"}, {"[\\", "\\"},
	} {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		segs := strings.Split(path, "/")
		r, ok := parseIgnoreLine(pattern)
		if !ok {
			return
		}
		if len(r.segments) == 0 {
			t.Fatalf("rule with no segments from %q", pattern)
		}
		m := r.match(segs, isDir)
		// Negation never changes what a pattern matches, only the verdict.
		if !strings.HasPrefix(pattern, "!") {
			if n, ok := parseIgnoreLine("!" + pattern); ok && n.match(segs, isDir) != m {
				t.Fatalf("%q and its negation match %q differently", pattern, path)
			}
		}
		// A dir-only pattern never matches a file.
		if r.dirOnly && !isDir && m {
			t.Fatalf("dir-only %q matched the file %q", pattern, path)
		}
		_ = parseIgnore(pattern + "\n" + path)
	})
}

func FuzzResolve(f *testing.F) {
	outside := f.TempDir()
	root := f.TempDir()
	tree(f, outside, map[string]string{"secret": "s"})
	tree(f, root, map[string]string{"src/a.go": "a", "docs/": ""})
	for _, l := range [][2]string{
		{outside, "out"}, {filepath.Join(outside, "secret"), "secret-link"}, {"../src", "docs/up"},
		{filepath.Join(outside, "nope"), "dangling"}, {"loop2", "loop1"}, {"loop1", "loop2"}, {"/", "slash"},
	} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			f.Fatal(err)
		}
	}
	w, err := Open([]string{root}, nil)
	if err != nil {
		f.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, s := range []string{"src/a.go", "../x", "/etc/passwd", "out/secret", "out/../src", "dangling/x",
		"docs/up/a.go", "loop1", "slash/etc", "a/../../b", ".env", "src/.git/x", "./", "\x00", root + "/src"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, rel, err := w.Resolve(p)
		_, _, _ = w.Read(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "refused: ") {
				t.Fatalf("Resolve(%q) error without the refusal prefix: %v", p, err)
			}
			return
		}
		if !within(root, abs) {
			t.Fatalf("Resolve(%q) = %q, outside the root", p, abs)
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			t.Fatalf("Resolve(%q) rel = %q", p, rel)
		}
		if w.Denied(rel) {
			t.Fatalf("Resolve(%q) returned the denied %q", p, rel)
		}
		// Independently: the deepest existing part resolves inside the root.
		for probe := abs; ; probe = filepath.Dir(probe) {
			if real, err := filepath.EvalSymlinks(probe); err == nil {
				if !within(realRoot, real) {
					t.Fatalf("Resolve(%q) = %q, which leads to %q", p, abs, real)
				}
				break
			}
			if probe == root {
				break
			}
		}
	})
}
