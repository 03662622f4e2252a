package lsp

import (
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// hunkFate is what became of a pending hunk once its document changed.
type hunkFate int

const (
	fatePending hunkFate = iota // its old text still stands: not applied (yet)
	fateLanded                  // its new text stands where the old text was: applied
	fateStale                   // neither: the user changed that place; never apply it
)

// classify decides, from the documents' contents alone, whether a hunk
// expressed against base landed in cur, is still pending (the returned hunk
// is re-located in cur), or went stale. The editor's own answer is never
// trusted for this: Neovim answers applied:true for an edit it skipped, and
// a VS Code user may untick single changes in the Refactor Preview.
//
// A hunk is recognised by its text together with the line before and the
// line after it in base, so a hunk whose new text merely contains its old
// text (an insertion after a line) is not mistaken for pending; without that
// anchor (a neighbouring hunk changed those lines too) the bare texts decide
// only when they are unambiguous.
func classify(h editapply.Hunk, base, cur string) (editapply.Hunk, hunkFate) {
	switch {
	case h.Kind == editapply.KindWrite || h.Created:
		if cur == h.NewText {
			return h, fateLanded
		}
	case h.Kind != editapply.KindEdit:
		r, st := editapply.Rebase(h, cur)
		if st == editapply.RebaseStale {
			return h, fateStale
		}
		return r, fatePending
	}
	if h.Kind == editapply.KindEdit && h.Start >= 0 && h.End <= len(base) && h.Start <= h.End {
		pre := base[lineStart(base, lineStart(base, h.Start)-1):h.Start]
		post := base[h.End:lineEnd(base, h.End)]
		// The widest anchor first; a narrower one when a neighbouring hunk
		// changed the line on one side. An anchor decides only when exactly
		// one of "landed" and "still pending" matches uniquely.
		for i, anchor := range [][2]string{{pre, post}, {pre, ""}, {"", post}} {
			side := anchor[0] + anchor[1]
			if side == "" || i > 0 && strings.Count(base, side) != 1 {
				continue // a one-sided anchor must be a line found once ("}" is no anchor)
			}
			landed := strings.Count(cur, anchor[0]+h.NewText+anchor[1]) == 1
			old := anchor[0] + h.OldText + anchor[1]
			pending := strings.Count(cur, old) == 1
			switch {
			case landed && !pending:
				return h, fateLanded
			case pending && !landed:
				at := strings.Index(cur, old) + len(anchor[0])
				moved := h
				moved.Start, moved.End = at, at+len(h.OldText)
				return moved, fatePending
			}
		}
		if h.NewText != "" && h.OldText != "" && strings.Count(cur, h.NewText) == 1 && !strings.Contains(cur, h.OldText) {
			return h, fateLanded
		}
		if strings.Count(base, h.OldText) > 1 {
			// Its twin elsewhere would be found instead: never guess.
			return h, fateStale
		}
	}
	r, st := editapply.Rebase(h, cur)
	if st == editapply.RebaseStale {
		return h, fateStale
	}
	return r, fatePending
}

// lineStart is the offset of the start of the line holding offset i.
func lineStart(s string, i int) int {
	if i <= 0 {
		return 0
	}
	if i > len(s) {
		i = len(s)
	}
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// lineEnd is the offset just past the newline ending the line holding
// offset i (len(s) on the last line).
func lineEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if i < 0 {
		i = 0
	}
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return len(s)
	}
	return i + j + 1
}
