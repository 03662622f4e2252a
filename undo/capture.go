package undo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Add records hunks accepted together: every hunk of one file is expressed
// against the same content, the one read gives (the buffer or the file the
// hunks were applied to, read before they landed). A file's Before is kept
// from the first Add that touches it, its After from the last, so a session
// whose hunks are accepted one at a time records the file as it was before
// the session and as the session left it.
func (r *Record) Add(hunks []editapply.Hunk, read func(path string) (content string, exists bool, err error)) error {
	var order []string
	per := map[string][]editapply.Hunk{}
	for _, h := range hunks {
		if !validPath(h.Path) || h.Kind == editapply.KindRename && !validPath(h.NewPath) {
			return fmt.Errorf("undo: hunk %s has a path that is not workspace-relative", h.ID)
		}
		if r.hunk(h.ID) != nil {
			return fmt.Errorf("undo: hunk %s is recorded already", h.ID)
		}
		if _, ok := per[h.Path]; !ok {
			order = append(order, h.Path)
		}
		per[h.Path] = append(per[h.Path], h)
	}
	for _, p := range order {
		old, exists, err := read(p)
		if err != nil {
			return fmt.Errorf("undo: %s: %w", p, err)
		}
		if err := r.addFile(p, old, exists, per[p], read); err != nil {
			return err
		}
	}
	return nil
}

// Has says whether the hunk id is recorded already.
func (r *Record) Has(id string) bool { return r.hunk(id) != nil }

func (r *Record) hunk(id string) *Hunk {
	for i := range r.Hunks {
		if r.Hunks[i].ID == id {
			return &r.Hunks[i]
		}
	}
	return nil
}

// keep is a file content as a record keeps it whole (nil past MaxFileBytes).
func keep(content string, exists bool) *Content {
	if len(content) > MaxFileBytes {
		return nil
	}
	c := &Content{Exists: exists}
	if exists {
		c.Data = []byte(content)
	}
	return c
}

// state records a file's before (first time only) and after.
func (r *Record) state(p string, before, after *Content, beforeKnown bool) {
	f := r.file(p, false)
	if f == nil {
		f = r.file(p, true)
		if beforeKnown {
			f.Before = before
		}
	}
	f.After = after
}

// addFile records the hunks of one file, expressed against old.
func (r *Record) addFile(p, old string, exists bool, hs []editapply.Hunk, read func(string) (string, bool, error)) error {
	var edits []editapply.Hunk
	var del, ren *editapply.Hunk
	for i, h := range hs {
		switch h.Kind {
		case editapply.KindDelete:
			del = &hs[i]
		case editapply.KindRename:
			ren = &hs[i]
		case editapply.KindWrite:
			if len(hs) > 1 { // with other hunks it is an edit of the whole text (as commands.FileChanges reads it)
				edits = append(edits, h)
				continue
			}
			r.Hunks = append(r.Hunks, Hunk{ID: h.ID, Path: p, Kind: "write", Created: !exists,
				Before: []byte(old), After: []byte(h.NewText), Line: 1})
			r.state(p, keep(old, exists), keep(h.NewText, true), true)
			return nil
		default:
			edits = append(edits, h)
		}
	}
	if del != nil { // the edits of a deleted file are gone with it
		r.Hunks = append(r.Hunks, Hunk{ID: del.ID, Path: p, Kind: "delete", Before: []byte(old)})
		r.state(p, keep(old, exists), &Content{}, true)
		return nil
	}
	after, err := editapply.Apply(old, edits)
	if err != nil {
		return fmt.Errorf("undo: %s: %w", p, err)
	}
	at := p // where the edited text lives once the hunks landed
	if ren != nil {
		at = ren.NewPath
		prior, priorExists, err := read(ren.NewPath)
		if err != nil {
			return fmt.Errorf("undo: %s: %w", ren.NewPath, err)
		}
		r.state(p, keep(old, exists), &Content{}, true)
		r.state(at, keep(prior, priorExists), keep(after, true), true)
	} else {
		r.state(p, keep(old, exists), keep(after, true), true)
	}
	r.Hunks = append(r.Hunks, stretches(at, old, after, edits)...)
	if ren != nil {
		r.Hunks = append(r.Hunks, Hunk{ID: ren.ID, Path: p, Kind: "rename", NewPath: ren.NewPath})
	}
	return nil
}

// stretches records the edits of one file (against old; after is the
// result): each edit's lines in after, widened by context lines until they
// stand once in after, and what the same stretch held before. Edits whose
// stretches overlap are recorded with their union and one Group: reverting
// one would change the other's context, so they are undone together.
func stretches(p, old, after string, edits []editapply.Hunk) []Hunk {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	type span struct{ a, b, ls, le, group int }
	spans := make([]span, len(edits))
	shift := 0
	for i, h := range edits {
		a := h.Start + shift
		b := a + len(h.NewText)
		shift += len(h.NewText) - (h.End - h.Start)
		ls, le := unique(after, a, b)
		spans[i] = span{a, b, ls, le, i}
	}
	// Merge overlapping stretches until none overlap. (Stretches that only
	// touch are located and reverted each on its own.)
	for changed := true; changed; {
		changed = false
		for i := range spans {
			for j := range spans {
				si, sj := &spans[i], &spans[j]
				if si.group == sj.group || si.ls >= sj.le || sj.ls >= si.le {
					continue
				}
				ls, le := min(si.ls, sj.ls), max(si.le, sj.le)
				g := min(si.group, sj.group)
				for k := range spans {
					if spans[k].group == si.group || spans[k].group == sj.group {
						spans[k].ls, spans[k].le, spans[k].group = ls, le, g
					}
				}
				changed = true
			}
		}
	}
	// back maps a position of after that is outside every edit to old.
	back := func(pos int) int {
		d := 0
		for i, h := range edits {
			if spans[i].b <= pos && !(spans[i].a == spans[i].b && spans[i].a == pos) {
				d += len(h.NewText) - (h.End - h.Start)
			}
		}
		return pos - d
	}
	out := make([]Hunk, len(edits))
	for i, h := range edits {
		s := spans[i]
		rh := Hunk{ID: h.ID, Path: p, Kind: "edit", Start: s.ls, Line: 1 + strings.Count(after[:s.ls], "\n"),
			After: []byte(after[s.ls:s.le]), Before: []byte(old[back(s.ls):back(s.le)])}
		shared := 0
		for _, t := range spans {
			if t.group == s.group {
				shared++
			}
		}
		if shared > 1 {
			rh.Group = edits[s.group].ID
		}
		out[i] = rh
	}
	return out
}

// unique widens [a, b) of text to whole lines, then by one line above and
// below at a time, until the stretch is not empty and stands once in text
// (or is the whole text).
func unique(text string, a, b int) (int, int) {
	ls := strings.LastIndexByte(text[:a], '\n') + 1
	le := b
	if le > ls && text[le-1] == '\n' {
		// ends at a line end already
	} else if i := strings.IndexByte(text[le:], '\n'); i >= 0 {
		le += i + 1
	} else {
		le = len(text)
	}
	for {
		s := text[ls:le]
		if s != "" && once(text, s) || ls == 0 && le == len(text) {
			return ls, le
		}
		if ls > 0 {
			ls = strings.LastIndexByte(text[:ls-1], '\n') + 1
		}
		if le < len(text) {
			if i := strings.IndexByte(text[le:], '\n'); i >= 0 {
				le += i + 1
			} else {
				le = len(text)
			}
		}
	}
}

// once reports whether s stands exactly once in text, overlaps included
// (as editapply.Rebase counts).
func once(text, s string) bool {
	i := strings.Index(text, s)
	return i >= 0 && !strings.Contains(text[i+1:], s)
}
