package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Deciding hunks: the user's decisions (aide.accept, aide.reject, the
// review's judgements) and the session's own (withdrawing on a re-plan or
// a cancel, failing), each recorded once by settle or move.

// Decide records the user's decision on pending hunks (all pending hunks
// when ids is empty) and returns the ids decided. lsp calls it after a
// workspace/applyEdit, and aide.accept / aide.reject call it. It does not
// write to disk: the client applies accepted edits (the CLI uses ApplyHunks).
func (e *Engine) Decide(sessionID string, ids []string, accepted bool) ([]string, error) {
	status := hunkRejected
	if accepted {
		status = hunkAccepted
	}
	return e.settle(sessionID, ids, status, "", false)
}

// Stale marks pending hunks that no longer apply (their document changed
// under them); a stale hunk is never applied.
func (e *Engine) Stale(sessionID string, ids []string, reason string) ([]string, error) {
	return e.settle(sessionID, ids, hunkStale, reason, false)
}

// Pending returns the hunks of a session still waiting for a decision.
func (e *Engine) Pending(sessionID string) []editapply.Hunk {
	s, err := e.session(sessionID)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []editapply.Hunk
	for _, h := range s.hunks {
		if h.status == hunkPending {
			out = append(out, h.hunk)
		}
	}
	return out
}

// settle records a decision on hunks; lenient skips the ids no longer
// pending instead of refusing them all (accept, after the editor applied
// them, races the review that follows its didChanges).
func (e *Engine) settle(sessionID string, ids []string, status HunkStatus, reason string, lenient bool) ([]string, error) {
	s, err := e.session(sessionID)
	if err != nil {
		return nil, err
	}
	// One decision at a time, from its statuses to its events: a decision
	// that finishes the session must not record done before an earlier
	// one's event (the review's judgements and the user's commands race).
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	s.mu.Lock()
	byID := map[string]*hunkState{}
	for _, h := range s.hunks {
		byID[h.hunk.ID] = h
	}
	var decided []string
	if len(ids) == 0 {
		for _, h := range s.hunks {
			if h.status == hunkPending {
				decided = append(decided, h.hunk.ID)
			}
		}
	} else {
		for _, id := range ids {
			h := byID[id]
			if h == nil {
				s.mu.Unlock()
				return nil, fmt.Errorf("session %s has no hunk %q", s.id, id)
			}
			if h.status != hunkPending {
				if lenient {
					continue
				}
				s.mu.Unlock()
				return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, h.status)
			}
			decided = append(decided, id)
		}
	}
	var accepted []*hunkState
	for _, id := range decided {
		if status == hunkAccepted {
			accepted = append(accepted, byID[id])
		}
		byID[id].status = status
		if status == hunkRejected {
			byID[id].reason = reason
		}
		if status == hunkStale { // settle's stale is a document's change; a withdrawal does not come here
			byID[id].edited = true
		}
	}
	counts := map[HunkStatus]int{}
	for _, h := range s.hunks {
		counts[h.status]++
	}
	finished := len(decided) > 0 && counts[hunkPending] == 0 && s.state == StateProposed
	if counts[hunkPending] == 0 {
		s.endRound()
	}
	s.mu.Unlock()
	if len(decided) == 0 {
		return []string{}, nil
	}
	e.recordAccepted(s, accepted)
	decision := ev(string(status), DecisionData{Hunks: decided, Reason: reason})
	if finished {
		done := ev(EvDone, DoneData{Accepted: intp(counts[hunkAccepted]), Rejected: intp(counts[hunkRejected]), Stale: intp(counts[hunkStale])})
		if e.move(s, StateDone, nil, decision, done) == nil {
			return decided, nil
		}
	}
	e.emit(s, decision.Event, decision.Data)
	e.writePlan(s, true)
	return decided, nil
}

// withdraw turns every pending hunk stale (a re-plan or a cancel supersedes them).
func (e *Engine) withdraw(s *session, reason string) {
	s.mu.Lock()
	var ids []string
	for _, h := range s.hunks {
		if h.status == hunkPending {
			h.status, h.withdrawn = hunkStale, true
			ids = append(ids, h.hunk.ID)
		}
	}
	s.endRound() // an edit still out is abandoned: what the user applies of it is judged later
	s.mu.Unlock()
	if len(ids) > 0 {
		e.emit(s, EvStale, DecisionData{Hunks: ids, Reason: reason})
	}
}

// cancel stops a session: its running model call, or its pending plan or
// proposals. Nothing half-proposed remains.
func (e *Engine) cancel(s *session, reason string) {
	s.mu.Lock()
	if s.busy {
		s.cancelled = reason
		fn := s.cancelFn
		s.mu.Unlock()
		if fn != nil {
			fn()
		}
		return
	}
	switch s.state {
	case StateDone, StateCancelled, StateFailed:
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	e.finishCancelled(s, reason)
}

func (e *Engine) finishCancelled(s *session, reason string) {
	e.withdraw(s, "session cancelled")
	_ = e.move(s, StateCancelled, func() {
		s.reason = reason
		s.streaming = ""
	}, ev(EvCancelled, CancelledData{Reason: reason}))
}

// fail stops the session with a reason the user can act on.
func (e *Engine) fail(s *session, reason string) error {
	_ = e.move(s, StateFailed, func() {
		s.reason = reason
		s.log = append(s.log, "stopped: "+reason)
		s.streaming = ""
	}, ev(EvError, ErrorData{Message: reason}))
	return errors.New(reason)
}

// accept is aide.accept, the one path of every client (the editors, `run
// --apply`, the headless runner): it checks the hunks (all pending when ids
// is empty; accepted ones are answered again, a rejected or stale one is an
// error), judges them on the documents now (one whose edit already landed,
// as a code action's edit lands before its command runs, is accepted; one
// whose lines changed is stale), has the client apply the others
// (Client.ApplyHunks) and records what landed. Hunks the editor declined
// stay pending.
func (e *Engine) accept(ctx context.Context, s *session, ids []string) ([]string, error) {
	s.mu.Lock()
	status := map[string]HunkStatus{}
	for _, h := range s.hunks {
		status[h.hunk.ID] = h.status
	}
	if len(ids) == 0 {
		for _, h := range s.hunks {
			if h.status == hunkPending {
				ids = append(ids, h.hunk.ID)
			}
		}
	}
	task := s.task
	s.mu.Unlock()
	accepted := []string{}
	var pending []string
	for _, id := range ids {
		switch status[id] {
		case "":
			return nil, fmt.Errorf("session %s has no hunk %q", s.id, id)
		case hunkRejected, hunkStale:
			return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, status[id])
		case hunkAccepted:
			accepted = append(accepted, id) // what was asked is done
		default:
			pending = append(pending, id)
		}
	}
	if len(pending) == 0 {
		return accepted, nil
	}
	landed, stale, toApply := e.judgeAccepted(s, pending)
	var applyErr error
	if len(toApply) > 0 {
		hunks := make([]editapply.Hunk, len(toApply))
		for i, t := range toApply {
			hunks[i] = t.Hunk
		}
		var written []string
		written, applyErr = e.client.ApplyHunks(ctx, s.id, task, hunks)
		read := e.reading()
		for i, v := range judge(toApply, read) {
			if id := toApply[i].Hunk.ID; v.Fate == fateLanded || slices.Contains(written, id) {
				landed = append(landed, id)
			}
		}
	}
	// The documents' changes may have decided some meanwhile (the review
	// follows every change): only what is still pending is decided here.
	landed, already := e.stillPending(s, landed, hunkAccepted)
	accepted = append(accepted, already...)
	stale, _ = e.stillPending(s, stale, hunkStale)
	if len(landed) > 0 {
		done, err := e.settle(s.id, landed, hunkAccepted, "", true)
		if err != nil {
			return nil, err
		}
		accepted = append(accepted, done...)
		if len(done) < len(landed) { // decided meanwhile: accepted, by the review
			for _, id := range landed {
				if !slices.Contains(done, id) && e.statusOf(s, id) == hunkAccepted {
					accepted = append(accepted, id)
				}
			}
		}
	}
	if len(stale) > 0 {
		if _, err := e.settle(s.id, stale, hunkStale, "the document changed under it", true); err != nil {
			return nil, err
		}
	}
	if applyErr != nil && len(accepted) == 0 {
		return nil, fmt.Errorf("the changes were not applied: %w", applyErr)
	}
	return accepted, nil
}

// judgeAccepted judges all the session's pending hunks together (a landed
// neighbour explains the document the others are found in) and splits the
// ids asked for: landed, stale, and to apply (re-located in the content now).
func (e *Engine) judgeAccepted(s *session, ids []string) (landed, stale []string, toApply []ReviewHunk) {
	e.reviewMu.Lock()
	defer e.reviewMu.Unlock()
	read := e.reading()
	s.mu.Lock()
	defer s.mu.Unlock()
	var ts []ReviewHunk
	var hs []*hunkState
	for _, h := range s.hunks {
		if h.status == hunkPending {
			ts = append(ts, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
			hs = append(hs, h)
		}
	}
	for i, v := range judge(ts, read) {
		h := hs[i]
		if !slices.Contains(ids, h.hunk.ID) {
			continue
		}
		switch v.Fate {
		case fateLanded:
			landed = append(landed, h.hunk.ID)
		case fateStale:
			stale = append(stale, h.hunk.ID)
		default:
			h.hunk, h.base = v.Hunk, textOf(read, h.abs)
			toApply = append(toApply, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
		}
	}
	return landed, stale, toApply
}

func (e *Engine) statusOf(s *session, id string) HunkStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hunks {
		if h.hunk.ID == id {
			return h.status
		}
	}
	return ""
}

// stillPending splits ids into those still pending and those already in
// status st.
func (e *Engine) stillPending(s *session, ids []string, st HunkStatus) (pending, already []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		for _, h := range s.hunks {
			if h.hunk.ID != id {
				continue
			}
			switch h.status {
			case hunkPending:
				pending = append(pending, id)
			case st:
				already = append(already, id)
			}
		}
	}
	return pending, already
}
