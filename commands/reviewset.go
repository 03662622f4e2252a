package commands

import (
	"github.com/aide-lsp/aide-lsp/editapply"
)

// ReviewHunk is one pending hunk of a session's review set: the hunk, its
// file's absolute path, and the content its offsets are expressed against
// (the document when it was proposed, or when it was last re-located).
// Which hunks landed, still wait or went stale is judged from the edits
// these hunks make and the documents now (lsp/landed.go).
type ReviewHunk struct {
	Hunk editapply.Hunk
	Abs  string
	Base string
}

// ReviewSet is the session's review set: its pending hunks with their
// bases, in proposal order. The engine owns it: decisions (Decide, Stale,
// aide.accept, a re-plan's withdrawal) take hunks out of it, and Relocate
// moves them.
func (e *Engine) ReviewSet(sessionID string) []ReviewHunk {
	s, err := e.session(sessionID)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewHunk
	for _, h := range s.hunks {
		if h.status == hunkPending {
			out = append(out, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
		}
	}
	return out
}

// Relocate records pending hunks re-located in their documents' current
// content. Each moved hunk replaces the pending hunk of its id only while
// that one is still expressed against from[i], the base it was judged
// against: of two re-locations judged at once, the one judged on the
// newer content is kept.
func (e *Engine) Relocate(sessionID string, moved []ReviewHunk, from []string) {
	s, err := e.session(sessionID)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range moved {
		for _, h := range s.hunks {
			if h.hunk.ID == m.Hunk.ID && h.status == hunkPending && i < len(from) && h.base == from[i] {
				h.hunk, h.base = m.Hunk, m.Base
			}
		}
	}
}

// reviewBase is where a proposed hunk's review starts: its file's absolute
// path and current content (open buffer first).
func (e *Engine) reviewBase(h editapply.Hunk) (abs, base string) {
	abs, _, err := e.ws.Resolve(h.Path)
	if err != nil {
		return "", ""
	}
	text, _, _ := e.ws.Read(h.Path)
	return abs, text
}
