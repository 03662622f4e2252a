package commands

import (
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// aiCommentHunk is the propose step's hunk that removes the AI comment the
// task was taken from (contract §4), proposed beside the hunks of the turn
// and reviewed like them: accepting it removes the comment, rejecting it
// keeps the comment, and accepting the change without it leaves the comment
// for the user to delete. It is numbered after them.
//
// Why alongside and not after acceptance: a second proposal after the user
// accepted would need a second review round (a second Refactor Preview in
// VS Code, a second round of code actions in Helix) for one deletion; one
// review of everything is less to do and the comment's hunk can still be
// declined on its own.
//
// ok is false when the task did not come from a whole-line AI comment in the
// session's first focus file (a typed task leaves comments alone, even one
// with the same words), when the comment is gone, or when a proposed
// hunk already touches the comment's lines (the model removed or rewrote it
// itself).
func (e *Engine) aiCommentHunk(s *session, proposed []editapply.Hunk) (editapply.Hunk, bool) {
	s.mu.Lock()
	task, fromComment := s.task, s.fromComment
	var path string
	if len(s.focus) > 0 {
		path = s.focus[0]
	}
	s.mu.Unlock()
	if path == "" || !fromComment {
		return editapply.Hunk{}, false
	}
	text, exists, err := e.ws.Read(path)
	if err != nil || !exists {
		return editapply.Hunk{}, false
	}
	lines := strings.SplitAfter(text, "\n")
	markers := commentMarkers(path)
	for l := range lines {
		c, ok := FindAIComment(path, text, l)
		if !ok || c.StartLine != l || c.Task != task {
			continue
		}
		if _, _, whole := commentText(lines[c.StartLine], markers); !whole {
			return editapply.Hunk{}, false // a trailing comment on a code line: leave the code alone
		}
		start := 0
		for _, ln := range lines[:c.StartLine] {
			start += len(ln)
		}
		end := start
		for _, ln := range lines[c.StartLine : c.EndLine+1] {
			end += len(ln)
		}
		h := editapply.Hunk{
			Path: path, Kind: editapply.KindEdit, Start: start, End: end, OldText: text[start:end],
			Summary: fmt.Sprintf("%s:%d remove the AI comment (the task is done)", path, c.StartLine+1),
		}
		touches := func(o editapply.Hunk) bool {
			return o.Path == path && (o.Kind != editapply.KindEdit || o.Start < end && start < o.End)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, o := range proposed {
			if touches(o) {
				return editapply.Hunk{}, false
			}
		}
		for _, o := range s.hunks {
			if o.status == hunkPending && touches(o.hunk) {
				return editapply.Hunk{}, false
			}
		}
		s.nextHunk++
		h.ID = fmt.Sprintf("h%d", s.nextHunk)
		return h, true
	}
	return editapply.Hunk{}, false
}
