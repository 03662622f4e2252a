package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/verify"
)

// Verification before proposing (docs/contract.md §6.1, docs/design.md
// "Verification"): a candidate whose edits all matched is written into a
// scratch copy and the configured commands run there. A failure goes back
// to the editor as feedback — the candidate is discarded and the editor
// asked again against the files as they are, told what its last answer
// broke — and counts as a failed pass (maxMistakes); a pass, or a spent
// budget, proposes with the result attached.

// VerifyData is a verify event: one command run on a candidate.
type VerifyData struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Ms   int64  `json:"ms"`
	// Output is, for a failure, the lines that name the changed files
	// then the first lines (verify.Trim); for a pass, its last lines.
	Output string `json:"output"`
}

// verifyTailLines is how many last lines of a command's output the plan
// document and a passing command's event keep.
const verifyTailLines = 12

// Verification labels of each hunk (its diagnostic and annotation).
const (
	labelBuilds      = "builds"
	labelBuildFailed = "build failed"
	// labelUnconfined is added to a label when the commands ran without
	// the sandbox, on the user's verifyUnconfined.
	labelUnconfined = "without the sandbox"
)

// verifyOutcome is what verifying one candidate found.
type verifyOutcome struct {
	ran bool
	ok  bool
	// notRun says why the candidate was not verified (an untrusted
	// workspace, no sandbox here): its hunks carry it as their label.
	notRun string
	// unconfined: a command ran without the sandbox (verifyUnconfined).
	unconfined bool
	feedback   string // for the editor, when it failed
	summary    string // one line, for the log
}

// verifyCandidate runs cfg.Verify on a scratch copy holding hunks. It
// records the result on the session (the plan document's
// "## Verification") and emits a verify event per command.
func (e *Engine) verifyCandidate(ctx context.Context, s *session, p Progress, cfg config.Config, hunks []editapply.Hunk) verifyOutcome {
	if len(cfg.Verify) == 0 || len(hunks) == 0 {
		return verifyOutcome{}
	}
	// Whichever layer named the commands, they run the workspace's build
	// files: only in a folder the user trusted (contract §2).
	if cfg.UntrustedRoot != "" {
		return e.notVerified(s, config.VerifyTrustMessage(cfg.UntrustedRoot))
	}
	out := verifyOutcome{ran: true}
	var changed []string
	rep, err := func() (verify.Report, error) {
		writes, err := FileChanges(e.ws, hunks)
		if err != nil {
			return verify.Report{}, err
		}
		changes := make([]verify.Change, len(writes))
		for i, w := range writes {
			changes[i] = verify.Change{Path: w.Rel, Content: w.Content, Delete: w.Delete}
			changed = append(changed, w.Rel)
		}
		files, err := e.ws.Files(ctx)
		if err != nil {
			return verify.Report{}, err
		}
		return verify.Run(ctx, verify.Options{Root: e.root, Files: files, Changes: changes, Commands: cfg.Verify,
			KeyVars: cfg.KeyVars(), Unconfined: cfg.VerifyUnconfined,
			OnCommand: func(c verify.Command) { p.Report("verifying: " + c.Name) }})
	}()
	if err != nil {
		// The copy could not be made: nothing was verified, and saying
		// "build failed" would send the editor after an error of ours.
		msg := "verification could not run: " + err.Error()
		s.addLog("%s", msg)
		e.emit(s, EvError, ErrorData{Message: msg})
		s.mu.Lock()
		s.verified = []planview.VerifyLine{{Name: "(setup)", Err: err.Error()}}
		s.mu.Unlock()
		return verifyOutcome{}
	}
	if rep.NotRun != "" {
		return e.notVerified(s, rep.NotRun)
	}
	var lines []planview.VerifyLine
	var sums []string
	for _, r := range rep.Results {
		d := VerifyData{Name: r.Name, OK: r.OK, Ms: r.Duration.Milliseconds()}
		line := planview.VerifyLine{Name: r.Name, OK: r.OK, Ms: d.Ms, Err: r.Err}
		for _, c := range cfg.Verify {
			if c.Name == r.Name {
				line.Command = c.String()
			}
		}
		if r.OK {
			d.Output = verify.Tail(r.Output, verifyTailLines)
		} else {
			d.Output = verify.Trim(r.Output, changed, verify.TrimLines)
			line.Tail = verify.Tail(r.Output, verifyTailLines)
		}
		e.emit(s, EvVerify, d)
		out.unconfined = out.unconfined || r.Unconfined
		lines = append(lines, line)
		sums = append(sums, r.Summary())
	}
	out.ok = rep.OK()
	out.summary = strings.Join(sums, "; ")
	s.mu.Lock()
	s.verified = lines
	s.mu.Unlock()
	if f := rep.Failed(); f != nil {
		why := f.Err
		if why == "" {
			why = "failed"
		}
		cmd := ""
		for _, c := range cfg.Verify {
			if c.Name == f.Name {
				cmd = c.String()
			}
		}
		out.feedback = fmt.Sprintf("Your previous edits were NOT applied: with them, `%s` (%s) %s:\n\n```\n%s\n```\n\nThe files above are as they are now, without your previous edits. Make the edits again, all of them, so that this passes.",
			cmd, f.Name, why, verify.Trim(f.Output, changed, verify.TrimLines))
	}
	return out
}

// notVerified records a verification that did not run, and why: the log,
// an error event, the plan document's "## Verification", and the hunks'
// label ("not verified: no sandbox here").
func (e *Engine) notVerified(s *session, why string) verifyOutcome {
	s.addLog("%s", why)
	e.emit(s, EvError, ErrorData{Message: why})
	label, _, _ := strings.Cut(why, " (")
	label, _, _ = strings.Cut(label, ",")
	s.mu.Lock()
	s.verified = []planview.VerifyLine{{Name: "(not run)", Err: why}}
	s.mu.Unlock()
	return verifyOutcome{notRun: label}
}

// withoutOutput are the lines of a verification for the plan document,
// which lies in the workspace: a command's output is text the model's code
// wrote, and never goes into the workspace's files (contract §2 "Running
// what we did not write"); the editor has it in the verify events.
func withoutOutput(lines []planview.VerifyLine) []planview.VerifyLine {
	out := append([]planview.VerifyLine(nil), lines...)
	for i := range out {
		out[i].Tail = ""
	}
	return out
}

// verifyLabel joins a hunk's step label and the verification's.
func verifyLabel(step, verified string) string {
	switch {
	case verified == "":
		return step
	case step == "":
		return verified
	}
	return step + ", " + verified
}
