package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// suiteDir is the repository's suite, from this package's folder.
const suiteDir = "../tests/bench/tasks"

func loadRepoSuite(t *testing.T) *Suite {
	t.Helper()
	s, err := LoadSuite(suiteDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The suite is what docs/bench.md describes: at least 20 tasks in Go, Python and
// TypeScript, of every kind.
func TestSuiteShape(t *testing.T) {
	s := loadRepoSuite(t)
	if len(s.Tasks) < 20 {
		t.Fatalf("%d tasks, want at least 20", len(s.Tasks))
	}
	langs, kinds := map[string]int{}, map[string]int{}
	for _, task := range s.Tasks {
		langs[task.Language]++
		kinds[task.Kind]++
		if _, err := task.Solution(); err != nil {
			t.Errorf("%s: %v", task.Name, err)
		}
		for _, f := range append(append([]string{}, task.Files...), task.Tests...) {
			if _, err := os.Stat(filepath.Join(task.Dir, "start", f)); err != nil {
				t.Errorf("%s: listed file %s is not in start/", task.Name, f)
			}
		}
	}
	for _, l := range []string{"go", "python", "typescript"} {
		if langs[l] < 5 {
			t.Errorf("%d %s tasks, want at least 5", langs[l], l)
		}
	}
	for k := range kinds {
		delete(kinds, k)
	}
	for _, task := range s.Tasks {
		kinds[task.Kind]++
	}
	for _, k := range []string{"fix", "rename", "extract", "add-param", "new-file"} {
		if kinds[k] == 0 {
			t.Errorf("no %s task", k)
		}
	}
	if len(s.Version) != 12 {
		t.Errorf("suite version %q", s.Version)
	}
}

// Every task's check fails on the starting files and passes on the
// reference solution: a task that passes before any edit measures nothing,
// and one whose solution fails measures a broken task.
func TestSuiteChecksFailBeforePassAfter(t *testing.T) {
	s := loadRepoSuite(t)
	env := toolEnv(s.Dir, nil)
	for _, task := range s.Tasks {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel()
			for _, tool := range append([]string{task.Check[0]}, task.Requires...) {
				if !lookTool(tool, env) {
					if os.Getenv("CI") != "" {
						t.Fatalf("%s is not installed; CI must run: npm ci --prefix tests/bench/tasks", tool)
					}
					t.Skipf("%s is not installed (npm ci --prefix tests/bench/tasks installs tsc)", tool)
				}
			}
			// Generous: only a hang guard; a slow machine passes.
			timeout := time.Duration(task.Timeout) * time.Second
			before := filepath.Join(t.TempDir(), "before")
			if err := task.CopyStart(before); err != nil {
				t.Fatal(err)
			}
			res := RunCheck(context.Background(), before, task.Check, timeout, env)
			if res.Passed || res.TimedOut || res.Err != "" {
				t.Errorf("on the starting files the check should fail by itself: passed=%v timedOut=%v err=%q\n%s", res.Passed, res.TimedOut, res.Err, res.Output)
			}
			after := filepath.Join(t.TempDir(), "after")
			if err := task.CopyStart(after); err != nil {
				t.Fatal(err)
			}
			if err := task.ApplySolution(after); err != nil {
				t.Fatal(err)
			}
			res = RunCheck(context.Background(), after, task.Check, timeout, env)
			if !res.Passed {
				t.Errorf("on the reference solution the check should pass: exit %d %s\n%s", res.ExitCode, res.Err, res.Output)
			}
			// The solution must not touch the check's own tests.
			sol, _ := task.Solution()
			for _, f := range task.Tests {
				if _, ok := sol[f]; ok {
					t.Errorf("the reference solution edits the test file %s", f)
				}
			}
			if strings.TrimSpace(task.Instruction) == "" {
				t.Error("no instruction")
			}
		})
	}
}
