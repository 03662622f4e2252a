// Package verify checks a candidate change before the user reviews it
// (docs/contract.md §3 `verify`, docs/design.md "Verification"): the change
// is written into a scratch copy of the workspace, the user's own commands
// run there, one after the other, and the result says which passed and, for
// a failure, what the output said about the changed files.
//
// Commands never run in the user's tree, never see a credential from the
// environment (EnvAllowed), run only inside the sandbox (package sandbox:
// no other folder writable, no home, no network, nothing outlives them)
// unless the user let them run unconfined where no sandbox exists, never
// outlive their timeout or the caller's cancellation, and the scratch copy
// is removed whatever happens (a panic and a cancel included). This package
// runs what it is given; which commands may run at all is the
// configuration's decision (config: `verify` only from the user's own file
// or a trusted workspace file).
package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/sandbox"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// DefaultTimeout is a command's time limit when its `timeout` is not set.
const DefaultTimeout = 120 * time.Second

// Command is one entry of the `verify` list.
type Command struct {
	Name string   `json:"name"`
	Run  []string `json:"run"`
	// Timeout is in seconds; 0 is DefaultTimeout.
	Timeout int `json:"timeout,omitempty"`
}

// Limit is the command's time limit.
func (c Command) Limit() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout) * time.Second
}

// String is the command line as a user would type it, for messages.
func (c Command) String() string {
	parts := make([]string, len(c.Run))
	for i, a := range c.Run {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// Result is what one command did.
type Result struct {
	Name     string
	OK       bool
	Duration time.Duration
	// Output is the command's stdout and stderr, interleaved, capped
	// (OutputCap), with the scratch folder's path made relative and
	// credentials redacted.
	Output string
	// TimedOut: killed at its time limit. Cancelled: killed because the
	// caller gave up (aide.cancel, shutdown). Both are failures.
	TimedOut  bool
	Cancelled bool
	// Err says why the command could not run (not found, not executable),
	// or why it was stopped; "" when it ran to its end.
	Err string
	// Unconfined: it ran without the sandbox, on the user's decision
	// (Options.Unconfined).
	Unconfined bool
}

// Summary is the result on one line: "build: ok (1.2 s)", "vet: failed
// (exit status 1, 0.8 s)".
func (r Result) Summary() string {
	d := fmt.Sprintf("%.1f s", r.Duration.Seconds())
	switch {
	case r.OK && r.Unconfined:
		return fmt.Sprintf("%s: ok, without the sandbox (%s)", r.Name, d)
	case r.OK:
		return fmt.Sprintf("%s: ok (%s)", r.Name, d)
	case r.Err != "" && r.Unconfined:
		return fmt.Sprintf("%s: failed without the sandbox (%s; %s)", r.Name, r.Err, d)
	case r.Err != "":
		return fmt.Sprintf("%s: failed (%s; %s)", r.Name, r.Err, d)
	case r.Unconfined:
		return fmt.Sprintf("%s: failed without the sandbox (%s)", r.Name, d)
	default:
		return fmt.Sprintf("%s: failed (%s)", r.Name, d)
	}
}

// Report is the outcome of one verification.
type Report struct {
	Results []Result
	// Copy is what the scratch copy cost.
	Copy CopyStats
	// NotRun says why nothing ran ("not verified: no sandbox here: ..."),
	// "" when the commands ran.
	NotRun string
}

// OK reports whether every command passed (true for no commands).
func (r Report) OK() bool {
	for _, res := range r.Results {
		if !res.OK {
			return false
		}
	}
	return true
}

// Failed is the first command that failed, or nil.
func (r Report) Failed() *Result {
	for i := range r.Results {
		if !r.Results[i].OK {
			return &r.Results[i]
		}
	}
	return nil
}

// Options are the inputs of one verification.
type Options struct {
	// Root is the workspace root; Files the root-relative, slash-separated
	// files to copy (the workspace's view: neither ignored nor denied).
	Root  string
	Files []string
	// Changes are written over the copy: the open buffers that differ
	// from the disk, then the candidate.
	Changes []Change
	// Commands run in order; the first failure stops the rest (a build
	// that fails makes its tests meaningless, and time is the user's).
	Commands []Command
	// Environ is the environment the commands' is cleaned from (nil:
	// os.Environ()); KeyVars names the variables that hold model keys (the
	// providers' apiKeyEnv), never passed whatever their name.
	Environ []string
	KeyVars []string
	// OnCommand is told each command as it starts ("verifying: build").
	OnCommand func(c Command)
	// OutputCap bounds each command's kept output in bytes (0:
	// DefaultOutputCap).
	OutputCap int
	// Unconfined names the commands the user's own configuration lets run
	// without the sandbox where none can be built (config
	// `verifyUnconfined`; "*" is every command). Never a decision of a
	// workspace.
	Unconfined []string
}

// NoSandbox starts the message of a verification that did not run because
// no confinement can be built here.
const NoSandbox = "not verified: no sandbox here"

// Run copies the workspace into a scratch folder, applies the changes,
// runs the commands there through the sandbox and removes the folder, in
// every case. The error is for a verification that could not be set up
// (the copy failed); a command that fails is a Result, not an error.
//
// Where the sandbox cannot be built (sandbox.Available), nothing runs
// (Report.NotRun says why) unless every command is one the user let run
// unconfined and no change creates or changes a file that runs code
// (workspace.SensitiveKind, contract §2): such a file is never executed
// outside the sandbox.
func Run(ctx context.Context, o Options) (rep Report, err error) {
	unconfined := false
	if len(o.Commands) > 0 {
		if avail := sandbox.Available(); avail != nil {
			if why := mayRunUnconfined(o); why != "" {
				rep.NotRun = fmt.Sprintf("%s (%s); %s", NoSandbox, strings.TrimPrefix(avail.Error(), "no sandbox here: "), why)
				return rep, nil
			}
			unconfined = true
		}
	}
	s, err := NewScratch(ctx, o.Root, o.Files)
	if err != nil {
		return rep, err
	}
	// Deferred: a panic in a command's handling or the caller's callback
	// still removes the copy.
	defer s.Remove()
	rep.Copy = s.Stats
	if err := s.Apply(o.Changes); err != nil {
		return rep, err
	}
	env := CleanEnv(o.Environ, o.KeyVars)
	for _, c := range o.Commands {
		if o.OnCommand != nil {
			o.OnCommand(c)
		}
		res := RunCommand(ctx, s.Dir, c, env, o.OutputCap, unconfined)
		rep.Results = append(rep.Results, res)
		if !res.OK {
			break
		}
	}
	return rep, nil
}

// mayRunUnconfined says why o may not run without the sandbox, "" when it
// may: every command is one the user let run unconfined, and no change
// touches a file that runs code.
func mayRunUnconfined(o Options) string {
	for _, c := range o.Commands {
		if !slices.Contains(o.Unconfined, "*") && !slices.Contains(o.Unconfined, c.Name) {
			return fmt.Sprintf("to run %q without it, list it in \"verifyUnconfined\" of your own config file", c.Name)
		}
	}
	for _, ch := range o.Changes {
		var mode os.FileMode
		var old []byte
		if fi, err := os.Lstat(filepath.Join(o.Root, filepath.FromSlash(ch.Path))); err == nil {
			mode = fi.Mode()
			if fi.Mode().IsRegular() && fi.Size() <= 1<<20 {
				old, _ = os.ReadFile(filepath.Join(o.Root, filepath.FromSlash(ch.Path)))
			}
		}
		content := ch.Content
		if ch.Delete {
			content = nil
		}
		if kind := workspace.SensitiveKind(ch.Path, mode, old, content); kind != "" {
			return fmt.Sprintf("the change touches %s (%s), which is never run without the sandbox", ch.Path, kind)
		}
	}
	return ""
}
