package commands

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// The review one hunk at a time (docs/contract.md §7, §10), for a front end
// that asks the user about each hunk in turn (ACP: a tool call and a
// permission request per hunk). The engine decides everything: which hunk
// comes next, what it is judged against, whether it is withdrawn, landed
// or written, and the words that name it; the front end only shows the
// Question, relays the user's answer (Answer) and reads and writes files
// through the client (Files). The file is read again before the question
// and again before the write, and the hunk judged against what it holds
// (judge, as the language server's documents are): a hunk the user's edits
// moved is re-located, one they broke is withdrawn. That one check is why
// a stale hunk is never applied, whenever the user typed.

// Files is how the front end reads and writes the file of a hunk. When
// Buffers is set (the client offers reads and writes of its own files), a
// hunk that edits or writes a file is read through Read. It is written
// through Write only when that read showed a text the disk does not hold:
// the client's buffer, with the user's unsaved edits, which only the client
// can change. Otherwise the workspace's journaled writer writes the disk,
// because a client may answer reads from the disk and write its buffer
// (CodeCompanion.nvim): a whole text built on the disk and written over a
// buffer would drop the edits the user has not saved (docs/editors.md).
// Deletes, renames and a client without Buffers go through the workspace.
type Files struct {
	Buffers bool
	// Read is the file as the client has it (an error for a file it does
	// not have: a new file is then read as empty).
	Read func(ctx context.Context, abs string) (text string, err error)
	// Write replaces the file's whole text in the client.
	Write func(ctx context.Context, abs, text string) error
}

// Decision is what became of a hunk the review settled.
type Decision string

// The decisions of the review.
const (
	DecisionAccepted  Decision = "accepted"
	DecisionRejected  Decision = "rejected"
	DecisionWithdrawn Decision = "withdrawn" // stale: never applied
)

// Question is a hunk to ask the user about, as it stands in its file now.
type Question struct {
	ID    string // the hunk's id: Answer's
	Hunk  ReviewHunk
	Title string // "greet.go:3-4 — step 2 (h1)": the file, its lines, its plan step
	Line  int    // the first line the hunk changes (1-based)
	// Before is the file as it was judged, After the same with only this
	// hunk applied, when Diff; Summary says the change in words where
	// there is no diff (a rename, or a hunk that no longer applies).
	Before, After string
	Diff          bool
	Summary       string
}

// Outcome is a hunk the review settled: the user's answer, or a fate the
// engine found (withdrawn, or already in the file).
type Outcome struct {
	Question
	Decision      Decision
	Reason        string // why it was withdrawn
	AlreadyInFile bool   // accepted because the file already holds it: nothing was written
}

// Step is the review's next thing: a question for the user, or a hunk the
// engine settled without asking.
type Step struct {
	Ask     *Question
	Settled *Outcome
}

// Next is the next step of the session's review, false when no hunk is
// pending (or the session is gone). A cancelled ctx ends the review with
// nothing decided.
func (e *Engine) Next(ctx context.Context, sessionID string, f Files) (Step, bool) {
	if ctx.Err() != nil {
		return Step{}, false
	}
	set := e.Review(sessionID)
	if len(set) == 0 {
		return Step{}, false
	}
	h := set[0]
	cur, _, err := e.readHunk(ctx, h, f)
	if err != nil {
		if ctx.Err() != nil {
			return Step{}, false
		}
		o := e.withdrawHunk(sessionID, e.question(sessionID, h, h.Base), "its file could not be read: "+err.Error())
		return Step{Settled: &o}, true
	}
	h, fate, ok := e.judgeHunk(sessionID, h.Hunk.ID, cur)
	if !ok {
		return e.Next(ctx, sessionID, f) // decided meanwhile
	}
	if o, settled := e.settledFate(sessionID, h, cur, fate); settled {
		return Step{Settled: &o}, true
	}
	q := e.question(sessionID, h, cur)
	return Step{Ask: &q}, true
}

// Answer records the user's answer on hunk id: a rejection is recorded; an
// acceptance is judged again on the file as it is now (the user may have
// typed while the question waited) and written. An answer to a hunk no
// longer pending (answered already, withdrawn, cancelled) is ignored:
// ok is false. A cancelled ctx during the write leaves the hunk pending.
func (e *Engine) Answer(ctx context.Context, sessionID, id string, accept bool, f Files) (Outcome, bool) {
	h, ok := e.pendingHunk(sessionID, id)
	if !ok {
		return Outcome{}, false
	}
	if !accept {
		if _, err := e.Decide(sessionID, []string{id}, false); err != nil {
			return Outcome{}, false
		}
		return Outcome{Question: e.question(sessionID, h, h.Base), Decision: DecisionRejected}, true
	}
	cur, buffer, err := e.readHunk(ctx, h, f)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{}, false
		}
		return e.withdrawHunk(sessionID, e.question(sessionID, h, h.Base), "its file could not be read: "+err.Error()), true
	}
	h, fate, ok := e.judgeHunk(sessionID, id, cur)
	if !ok {
		return Outcome{}, false
	}
	if o, settled := e.settledFate(sessionID, h, cur, fate); settled {
		return o, true
	}
	q := e.question(sessionID, h, cur)
	if err := e.writeHunk(ctx, h, cur, buffer, f); err != nil {
		if ctx.Err() != nil {
			return Outcome{}, false
		}
		return e.withdrawHunk(sessionID, q, "it could not be written: "+err.Error()), true
	}
	if _, err := e.Decide(sessionID, []string{id}, true); err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: hunk %s was written but its acceptance was not recorded: %v", id, err))
	}
	return Outcome{Question: q, Decision: DecisionAccepted}, true
}

// settledFate settles a hunk no longer pending in the file: stale
// (withdrawn) or already there (the user made the same change: accepted,
// nothing written).
func (e *Engine) settledFate(sessionID string, h ReviewHunk, cur string, f fate) (Outcome, bool) {
	switch f {
	case fateStale:
		return e.withdrawHunk(sessionID, e.question(sessionID, h, h.Base), "the file changed at its lines since it was proposed"), true
	case fateLanded:
		_, _ = e.Decide(sessionID, []string{h.Hunk.ID}, true)
		return Outcome{Question: e.question(sessionID, h, h.Base), Decision: DecisionAccepted, AlreadyInFile: true}, true
	}
	return Outcome{}, false
}

func (e *Engine) withdrawHunk(sessionID string, q Question, why string) Outcome {
	_, _ = e.Stale(sessionID, []string{q.ID}, why)
	return Outcome{Question: q, Decision: DecisionWithdrawn, Reason: why}
}

func (e *Engine) pendingHunk(sessionID, id string) (ReviewHunk, bool) {
	for _, h := range e.Review(sessionID) {
		if h.Hunk.ID == id {
			return h, true
		}
	}
	return ReviewHunk{}, false
}

// viaClient says a hunk's file is read and written through the client.
func viaClient(h editapply.Hunk, f Files) bool {
	return f.Buffers && f.Read != nil && f.Write != nil && (h.Kind == editapply.KindEdit || h.Kind == editapply.KindWrite)
}

// readHunk is the hunk's file as it is now ("" when it does not exist);
// buffer says the client's read holds what the disk does not (Files).
func (e *Engine) readHunk(ctx context.Context, h ReviewHunk, f Files) (text string, buffer bool, err error) {
	disk, _, derr := e.ws.Read(h.Hunk.Path)
	if !viaClient(h.Hunk, f) {
		return disk, false, derr
	}
	text, err = f.Read(ctx, h.Abs)
	if err != nil {
		if _, serr := os.Lstat(h.Abs); serr == nil || ctx.Err() != nil {
			return "", false, err
		}
		return "", false, nil // a new file: the client has nothing to read
	}
	return text, derr != nil || text != disk, nil
}

// writeHunk writes an accepted hunk on cur, the content it was judged on:
// through the client when cur is its buffer, else the disk.
func (e *Engine) writeHunk(ctx context.Context, h ReviewHunk, cur string, buffer bool, f Files) error {
	if !buffer {
		_, err := ApplyHunks(e.ws, []editapply.Hunk{h.Hunk})
		return err
	}
	text, err := withHunk(cur, h.Hunk)
	if err != nil {
		return err
	}
	return f.Write(ctx, h.Abs, text)
}

// withHunk is cur with only h applied.
func withHunk(cur string, h editapply.Hunk) (string, error) {
	switch h.Kind {
	case editapply.KindWrite:
		return h.NewText, nil
	case editapply.KindDelete:
		return "", nil
	case editapply.KindRename:
		return cur, nil
	}
	return editapply.Apply(cur, []editapply.Hunk{h})
}

// question is how a hunk is put to the user, on cur, its file now.
func (e *Engine) question(sessionID string, h ReviewHunk, cur string) Question {
	first, last := hunkLines(h.Hunk, cur)
	q := Question{ID: h.Hunk.ID, Hunk: h, Line: first, Before: cur, Summary: h.Hunk.Summary}
	switch h.Hunk.Kind {
	case editapply.KindRename:
		q.Summary = fmt.Sprintf("Rename %s to %s", h.Hunk.Path, h.Hunk.NewPath)
	default:
		if after, err := withHunk(cur, h.Hunk); err == nil {
			q.After, q.Diff = after, true
		}
	}
	where := filepath.ToSlash(h.Hunk.Path)
	switch {
	case h.Hunk.Kind != editapply.KindEdit:
		where += " (" + string(h.Hunk.Kind) + ")"
	case first == last:
		where += fmt.Sprintf(":%d", first)
	default:
		where += fmt.Sprintf(":%d-%d", first, last)
	}
	if label := e.hunkLabel(sessionID, h.Hunk.ID); label != "" {
		where += " — " + label
	}
	if why := e.runsCode(h.Hunk, cur, q.After); why != "" {
		where += " — runs code: " + why
	}
	q.Title = where + " (" + h.Hunk.ID + ")"
	return q
}

// runsCode is why the hunk's file runs code or configures a tool
// (workspace.Sensitive, contract §2), judged on its resolved path and on
// the file before and after the hunk, or "": every review surface marks
// such a hunk (an ACP tool call's title and permission request).
func (e *Engine) runsCode(h editapply.Hunk, cur, after string) string {
	var next []byte
	if h.Kind != editapply.KindDelete {
		next = []byte(after)
	}
	why := e.ws.Sensitive(h.Path, []byte(cur), next)
	if why == "" && h.Kind == editapply.KindRename {
		why = e.ws.Sensitive(h.NewPath, nil, []byte(cur))
	}
	return why
}

// hunkLabel is the label naming a hunk's plan step ("step 2", "not in the
// plan"), from the session's review round.
func (e *Engine) hunkLabel(sessionID, id string) string {
	s, err := e.session(sessionID)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.round.labels[id]
}

// hunkLines are the 1-based first and last lines a hunk's old text spans.
func hunkLines(h editapply.Hunk, cur string) (int, int) {
	if h.Kind != editapply.KindEdit || h.Start < 0 || h.End > len(cur) || h.Start > h.End {
		return 1, 1
	}
	first := strings.Count(cur[:h.Start], "\n") + 1
	last := first + strings.Count(strings.TrimSuffix(h.OldText, "\n"), "\n")
	return first, last
}
