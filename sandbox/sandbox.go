// Package sandbox is the one way aide-lsp runs a program on content it did
// not write (docs/contract.md §2, docs/design.md "The sandbox"): today the
// verification commands, which run a model's edits before anyone reviewed
// them. Run is the only entry point; nothing else in aide-lsp starts such a
// process.
//
// Confined (Linux, Landlock ABI ≥ 4, user namespaces), the program runs as
// pid 1 of new user, PID, network, mount and IPC namespaces, with a fresh
// /proc, no capabilities, no_new_privs and a Landlock domain: it may write
// only Spec.Dir and a private home and temporary folder, read only the
// toolchain, the system's libraries and files a build needs and the user's
// module caches; TCP bind and connect are refused and the network namespace
// has no interface up; /proc shows only its own tree. When it ends, is
// killed at its time limit or its caller gives up, the kernel kills every
// process left in its PID namespace: setsid does not escape it.
//
// Where that confinement cannot be built (another system, an old kernel,
// namespaces forbidden), Available says why and Run refuses to run unless
// the caller asked for Spec.Unconfined, which is the user's own decision
// (config `verifyUnconfined`).
package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Spec is one program to run.
type Spec struct {
	// Argv is the program and its arguments; a program without a slash is
	// looked up in the PATH of Env.
	Argv []string
	// Dir is the folder the program runs in and the only one of the
	// caller's it may write.
	Dir string
	// Env is the program's environment (already cleaned of credentials by
	// the caller). Confined, HOME and TMPDIR are replaced by private
	// folders and the Go toolchain is pointed at its caches.
	Env []string
	// Output receives stdout and stderr.
	Output io.Writer
	// Unconfined runs the program as a plain process group, without the
	// sandbox: only on the user's own decision.
	Unconfined bool
}

// Result is how the program was run.
type Result struct {
	// Confined: it ran inside the sandbox.
	Confined bool
}

// ErrUnavailable wraps the reason no confinement can be built here.
var ErrUnavailable = errors.New("no sandbox here")

// waitDelay bounds the wait for the output pipes once the program is gone.
const waitDelay = 5 * time.Second

// Run runs s.Argv until it ends or ctx is done, then kills everything it
// started. The error is exec's: nil for exit status 0, an *exec.ExitError
// for another, or why it could not start; it wraps ErrUnavailable when
// confinement was required and cannot be built here.
func Run(ctx context.Context, s Spec) (Result, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return Result{}, errors.New("no command to run")
	}
	if s.Unconfined {
		return Result{}, runLoose(ctx, s)
	}
	if err := Available(); err != nil {
		return Result{}, err
	}
	return Result{Confined: true}, runConfined(ctx, s)
}

// ProbeEnv names the test switch: AIDE_SANDBOX_PROBE=fail makes Available
// fail as on a system without confinement. It exists for tests of the
// refusal path and is documented as such (docs/contract.md §2).
const ProbeEnv = "AIDE_SANDBOX_PROBE"

var (
	probeOnce sync.Once
	probeErr  error
)

// Available reports whether confinement can be built here: nil, or an error
// wrapping ErrUnavailable that says why. The answer is computed once (a
// confined run of nothing) and kept.
func Available() error {
	if os.Getenv(ProbeEnv) == "fail" {
		return wrapUnavailable(ProbeEnv + "=fail (a test switch)")
	}
	probeOnce.Do(func() { probeErr = probe() })
	return probeErr
}

type unavailable struct{ why string }

func (u unavailable) Error() string        { return "no sandbox here: " + u.why }
func (u unavailable) Is(target error) bool { return target == ErrUnavailable }

func wrapUnavailable(why string) error { return unavailable{why} }

// lookPath resolves a program name in aide-lsp's own PATH, as exec.Command
// does for an unconfined run; a name with a slash is left to the program's
// folder.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	return exec.LookPath(name)
}
