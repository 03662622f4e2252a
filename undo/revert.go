package undo

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Revert is one change that undoes recorded hunks: an editapply hunk
// expressed against the current content of its file, proposed or applied
// like any other.
type Revert struct {
	IDs  []string // the record's hunks it undoes
	Hunk editapply.Hunk
}

// Conflict is a recorded hunk that cannot be undone without overwriting
// what changed since: never reverted.
type Conflict struct {
	ID     string
	Path   string
	Line   int    // where the hunk's lines were, 1-based (0: the whole file)
	Reason string // one line, with the lines the hunk wrote
}

// Plan is what undoing hunks of a record takes: the reverts, the ids they
// undo, and the conflicts.
type Plan struct {
	Reverts   []Revert
	Undone    []string
	Conflicts []Conflict
}

// Reverts locates, in the current text (files: buffers over disk), the
// reverts of the record's hunks ids (every hunk still standing when ids is
// nil). Each hunk is found where it may have moved (editapply.Rebase): a
// hunk whose lines changed since, a file that was created again where the
// session deleted it, a hunk undone already, are conflicts. Hunks recorded
// with one Group are undone together. An unknown id is an error.
func Reverts(r *Record, files editapply.Files, ids []string) (Plan, error) {
	want := map[string]bool{}
	if ids == nil {
		ids = r.Standing()
	}
	for _, id := range ids {
		h := r.hunk(id)
		if h == nil {
			return Plan{}, fmt.Errorf("session %s has no hunk %s", r.Session, id)
		}
		want[id] = true
		if h.Group != "" {
			for _, o := range r.Hunks {
				if o.Group == h.Group {
					want[o.ID] = true
				}
			}
		}
	}
	var p Plan
	type located struct {
		ids  []string
		hunk editapply.Hunk
		h    *Hunk
	}
	perFile := map[string][]located{}
	var order []string
	done := map[string]bool{} // groups handled
	for i := range r.Hunks {
		h := &r.Hunks[i]
		if !want[h.ID] {
			continue
		}
		if h.UndoneBy != "" {
			p.Conflicts = append(p.Conflicts, Conflict{ID: h.ID, Path: h.Path, Line: h.Line,
				Reason: fmt.Sprintf("already undone by %s (undo that to bring it back)", h.UndoneBy)})
			continue
		}
		members := []string{h.ID}
		if h.Group != "" {
			if done[h.Group] {
				continue
			}
			done[h.Group] = true
			members = nil
			for _, o := range r.Hunks {
				if o.Group == h.Group {
					members = append(members, o.ID)
				}
			}
		}
		rev, why, err := revertOf(h, files)
		if err != nil {
			return Plan{}, err
		}
		if why != "" {
			for _, id := range members {
				p.Conflicts = append(p.Conflicts, Conflict{ID: id, Path: h.Path, Line: h.Line, Reason: why})
			}
			continue
		}
		if _, ok := perFile[rev.Path]; !ok {
			order = append(order, rev.Path)
		}
		perFile[rev.Path] = append(perFile[rev.Path], located{members, rev, h})
	}
	for _, path := range order {
		ls := perFile[path]
		var text []editapply.Hunk
		for _, l := range ls {
			if l.hunk.Kind == editapply.KindEdit {
				text = append(text, l.hunk)
			}
		}
		if overlapping(text) {
			// Reverts recorded at different times may share lines now:
			// undo them one after the other, newest first, on a running
			// text, and propose the whole difference as one hunk.
			merged, why := sequential(path, files, ls[0].hunk, func(yield func([]string, editapply.Hunk) bool) {
				for i := len(ls) - 1; i >= 0; i-- {
					if ls[i].hunk.Kind == editapply.KindEdit && !yield(ls[i].ids, ls[i].hunk) {
						return
					}
				}
			})
			var ids []string
			for _, l := range ls {
				if l.hunk.Kind == editapply.KindEdit {
					ids = append(ids, l.ids...)
				}
			}
			if why != "" {
				for _, id := range ids {
					p.Conflicts = append(p.Conflicts, Conflict{ID: id, Path: path, Reason: why})
				}
			} else {
				p.Reverts = append(p.Reverts, Revert{IDs: ids, Hunk: merged})
				p.Undone = append(p.Undone, ids...)
			}
			for _, l := range ls {
				if l.hunk.Kind != editapply.KindEdit {
					p.Reverts = append(p.Reverts, Revert{IDs: l.ids, Hunk: l.hunk})
					p.Undone = append(p.Undone, l.ids...)
				}
			}
			continue
		}
		for _, l := range ls {
			p.Reverts = append(p.Reverts, Revert{IDs: l.ids, Hunk: l.hunk})
			p.Undone = append(p.Undone, l.ids...)
		}
	}
	return p, nil
}

// revertOf is the hunk that undoes h in the current text, or why it cannot.
func revertOf(h *Hunk, files editapply.Files) (editapply.Hunk, string, error) {
	read := func(p string) (string, bool, error) {
		c, ok, err := files.Read(p)
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", p, err)
		}
		return c, ok, nil
	}
	switch h.Kind {
	case "rename":
		if _, ok, err := read(h.Path); err != nil {
			return editapply.Hunk{}, "", err
		} else if ok {
			return editapply.Hunk{}, fmt.Sprintf("%s exists again: renaming %s back would replace it", h.Path, h.NewPath), nil
		}
		if _, ok, err := read(h.NewPath); err != nil {
			return editapply.Hunk{}, "", err
		} else if !ok {
			return editapply.Hunk{}, fmt.Sprintf("%s, which the session renamed %s to, no longer exists", h.NewPath, h.Path), nil
		}
		return editapply.Hunk{ID: h.ID, Path: h.NewPath, Kind: editapply.KindRename, NewPath: h.Path,
			Summary: fmt.Sprintf("undo %s: rename %s back to %s", h.ID, h.NewPath, h.Path)}, "", nil
	case "delete":
		if _, ok, err := read(h.Path); err != nil {
			return editapply.Hunk{}, "", err
		} else if ok {
			return editapply.Hunk{}, fmt.Sprintf("%s, which the session deleted, exists again", h.Path), nil
		}
		return editapply.Hunk{ID: h.ID, Path: h.Path, Kind: editapply.KindWrite, Created: true, NewText: string(h.Before),
			Summary: fmt.Sprintf("undo %s: create %s again", h.ID, h.Path)}, "", nil
	}
	cur, ok, err := read(h.Path)
	if err != nil {
		return editapply.Hunk{}, "", err
	}
	if !ok {
		return editapply.Hunk{}, fmt.Sprintf("%s no longer exists", h.Path), nil
	}
	if h.Kind == "write" {
		if cur != string(h.After) {
			return editapply.Hunk{}, fmt.Sprintf("%s changed since the session wrote it", h.Path), nil
		}
		if h.Created {
			return editapply.Hunk{ID: h.ID, Path: h.Path, Kind: editapply.KindDelete, OldText: cur,
				Summary: fmt.Sprintf("undo %s: delete %s, which the session created", h.ID, h.Path)}, "", nil
		}
		return editapply.Hunk{ID: h.ID, Path: h.Path, Kind: editapply.KindEdit, Start: 0, End: len(cur), OldText: cur, NewText: string(h.Before),
			Summary: fmt.Sprintf("undo %s: %s as it was before", h.ID, h.Path)}, "", nil
	}
	rev := editapply.Hunk{ID: h.ID, Path: h.Path, Kind: editapply.KindEdit, Start: h.Start, End: h.Start + len(h.After),
		OldText: string(h.After), NewText: string(h.Before)}
	moved, st := editapply.Rebase(rev, cur)
	if st == editapply.RebaseStale {
		return editapply.Hunk{}, changedLines(h, cur), nil
	}
	line := 1 + strings.Count(cur[:moved.Start], "\n")
	moved.Summary = fmt.Sprintf("undo %s: %s:%d %s", h.ID, h.Path, line, plural(strings.Count(string(h.After), "\n"), "line"))
	return moved, "", nil
}

// changedLines says why an edit's lines cannot be found, with the lines.
func changedLines(h *Hunk, cur string) string {
	lines := strings.TrimRight(string(h.After), "\n")
	if len(lines) > 300 {
		lines = lines[:300] + "…"
	}
	if len(h.After) > 0 && strings.Count(cur, string(h.After)) > 1 {
		return fmt.Sprintf("%s:%d: the lines it wrote now stand in several places: %q", h.Path, h.Line, lines)
	}
	return fmt.Sprintf("%s:%d: the lines it wrote changed since: %q", h.Path, h.Line, lines)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// overlapping reports whether two of hs (one file's, against one text) overlap.
func overlapping(hs []editapply.Hunk) bool {
	s := slices.Clone(hs)
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	for i := 1; i < len(s); i++ {
		if s[i].Start < s[i-1].End || s[i].Start == s[i-1].End && s[i].Start == s[i].End && s[i-1].Start == s[i-1].End {
			return true
		}
	}
	return false
}

// sequential reverts edits one after the other on a running text of path
// and returns the whole difference as one hunk against the current text,
// or why one of them cannot be located.
func sequential(path string, files editapply.Files, first editapply.Hunk, each func(func([]string, editapply.Hunk) bool)) (editapply.Hunk, string) {
	cur, _, err := files.Read(path)
	if err != nil {
		return editapply.Hunk{}, err.Error()
	}
	text := cur
	why := ""
	var ids []string
	each(func(hid []string, h editapply.Hunk) bool {
		moved, st := editapply.Rebase(h, text)
		if st == editapply.RebaseStale {
			why = fmt.Sprintf("%s: the lines %s wrote changed since", path, strings.Join(hid, ", "))
			return false
		}
		next, err := editapply.Apply(text, []editapply.Hunk{moved})
		if err != nil {
			why = err.Error()
			return false
		}
		text = next
		ids = append(ids, hid...)
		return true
	})
	if why != "" {
		return editapply.Hunk{}, why
	}
	a := 0
	for a < len(cur) && a < len(text) && cur[a] == text[a] {
		a++
	}
	b := 0
	for b < len(cur)-a && b < len(text)-a && cur[len(cur)-1-b] == text[len(text)-1-b] {
		b++
	}
	// Whole lines, so the proposal reads as lines.
	a = strings.LastIndexByte(cur[:a], '\n') + 1
	for b > 0 && len(cur)-b > 0 && cur[len(cur)-b-1] != '\n' {
		b--
	}
	sort.Strings(ids)
	return editapply.Hunk{ID: first.ID, Path: path, Kind: editapply.KindEdit, Start: a, End: len(cur) - b,
		OldText: cur[a : len(cur)-b], NewText: text[a : len(text)-b],
		Summary: fmt.Sprintf("undo %s: %s:%d", strings.Join(ids, ", "), path, 1+strings.Count(cur[:a], "\n"))}, ""
}

// Lines locates an edit or write hunk h in text as its revert would (the
// lines it wrote, found once): the 0-based first and last line they hold
// now. ok is false when they cannot be found (changed, or in several
// places) or h is another kind.
func Lines(h *Hunk, text string) (from, to int, ok bool) {
	switch h.Kind {
	case "write":
		if text != string(h.After) {
			return 0, 0, false
		}
		return 0, strings.Count(text, "\n"), true
	case "edit":
	default:
		return 0, 0, false
	}
	rev := editapply.Hunk{Kind: editapply.KindEdit, Start: h.Start, End: h.Start + len(h.After), OldText: string(h.After)}
	at, st := editapply.Rebase(rev, text)
	if st == editapply.RebaseStale {
		return 0, 0, false
	}
	from = strings.Count(text[:at.Start], "\n")
	to = from + strings.Count(strings.TrimSuffix(string(h.After), "\n"), "\n")
	return from, to, true
}
