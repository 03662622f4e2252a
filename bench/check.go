package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/proc"

	"github.com/aide-lsp/aide-lsp/verify"
)

// CheckResult is what a task's check command did.
type CheckResult struct {
	Passed   bool
	TimedOut bool
	ExitCode int // -1 when it did not exit on its own (killed, or could not start)
	Output   string
	Took     time.Duration
	Err      string // could not start, or killed: why
}

// checkOutputTail is how much of a check's output a result keeps: enough
// for the failing test's message, not a whole compiler log per run.
const checkOutputTail = 4 << 10

// checkWaitDelay is how long Wait waits for the output pipes to close after
// the process group is killed: a killed group closes them at once; this
// only guards against a descendant that escaped the group.
const checkWaitDelay = 5 * time.Second

// toolEnv is the environment of check commands: the caller's without its
// credentials (verify.CleanEnv: the providers' key variables, anything named
// or shaped like a secret — a check runs the model's code), with the
// suite's node_modules/.bin first on PATH and settings that keep checks
// offline and deterministic.
func toolEnv(suiteDir string, keyVars []string) []string {
	env := verify.CleanEnv(os.Environ(), keyVars)
	pathDirs := []string{}
	if suiteDir != "" {
		bin := filepath.Join(suiteDir, "node_modules", ".bin")
		if st, err := os.Stat(bin); err == nil && st.IsDir() {
			pathDirs = append(pathDirs, bin)
		}
	}
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			pathDirs = append(pathDirs, strings.TrimPrefix(kv, "PATH="))
		case strings.HasPrefix(kv, "GOTOOLCHAIN="), strings.HasPrefix(kv, "GOWORK="),
			strings.HasPrefix(kv, "GOFLAGS="), strings.HasPrefix(kv, "GOPROXY="):
		default:
			out = append(out, kv)
		}
	}
	return append(out,
		"PATH="+strings.Join(pathDirs, string(os.PathListSeparator)),
		"GOTOOLCHAIN=local", // never download a toolchain for a task module
		"GOWORK=off",        // a go.work above the temp folder must not leak in
		"GOFLAGS=-mod=mod",
		"GOPROXY=off", // task modules have no dependencies: no network
		"PYTHONDONTWRITEBYTECODE=1",
		"NO_COLOR=1",
	)
}

// lookTool finds a program on the PATH of env.
func lookTool(name string, env []string) bool {
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(p) {
				if dir == "" {
					continue
				}
				if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return true
				}
			}
		}
	}
	return false
}

// RunCheck runs argv in dir with a time limit. On timeout the whole process
// group is killed (a test runner's children too) and the check counts as
// failed.
func RunCheck(ctx context.Context, dir string, argv []string, timeout time.Duration, env []string) CheckResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	var out tailBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	proc.InOwnGroup(cmd)
	cmd.Cancel = func() error { return proc.KillGroup(cmd) }
	cmd.WaitDelay = checkWaitDelay
	err := cmd.Run()
	res := CheckResult{ExitCode: -1, Took: time.Since(start)}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	// Whatever happened, nothing of the group may outlive the check.
	_ = proc.KillGroup(cmd)
	res.Output = out.String()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut = true
		res.Err = fmt.Sprintf("the check did not finish in %s and was stopped", timeout)
	case ctx.Err() != nil:
		res.Err = "the bench was interrupted"
	case err == nil:
		res.Passed = true
	default:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			res.Err = "the check could not run: " + err.Error()
		}
	}
	return res
}

// tailBuffer keeps the last checkOutputTail bytes written to it.
type tailBuffer struct{ b bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if t.b.Len() > 2*checkOutputTail {
		keep := append([]byte(nil), t.b.Bytes()[t.b.Len()-checkOutputTail:]...)
		t.b.Reset()
		t.b.Write(keep)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.b.Bytes()
	if len(b) > checkOutputTail {
		return "…" + string(b[len(b)-checkOutputTail:])
	}
	return string(b)
}
