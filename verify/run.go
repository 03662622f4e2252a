package verify

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/clienttext"
	"github.com/aide-lsp/aide-lsp/sandbox"
)

// DefaultOutputCap bounds the output kept of one command: the head (where
// a compiler's first error is) and the tail (where a test runner sums up).
const DefaultOutputCap = 256 << 10

// RunCommand runs one command in dir with env, under its time limit and
// ctx, through the sandbox (sandbox.Run: confined, unless unconfined is
// the user's decision for it). Whatever it started is killed when it ends.
// The output is capped at outputCap bytes (0: DefaultOutputCap), dir is
// made relative in it, and it is cleaned as untrusted text (cleanOutput).
func RunCommand(ctx context.Context, dir string, c Command, env []string, outputCap int, unconfined bool) Result {
	res := Result{Name: c.Name, Unconfined: unconfined}
	if len(c.Run) == 0 || c.Run[0] == "" {
		res.Err = "no command to run"
		return res
	}
	start := time.Now()
	limit := c.Limit()
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out := newCapped(outputCap)
	_, err := sandbox.Run(cctx, sandbox.Spec{Argv: c.Run, Dir: dir, Env: env, Output: out, Unconfined: unconfined})
	res.Duration = time.Since(start)
	res.Output = cleanOutput(out.String(), dir)
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.TimedOut = true
		res.Err = fmt.Sprintf("killed at its time limit of %s", limit)
	case ctx.Err() != nil:
		res.Cancelled = true
		res.Err = "stopped: cancelled"
	case err == nil:
		res.OK = true
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.Err = ee.ProcessState.String() // "exit status 2", "signal: killed"
		} else {
			res.Err = "could not run " + c.Run[0] + ": " + unwrapExec(err)
		}
	}
	return res
}

// unwrapExec shortens exec's errors to their cause for a message.
func unwrapExec(err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return err.Error()
}

// cleanOutput makes the scratch folder's paths relative (a compiler names
// files by absolute path; the user and the model know the workspace's
// names), redacts credentials a command may have printed (model.Redact:
// also their reversed, split and encoded forms) and defangs the rest: the
// output is text a model's code wrote, shown to the user and sent back to
// the editor model, so no terminal escape or invisible character of it
// survives (clienttext.Terminal, the border's terminal kind).
func cleanOutput(s, dir string) string {
	for _, d := range []string{dir, evalSymlinks(dir)} {
		if d == "" {
			continue
		}
		s = strings.ReplaceAll(s, d+string(filepath.Separator), "")
		s = strings.ReplaceAll(s, d, ".")
	}
	return clienttext.Terminal(s)
}

func evalSymlinks(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil || r == p {
		return ""
	}
	return r
}

// capped keeps the first half of its cap and the last half, and counts
// what fell between.
type capped struct {
	mu      sync.Mutex
	half    int
	head    []byte
	tail    []byte // a window of the last bytes, at most 2*half before trimming
	dropped int64
}

func newCapped(limit int) *capped {
	if limit <= 0 {
		limit = DefaultOutputCap
	}
	return &capped{half: max(limit/2, 1)}
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.half {
		cut := len(c.tail) - c.half
		c.dropped += int64(cut)
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
	return n, nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail, dropped := c.tail, c.dropped
	if len(tail) > c.half {
		dropped += int64(len(tail) - c.half)
		tail = tail[len(tail)-c.half:]
	}
	if dropped == 0 {
		return string(c.head) + string(tail)
	}
	return fmt.Sprintf("%s\n… %d bytes of output left out …\n%s", c.head, dropped, tail)
}
