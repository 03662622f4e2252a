package commands

import (
	"errors"
	"fmt"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// A conflicted hunk is not a dead end (docs/contract.md §4, §6): when the
// user edited the lines a pending hunk changes, the hunk goes stale and the
// user's text is kept; aide.rerunHunk asks the editor again, for those
// changes only, against the current content (the plan is already approved).

// rerunReason is what the editor is told about each change to make again.
const rerunReason = "the user edited these lines after this change was proposed; make the same change against the current content below, keeping the user's edits"

// claimRerun checks that ids name stale hunks of the session and claims it
// for the re-run turn.
func (e *Engine) claimRerun(s *session, ids []string) error {
	if len(ids) == 0 {
		return errors.New(`name the stale hunks to re-run: {"session": "<id>", "hunks": ["h2"]}`)
	}
	s.mu.Lock()
	for _, id := range ids {
		h := s.hunkByID(id)
		if h == nil {
			s.mu.Unlock()
			return fmt.Errorf("session %s has no hunk %q", s.id, id)
		}
		if h.status != hunkStale || !h.edited {
			s.mu.Unlock()
			return fmt.Errorf("hunk %s of session %s is %s: only a hunk gone stale because its lines were edited is re-run", id, s.id, h.status)
		}
	}
	if s.plan.Text == "" {
		s.mu.Unlock()
		return fmt.Errorf("session %s has no plan to carry out again; re-plan it", s.id)
	}
	s.mu.Unlock()
	if err := s.claim("", "re-run needs a session that is not running; cancel it first"); err != nil {
		return err
	}
	s.mu.Lock()
	s.rerun = append([]string(nil), ids...)
	s.mu.Unlock()
	return nil
}

// rerun moves to editing and gives the editor the stale hunks' changes
// as the edits to make again.
func (t *turn) rerun() (step, error) {
	e, s := t.e, t.s
	var redo []editapply.Failure
	var plan string
	if err := e.move(s, StateEditing, func() {
		plan = s.plan.Text
		for _, id := range s.rerun {
			if h := s.hunkByID(id); h != nil {
				redo = append(redo, editapply.Failure{Reason: rerunReason, Edit: editapply.Edit{
					Kind: h.hunk.Kind, Path: h.hunk.Path, OldText: h.hunk.OldText, NewText: h.hunk.NewText, NewPath: h.hunk.NewPath, Source: "tool"}})
			}
		}
		s.rerun = nil
	}); err != nil {
		return step{kind: stepEnd}, err
	}
	s.addLog("re-running the editor for %d stale change(s) against the current content", len(redo))
	return step{kind: stepEdits, mode: editMode{plan: plan, redo: redo}}, nil
}
