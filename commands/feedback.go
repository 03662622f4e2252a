package commands

import (
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/planview"
)

// The user's side of a review round (docs/contract.md §4, §5): why hunks
// were rejected, and notes on the plan, reach the architect on a re-plan so
// the next plan does not propose the same thing again.

// maxReviewLines bounds the review told to the architect: the newest
// decisions matter most, and a long session must not crowd out the task.
const maxReviewLines = 40

// cleanReason is a reason as it is kept: one line, bounded.
func cleanReason(r string) string {
	r = strings.Join(strings.Fields(r), " ")
	if n := []rune(r); len(n) > planview.MaxReasonChars {
		r = string(n[:planview.MaxReasonChars]) + " […]"
	}
	return r
}

// reject is aide.reject: pending hunks (all of them when ids is empty) are
// rejected with the reason; a hunk already rejected takes the reason given
// now. In VS Code unticking in the Refactor Preview is the rejection and the
// reason is asked after it, so the reason often comes second.
func (e *Engine) reject(s *session, ids []string, reason string) ([]string, error) {
	reason = cleanReason(reason)
	if reason == "" {
		return e.Decide(s.id, ids, false)
	}
	s.mu.Lock()
	var pending, already []string
	if len(ids) == 0 {
		for _, h := range s.hunks {
			if h.status == hunkPending {
				pending = append(pending, h.hunk.ID)
			}
		}
	}
	for _, id := range ids {
		h := s.hunkByID(id)
		switch {
		case h == nil:
			s.mu.Unlock()
			return nil, fmt.Errorf("session %s has no hunk %q", s.id, id)
		case h.status == hunkPending:
			pending = append(pending, id)
		case h.status == hunkRejected:
			already = append(already, id)
		default:
			s.mu.Unlock()
			return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, h.status)
		}
	}
	s.mu.Unlock()
	// The reasons of hunks already rejected first: rejecting the last
	// pending hunk ends the session, and its events come last.
	e.giveReason(s, already, reason)
	out := append([]string{}, already...)
	if len(pending) > 0 {
		decided, err := e.settle(s.id, pending, hunkRejected, reason, false)
		if err != nil {
			return nil, err
		}
		out = append(out, decided...)
	}
	return out, nil
}

// giveReason records why already rejected hunks were rejected: a rejected
// event again, now with the reason, and the plan document shows it.
func (e *Engine) giveReason(s *session, ids []string, reason string) {
	if len(ids) == 0 || reason == "" {
		return
	}
	s.mu.Lock()
	for _, id := range ids {
		if h := s.hunkByID(id); h != nil {
			h.reason = reason
		}
	}
	s.mu.Unlock()
	e.emit(s, EvRejected, DecisionData{Hunks: ids, Reason: reason})
	e.writePlan(s, true)
}

// takeFeedback reads what the user wrote in the plan document before a
// re-plan: a reason on a hunk's line rejects that hunk (or gives the reason
// of one already rejected), and the "## Notes" section and "Note:" lines
// are recorded as a notes event and sent to the architect.
func (e *Engine) takeFeedback(s *session) {
	text, err := e.planDocText(s)
	if err != nil {
		return // no document yet: nothing written in it
	}
	fb := planview.ReadFeedback(text)
	type given struct{ id, reason string }
	var reject, explain []given
	s.mu.Lock()
	for _, h := range s.hunks {
		r := cleanReason(fb.Reasons[h.hunk.ID])
		switch {
		case r == "":
		case h.status == hunkPending:
			reject = append(reject, given{h.hunk.ID, r})
		case h.status == hunkRejected && h.reason != r:
			explain = append(explain, given{h.hunk.ID, r})
		}
	}
	s.notes, s.stepNotes = fb.Notes, fb.Steps
	s.mu.Unlock()
	for _, g := range explain {
		e.giveReason(s, []string{g.id}, g.reason)
	}
	for _, g := range reject {
		if _, err := e.settle(s.id, []string{g.id}, hunkRejected, g.reason, true); err != nil {
			s.addLog("the rejection of %s written in the plan document was not taken: %v", g.id, err)
		}
	}
	if fb.Notes != "" || len(fb.Steps) > 0 {
		e.emit(s, EvNotes, NotesData{Notes: fb.Notes, Steps: fb.Steps})
	}
}

// keepNotes takes the "## Notes" section from the plan document as the
// user has it before the server writes the document again, so that a
// re-render never drops nor changes what the user wrote there.
func (e *Engine) keepNotes(s *session) {
	text, err := e.planDocText(s)
	if err != nil {
		return
	}
	notes := planview.ReadFeedback(text).Notes
	s.mu.Lock()
	s.notes = notes
	s.mu.Unlock()
}

// writeReview tells the architect what the user decided on the proposed
// hunks and what they noted on the plan; s.mu is held.
func (s *session) writeReview(b *strings.Builder) {
	var lines []string
	for _, h := range s.hunks {
		what := h.hunk.Summary
		switch h.status {
		case hunkAccepted:
			lines = append(lines, fmt.Sprintf("- The user accepted %s (%s).", h.hunk.ID, what))
		case hunkRejected:
			if h.reason != "" {
				lines = append(lines, fmt.Sprintf("- The user rejected %s: %s (%s: %s)", h.hunk.ID, h.reason, h.hunk.ID, what))
			} else {
				lines = append(lines, fmt.Sprintf("- The user rejected %s without saying why (%s: %s).", h.hunk.ID, h.hunk.ID, what))
			}
		}
	}
	if len(lines) > maxReviewLines {
		lines = append([]string{fmt.Sprintf("- (%d earlier decisions left out)", len(lines)-maxReviewLines)}, lines[len(lines)-maxReviewLines:]...)
	}
	if len(lines) > 0 {
		b.WriteString("\nThe user's review of the changes proposed so far (do not propose a rejected change again unless the user asks):\n\n" + strings.Join(lines, "\n") + "\n")
	}
	if s.notes != "" {
		b.WriteString("\nThe user's notes on the plan, as they wrote them:\n\n" + s.notes + "\n")
	}
	if len(s.stepNotes) > 0 {
		b.WriteString("\nThe user's notes on steps of your previous plan:\n\n")
		for _, n := range s.stepNotes {
			if n.Step > 0 {
				fmt.Fprintf(b, "- On step %d: %s\n", n.Step, n.Text)
			} else {
				fmt.Fprintf(b, "- %s\n", n.Text)
			}
		}
	}
}

// hasReview reports whether writeReview has anything to say; s.mu is held.
func (s *session) hasReview() bool {
	if s.notes != "" || len(s.stepNotes) > 0 {
		return true
	}
	for _, h := range s.hunks {
		if h.status == hunkAccepted || h.status == hunkRejected {
			return true
		}
	}
	return false
}
