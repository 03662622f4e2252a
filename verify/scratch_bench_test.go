package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// The scratch copy's cost against a `git worktree` (docs/performance.md
// "Verification"), on two trees: Go's own source ($(go env GOROOT)/src, as
// a git repository: about 11,500 files, 150 MB) and this project. Each
// iteration is what one verification pays before its commands run and
// after they end: for the copy, listing the workspace's files (the
// .gitignore walk) and copying them, then removing the copy; for the
// worktree, `git worktree add --detach`, copying over the files that
// differ from HEAD (the user's uncommitted changes, which a worktree
// lacks), then `git worktree remove`.
//
//	go test ./verify -run '^$' -bench Scratch -benchtime 5x
//
// AIDE_BENCH_GOSRC names a git repository of Go's source prepared earlier
// (otherwise one is made in a temporary folder, once per run).

var (
	gosrcOnce sync.Once
	gosrcDir  string
	gosrcErr  error
)

func goSourceRepo(b *testing.B) string {
	if d := os.Getenv("AIDE_BENCH_GOSRC"); d != "" {
		return d
	}
	gosrcOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aide-bench-gosrc-")
		if err != nil {
			gosrcErr = err
			return
		}
		gosrcDir = filepath.Join(dir, "src")
		steps := [][]string{
			{"cp", "-r", filepath.Join(runtime.GOROOT(), "src"), gosrcDir},
			{"git", "-C", gosrcDir, "init", "-q"},
			{"git", "-C", gosrcDir, "add", "-A"},
			{"git", "-C", gosrcDir, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "src"},
			{"git", "-C", gosrcDir, "gc", "-q"},
		}
		for _, s := range steps {
			if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
				gosrcErr = err
				b.Logf("%v: %s", s, out)
				return
			}
		}
	})
	if gosrcErr != nil {
		b.Skip("cannot prepare Go's source as a repository:", gosrcErr)
	}
	return gosrcDir
}

func projectRoot(b *testing.B) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skip("not in a git checkout")
	}
	return strings.TrimSpace(string(out))
}

func benchTrees(b *testing.B, run func(b *testing.B, root string)) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not on PATH")
	}
	b.Run("goroot", func(b *testing.B) { run(b, goSourceRepo(b)) })
	b.Run("project", func(b *testing.B) { run(b, projectRoot(b)) })
}

func BenchmarkScratchCopy(b *testing.B) {
	benchTrees(b, func(b *testing.B, root string) {
		ws, err := workspace.Open([]string{root}, nil)
		if err != nil {
			b.Fatal(err)
		}
		var st CopyStats
		for b.Loop() {
			files, err := ws.Files(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			s, err := NewScratch(context.Background(), root, files)
			if err != nil {
				b.Fatal(err)
			}
			st = s.Stats
			if err := s.Remove(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.Files), "files")
		b.ReportMetric(float64(st.Bytes)/(1<<20), "MB")
	})
}

func BenchmarkScratchWorktree(b *testing.B) {
	benchTrees(b, func(b *testing.B, root string) {
		git := func(args ...string) string {
			out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
			if err != nil {
				b.Fatalf("git %v: %v", args, err)
			}
			return string(out)
		}
		for b.Loop() {
			base, err := os.MkdirTemp("", scratchPrefix+"wt-")
			if err != nil {
				b.Fatal(err)
			}
			dir := filepath.Join(base, "w")
			git("worktree", "add", "-q", "--detach", dir, "HEAD")
			// The user's uncommitted work: what a worktree lacks.
			for _, rec := range strings.Split(git("status", "--porcelain", "-z", "--untracked-files=all"), "\x00") {
				if len(rec) < 4 {
					continue
				}
				rel := rec[3:]
				data, err := os.ReadFile(filepath.Join(root, rel))
				if err != nil {
					continue
				}
				_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o700)
				_ = os.WriteFile(filepath.Join(dir, rel), data, 0o600)
			}
			git("worktree", "remove", "--force", dir)
			os.RemoveAll(base)
		}
	})
}
