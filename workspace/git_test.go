package workspace

import (
	"context"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestFilesAgreesWithGit compares Files with git's own view of the same
// tree (untracked, not ignored files), when git is installed.
func TestFilesAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	tree(t, root, map[string]string{
		".gitignore": strings.Join([]string{
			"# comment", "*.o", "!keep.o", "/top-only.txt", "docs/**/*.tmp", "cache/", "a/**/z",
			"[Bb]uild*/", "*~", "\\#hash", "name\\ ", "ab?d.txt", "logs/**", "!logs/important/", "!logs/important/**",
			"deep/*/x.txt", "**/gen/**", "!**/gen/keep.go",
		}, "\n") + "\n",
		"x.o": "", "keep.o": "", "sub/y.o": "", "sub/keep.o": "",
		"top-only.txt": "", "sub/top-only.txt": "",
		"docs/a.tmp": "", "docs/b/c.tmp": "", "docs/b/c.md": "",
		"cache/f": "", "sub/cache/f": "", "cachefile": "",
		"a/z": "", "a/b/c/z": "", "a/b/c/zz": "",
		"build/out": "", "Build2/out": "", "buildfile": "",
		"notes~": "", "#hash": "", "name ": "", "abcd.txt": "", "abccd.txt": "",
		"logs/a.log": "", "logs/important/b.log": "",
		"deep/one/x.txt": "", "deep/one/two/x.txt": "",
		"p/gen/a.go": "", "p/gen/keep.go": "",
		"n/.gitignore": "!*.o\n/local\n", "n/z.o": "", "n/local": "", "n/m/local": "",
		"plain.go": "",
	})
	git := exec.Command("git", "init", "-q", root)
	if out, err := git.CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	cmd := exec.Command("git", "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p != "" {
			want = append(want, p)
		}
	}
	sort.Strings(want)
	if len(want) < 10 {
		t.Fatalf("git lists only %q: the tree was not set up", want)
	}
	got, err := open(t, root).Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Files disagrees with git\n got %q\nwant %q", got, want)
	}
}
