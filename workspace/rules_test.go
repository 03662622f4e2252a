package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tree writes files (path → content) under dir; a path ending in "/" is a folder.
func tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func open(t testing.TB, roots ...string) *Workspace {
	t.Helper()
	w, err := Open(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestGitignorePatterns(t *testing.T) {
	cases := []struct {
		pattern string
		path    string
		isDir   bool
		want    bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/er/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"/build", "build", true, true},
		{"/build", "sub/build", true, false},
		{"build/", "sub/build", true, true},
		{"build/", "build", false, false}, // dir-only pattern, a file
		{"doc/*.txt", "doc/a.txt", false, true},
		{"doc/*.txt", "doc/x/a.txt", false, false},
		{"doc/*.txt", "x/doc/a.txt", false, false}, // middle slash anchors
		{"**/foo", "foo", false, true},
		{"**/foo", "a/b/foo", false, true},
		{"**/foo/bar", "x/foo/bar", false, true},
		{"abc/**", "abc/x", false, true},
		{"abc/**", "abc/x/y", false, true},
		{"abc/**", "abc", true, false}, // "abc/**" is everything inside, not abc
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "a/x/y/c", false, false},
		{"fo?", "foo", false, true},
		{"fo?", "fooo", false, false},
		{"[abc].go", "b.go", false, true},
		{"[!abc].go", "b.go", false, false},
		{"[^abc].go", "d.go", false, true},
		{"[a-c]x", "bx", false, true},
		{"[[:digit:]]x", "7x", false, true},
		{"\\#file", "#file", false, true},
		{"\\!bang", "!bang", false, true},
		{"trail\\ ", "trail ", false, true},
		{"trail   ", "trail", false, true},
		{"[unterminated", "[unterminated", false, false},
		{"a**b", "aXYb", false, true}, // "**" inside a segment is "*"
	}
	for _, c := range cases {
		r, ok := parseIgnoreLine(c.pattern)
		got := ok && r.match(strings.Split(c.path, "/"), c.isDir)
		if got != c.want {
			t.Errorf("pattern %q on %q (dir %v): matched %v, want %v", c.pattern, c.path, c.isDir, got, c.want)
		}
	}
	for _, skip := range []string{"", "# comment", "   ", "/", "!"} {
		if _, ok := parseIgnoreLine(skip); ok {
			t.Errorf("line %q should not be a rule", skip)
		}
	}
}

func TestNestedGitignoreWithNegation(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".gitignore":            "*.log\nbuild/\n/vendor\nlogs/**\n!logs/keep.txt\n",
		"a.log":                 "",
		"important.log":         "",
		"main.go":               "",
		"build/out.bin":         "",
		"vendor/lib.go":         "",
		"src/vendor/lib.go":     "", // "/vendor" is anchored
		"logs/x.txt":            "",
		"logs/keep.txt":         "", // "logs/**" does not exclude logs/, so it can be re-included
		"sub/.gitignore":        "!important.log\n!debug.log\ntmp/\n",
		"sub/debug.log":         "",
		"sub/other.log":         "",
		"sub/tmp/x.go":          "",
		"sub/tmp/.gitignore":    "!x.go\n", // its folder is excluded: cannot re-include
		"build/.gitignore":      "!out.bin\n",
		"sub/deeper/trace.log":  "",
		"sub/deeper/.gitignore": "!trace.log\n",
	})
	w := open(t, root)
	want := map[string]bool{
		"a.log": true, "important.log": true, "main.go": false,
		"build": true, "build/out.bin": true, // parent excluded wins over a deeper negation
		"vendor/lib.go": true, "src/vendor/lib.go": false,
		"logs/x.txt": true, "logs/keep.txt": false,
		"sub/debug.log": false, "sub/other.log": true,
		"sub/tmp/x.go": true, "sub/deeper/trace.log": false,
	}
	for p, ig := range want {
		if got := w.Ignored(p); got != ig {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, ig)
		}
	}
	files, err := w.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{".gitignore", "logs/keep.txt", "main.go", "src/vendor/lib.go",
		"sub/.gitignore", "sub/debug.log", "sub/deeper/.gitignore", "sub/deeper/trace.log"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("Files = %q\nwant    %q", files, wantFiles)
	}

	// Editing a .gitignore takes effect (no watcher involved).
	tree(t, root, map[string]string{".gitignore": "*.go\n"})
	if !w.Ignored("main.go") || w.Ignored("a.log") {
		t.Errorf("after editing .gitignore: main.go ignored %v (want true), a.log ignored %v (want false)", w.Ignored("main.go"), w.Ignored("a.log"))
	}
}

func TestDenyList(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".env": "SECRET=1", "config/.env.local": "x", "certs/server.pem": "x", "a.key": "x",
		".ssh/id_rsa": "x", "home/.netrc": "x", "credentials.json": "x", "app/secrets.yaml": "x",
		".aide/config.json": "{}", "lib/sub/.git/config": "x", "ok/main.go": "package ok",
		"custom/generated.pb.go": "x",
	})
	w, err := Open([]string{root}, []string{"**/*.pb.go"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".env", "config/.env.local", "certs/server.pem", "a.key", ".ssh/id_rsa",
		"home/.netrc", "credentials.json", "app/secrets.yaml", ".aide/config.json", ".git/HEAD",
		"lib/sub/.git/config", "custom/generated.pb.go", ".ssh"} {
		if !w.Denied(p) {
			t.Errorf("Denied(%q) = false", p)
		}
		if _, _, err := w.Read(p); err == nil || !strings.Contains(err.Error(), "deny list") {
			t.Errorf("Read(%q) error = %v, want a deny-list refusal", p, err)
		}
	}
	_, _, err = w.Resolve(".env")
	if want := "refused: .env is on the deny list (never read into a prompt nor edited)"; err == nil || err.Error() != want {
		t.Errorf("Resolve(.env) error = %v, want %q", err, want)
	}
	if w.Denied("ok/main.go") {
		t.Error("ok/main.go is denied")
	}
	files, _ := w.Files(context.Background())
	if !reflect.DeepEqual(files, []string{"ok/main.go"}) {
		t.Errorf("Files = %q, want only ok/main.go", files)
	}
	if _, err := Open([]string{root}, []string{"[bad"}); err == nil {
		t.Error("an invalid deny glob was accepted")
	}
}

func TestResolveRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	tree(t, outside, map[string]string{"secret.txt": "top secret"})
	root := t.TempDir()
	tree(t, root, map[string]string{"src/main.go": "package main", "docs/": ""})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(root, "escape")))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")))
	must(os.Symlink(filepath.Join(outside, "not-yet"), filepath.Join(root, "dangling")))
	must(os.Symlink("../src", filepath.Join(root, "docs", "src-link")))
	must(os.Symlink(".env", filepath.Join(root, "innocent.txt")))
	w := open(t, root)

	refused := map[string]string{
		"../../etc/passwd":          "refused: ../../etc/passwd is outside the workspace root",
		"/etc/passwd":               "outside the workspace root",
		"src/../../x":               "outside the workspace root",
		"escape/secret.txt":         "a symbolic link on the way leads out",
		"escape/new-file.txt":       "a symbolic link on the way leads out", // does not exist yet
		"escape":                    "a symbolic link on the way leads out",
		"link.txt":                  "a symbolic link on the way leads out",
		"dangling":                  "a symbolic link on the way leads out", // creating through it would escape
		"dangling/deeper/file":      "a symbolic link on the way leads out",
		"innocent.txt":              "deny list", // the resolved path is checked too
		"":                          "empty path",
		filepath.Join(outside, "x"): "outside the workspace root",
	}
	for p, want := range refused {
		_, _, err := w.Resolve(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) error = %v, want it to contain %q", p, err, want)
		}
		if _, _, err := w.Read(p); err == nil {
			t.Errorf("Read(%q) was not refused", p)
		}
	}
	accepted := map[string]string{
		"src/main.go":                         "src/main.go",
		"./src//main.go":                      "src/main.go",
		"src/../src/main.go":                  "src/main.go",
		"new/dir/file.go":                     "new/dir/file.go",
		"docs/src-link/main.go":               "docs/src-link/main.go",
		filepath.Join(root, "src", "main.go"): "src/main.go",
	}
	for p, wantRel := range accepted {
		abs, rel, err := w.Resolve(p)
		if err != nil {
			t.Errorf("Resolve(%q): %v", p, err)
			continue
		}
		if rel != wantRel || abs != filepath.Join(root, filepath.FromSlash(wantRel)) {
			t.Errorf("Resolve(%q) = %q, %q; want rel %q", p, abs, rel, wantRel)
		}
	}
}

type buffers map[string]string

func (b buffers) Buffer(abs string) (string, int32, bool) {
	t, ok := b[abs]
	return t, 7, ok
}

func TestReadBufferOverlayWins(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"a.go": "on disk", "b.go": "disk only"})
	w := open(t, root)
	w.SetBuffers(buffers{filepath.Join(root, "a.go"): "unsaved buffer", filepath.Join(root, "new.go"): "not on disk yet"})
	for p, want := range map[string]string{"a.go": "unsaved buffer", "b.go": "disk only", "new.go": "not on disk yet"} {
		got, exists, err := w.Read(p)
		if err != nil || !exists || got != want {
			t.Errorf("Read(%q) = %q, %v, %v; want %q", p, got, exists, err, want)
		}
	}
	got, exists, err := w.Read("missing.go")
	if err != nil || exists || got != "" {
		t.Errorf("Read(missing.go) = %q, %v, %v; want not existing, no error", got, exists, err)
	}
	if _, _, err := w.Read("."); err == nil {
		t.Error("reading a folder did not fail")
	}
}

func TestMultipleRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	tree(t, a, map[string]string{"a.go": "A"})
	tree(t, b, map[string]string{"b.go": "B", ".gitignore": "*.tmp\n", "x.tmp": ""})
	w := open(t, a, b)
	files, err := w.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bRel := filepath.ToSlash(filepath.Join(b, "b.go"))
	want := []string{filepath.ToSlash(filepath.Join(b, ".gitignore")), bRel, "a.go"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("Files = %q, want %q", files, want)
	}
	for _, f := range files {
		if _, _, err := w.Resolve(f); err != nil {
			t.Errorf("a listed path does not resolve back: %v", err)
		}
	}
	if got, _, _ := w.Read(bRel); got != "B" {
		t.Errorf("Read(%q) = %q", bRel, got)
	}
	if !w.Ignored(filepath.Join(b, "x.tmp")) {
		t.Error("the second root's .gitignore is not applied")
	}
	if _, _, err := w.Resolve("b.go"); err != nil {
		t.Errorf("relative paths are relative to the first root: %v", err)
	}
}

// Refusals go back to the model: they never name the workspace's absolute
// path (contract §8), nor a character that hides the name.
func TestRefusalsKeepTheRootPrivate(t *testing.T) {
	root := t.TempDir()
	w, err := Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x.go", "/etc/passwd", "a\u202Eb.go", "a\u200Bb.go", "a\nb.go", "a\x1b[2Jb.go"} {
		_, _, err := w.Resolve(p)
		if err == nil {
			t.Errorf("%q accepted", p)
			continue
		}
		if strings.Contains(err.Error(), root) {
			t.Errorf("the refusal of %q names the root: %v", p, err)
		}
	}
}
