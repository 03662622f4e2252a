package commands

import (
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// fate is what became of a pending hunk once its document changed.
type fate int

// Fates.
const (
	fatePending fate = iota // its old text still stands: not applied (yet)
	fateLanded              // its new text stands where the old text was: applied
	fateStale               // neither: the user changed that place; never apply it
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
func classify(h editapply.Hunk, base, cur string) (editapply.Hunk, fate) {
	switch {
	case h.Kind == editapply.KindWrite || h.Created:
		if cur == h.NewText {
			return h, fateLanded
		}
	case (h.Kind == editapply.KindDelete || h.Kind == editapply.KindRename) && base != "" && cur == "":
		// The file is gone from its path (contents alone tell no more; an
		// emptied file reads the same): the delete or the rename landed.
		return h, fateLanded
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

// verdict is what became of one hunk of the review set.
type verdict struct {
	Hunk editapply.Hunk // re-located in the current content when pending
	Fate fate
}

// judge decides the fate of pending hunks from the current contents. The
// hunks of one document expressed against the same base are first matched
// as a whole: the edits the server sends are those hunks' TextEdits, so
// when the document now reads exactly as the base with some of them
// applied, those landed and the others are pending, moved by the landed
// ones before them. That decides adjacent hunks, deletions and hunks whose
// context overlaps, with full or incremental sync, where looking around
// each hunk alone cannot (a deletion right above an edited line has no
// context left). Only a document that matches no such combination (the
// user typed too) falls back to classify, hunk by hunk.
//
// content reports whether the document could be read at all: a file that
// is not there reads as "" just like an empty one, and a creation of an
// empty file must not count as landed before the file exists.
func judge(ts []ReviewHunk, content func(abs string) (string, bool)) []verdict {
	out := make([]verdict, len(ts))
	done := make([]bool, len(ts))
	type group struct{ abs, base string }
	groups := map[group][]int{}
	var order []group
	for i, t := range ts {
		g := group{t.Abs, t.Base}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	for _, g := range order {
		idx := groups[g]
		hunks := make([]editapply.Hunk, len(idx))
		for k, i := range idx {
			hunks[k] = ts[i].Hunk
		}
		cur, exists := content(g.abs)
		if !exists {
			continue // a missing document: each hunk alone, below
		}
		landed, ok := landedSubset(g.base, cur, hunks)
		if !ok {
			continue
		}
		for k, i := range idx {
			h := hunks[k]
			if landed[k] {
				out[i], done[i] = verdict{h, fateLanded}, true
				continue
			}
			shift := 0
			for m, o := range hunks {
				if landed[m] && o.End <= h.Start {
					shift += len(o.NewText) - len(o.OldText)
				}
			}
			h.Start, h.End = h.Start+shift, h.End+shift
			out[i], done[i] = verdict{h, fatePending}, true
		}
	}
	for i, t := range ts {
		if done[i] {
			continue
		}
		cur, exists := content(t.Abs)
		if !exists && (t.Hunk.Kind == editapply.KindWrite || t.Hunk.Created) {
			out[i] = verdict{t.Hunk, fatePending} // nothing written there yet
			continue
		}
		h, f := classify(t.Hunk, t.Base, cur)
		out[i] = verdict{h, f}
	}
	return out
}

// maxSubsetHunks bounds the hunks of one document whose every combination
// is tried (2ⁿ texts); above it only "all", "none", each one alone and all
// but one are, which covers accept-all, accept-one and reject-one.
const maxSubsetHunks = 8

// landedSubset finds which of hunks (text edits against base that do not
// overlap) were applied to give cur; ok is false when no combination gives
// cur or a hunk is not a text edit of base.
func landedSubset(base, cur string, hunks []editapply.Hunk) ([]bool, bool) {
	n := len(hunks)
	if n == 0 {
		return nil, false
	}
	sorted := make([]int, n)
	for i, h := range hunks {
		if h.Kind != editapply.KindEdit || h.Created || h.Start < 0 || h.End > len(base) || h.Start > h.End || base[h.Start:h.End] != h.OldText {
			return nil, false
		}
		sorted[i] = i
	}
	sortByStart(sorted, hunks)
	for k := 1; k < n; k++ {
		if hunks[sorted[k]].Start < hunks[sorted[k-1]].End {
			return nil, false // overlapping: not from one edit of ours
		}
	}
	try := func(set []bool) bool {
		var b strings.Builder
		at := 0
		for _, i := range sorted {
			if !set[i] {
				continue
			}
			h := hunks[i]
			b.WriteString(base[at:h.Start])
			b.WriteString(h.NewText)
			at = h.End
		}
		b.WriteString(base[at:])
		return b.String() == cur
	}
	var candidates [][]bool
	if n <= maxSubsetHunks {
		for mask := (1 << n) - 1; mask >= 0; mask-- {
			set := make([]bool, n)
			for i := range set {
				set[i] = mask&(1<<i) != 0
			}
			candidates = append(candidates, set)
		}
	} else {
		all, none := make([]bool, n), make([]bool, n)
		for i := range all {
			all[i] = true
		}
		candidates = append(candidates, all, none)
		for i := 0; i < n; i++ {
			one, butOne := make([]bool, n), make([]bool, n)
			for j := range butOne {
				butOne[j] = j != i
			}
			one[i] = true
			candidates = append(candidates, one, butOne)
		}
	}
	for _, set := range candidates {
		if try(set) {
			return set, true
		}
	}
	return nil, false
}

func sortByStart(idx []int, hunks []editapply.Hunk) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && hunks[idx[j]].Start < hunks[idx[j-1]].Start; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}
