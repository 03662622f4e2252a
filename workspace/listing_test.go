package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// The walk's fast paths (ignore rules found by name or suffix, deny globs
// skipped when a literal part is missing, one .gitignore read per folder)
// are checked against the plain matchers they stand for: every rule tried
// in turn, every glob matched, every entry decided from the root down.

// decideReference is the plain ignoreFile.decide: the rules from the last,
// each matched by dynamic programming.
func decideReference(rules []ignoreRule, parts []string, isDir bool) (ignored, matched bool) {
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if (!r.dirOnly || isDir) && matchSegmentsDP(r.segments, parts) {
			return !r.negate, true
		}
	}
	return false, false
}

func FuzzIgnoreFileDecide(f *testing.F) {
	for _, s := range [][2]string{
		{"*.o\n!keep.o\nbuild/\n/top\n.*\n!.gitignore\n*.tar.gz\n", "a/keep.o"},
		{"*.o\n!*.o\n", "x.o"}, {"name\n*.c\n!name\n", "d/name"}, {"a/**/b\n**/c\n*.x/\n", "a/q/b"},
		{"*.\n*..\n.\n*.a.b\n", "x.a.b"}, {"\\*.o\n*\\.o\n", "*.o"}, {"/a/b\nb\n!a/b\n", "a/b"},
		{"**\n!x\n", "x"}, {"*.o/\n", "d.o"}, {"x\n#y\n\n!\n/\n", "x"},
	} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, text, p string, isDir bool) {
		rules := parseIgnore(text)
		parts := strings.Split(p, "/")
		for _, r := range rules {
			if matchSegments(r.segments, parts) != matchSegmentsDP(r.segments, parts) {
				t.Fatalf("rule %q on %q: the segment matcher and the dynamic program disagree", r.segments, p)
			}
		}
		gotIg, gotOK := newIgnoreFile(rules).decide(parts, isDir)
		wantIg, wantOK := decideReference(rules, parts, isDir)
		if gotIg != wantIg || gotOK != wantOK {
			t.Fatalf("rules %q on %q (dir %v): decide says (%v, %v), every rule in turn (%v, %v)", text, p, isDir, gotIg, gotOK, wantIg, wantOK)
		}
	})
}

func FuzzDenyGlob(f *testing.F) {
	for _, g := range BuiltinDeny {
		f.Add(g, "a/b/"+strings.TrimPrefix(strings.ReplaceAll(g, "*", "x"), "x/"))
	}
	for _, s := range [][2]string{{"**/*.{pem,key}", "a/b.key"}, {"src/**/[ab].go", "src/x/a.go"}, {"**/x\\*y", "x*y"}, {"?ecrets/**", "secrets/k"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, rel string) {
		if !ValidGlob(glob) || rel == "" {
			return
		}
		d := compileDeny(glob)
		base := path.Base(rel)
		var want bool
		if d.base != "" {
			want, _ = path.Match(d.base, base)
		} else {
			want, _ = doublestar.Match(d.glob, rel)
		}
		if got := d.match(rel, base); got != want {
			t.Fatalf("deny glob %q on %q: %v, the plain matcher %v", glob, rel, got, want)
		}
	})
}

// filesReference lists a workspace's files the plain way: every entry of
// the tree decided on its own, its parents' .gitignore rules and deny
// globs included.
func filesReference(t *testing.T, w *Workspace) []string {
	var out []string
	root := w.roots[0]
	err := filepath.WalkDir(w.real[0], func(abs string, d fs.DirEntry, err error) error {
		abs = filepath.Join(root, strings.TrimPrefix(abs, w.real[0]))
		if err != nil {
			if d != nil && d.IsDir() && abs != root {
				return fs.SkipDir
			}
			return nil
		}
		if abs == root {
			return nil
		}
		if w.deniedIn(0, abs) || w.ignored(abs, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if _, _, err := w.Resolve(abs); err != nil {
				return nil
			}
		}
		out = append(out, w.relName(abs))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// FuzzFilesWalk builds a small tree from the input (lines: a path, or
// "path.gitignore: rules" for a .gitignore, "deny: glob" for a deny glob)
// and checks that Files lists what deciding every entry on its own lists.
func FuzzFilesWalk(f *testing.F) {
	f.Add("a/b.c\na/.gitignore: *.o|!keep.o|sub/\na/keep.o\na/x.o\na/sub/y.c\nb/sub/z.c\n.gitignore: /b/*|!/b/sub\n")
	f.Add("src/x.go\nsrc/secrets/k.go\nsrc/.env\nnode/.gitignore: *\nnode/m.js\ndeny: **/*.go\nREADME\n")
	f.Add(".gitignore: .*|!.gitignore|*.tar.gz\n.config\nd/.hidden/a.c\nx.tar.gz\nx.gz\nd/.gitignore: !.hidden\n")
	f.Add("k/Makefile\nk/.gitignore: /Makefile|*.[oa]|build*/\nk/build1/a\nk/x.a\nk/y/Makefile\n.git/info/exclude: y\n")
	f.Fuzz(func(t *testing.T, spec string) {
		root := t.TempDir()
		var deny []string
		n := 0
		for _, line := range strings.Split(spec, "\n") {
			if n++; n > 40 {
				break
			}
			name, rules, isRules := strings.Cut(line, ": ")
			if name == "deny" && isRules {
				if ValidGlob(rules) {
					deny = append(deny, rules)
				}
				continue
			}
			name = path.Clean("/" + name)[1:]
			if name == "" || strings.ContainsAny(name, "\x00\\") || len(name) > 100 {
				continue
			}
			content := ""
			if isRules {
				content = strings.ReplaceAll(rules, "|", "\n")
			}
			abs := filepath.Join(root, filepath.FromSlash(name))
			if os.MkdirAll(filepath.Dir(abs), 0o755) != nil {
				continue
			}
			_ = os.WriteFile(abs, []byte(content), 0o644)
		}
		w, err := Open([]string{root}, deny)
		if err != nil {
			return
		}
		got, err := w.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := filesReference(t, w)
		if !slices.Equal(got, want) {
			t.Fatalf("Files lists %q; deciding every entry on its own lists %q", got, want)
		}
		// A walk that starts below the root (the watcher's, for a folder
		// created meanwhile) keeps the rules of the folders above it.
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			var below, under []string
			err := w.walk(context.Background(), 0, filepath.Join(root, e.Name()), func(abs string, d fs.DirEntry) error {
				if !d.IsDir() {
					below = append(below, w.relName(abs))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range want {
				if strings.HasPrefix(f, e.Name()+"/") {
					under = append(under, f)
				}
			}
			slices.Sort(below)
			if !slices.Equal(below, under) {
				t.Fatalf("a walk of %s lists %q; Files lists %q under it", e.Name(), below, under)
			}
		}
	})
}
