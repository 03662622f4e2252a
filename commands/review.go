package commands

import (
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// AICommentHunk adds to a session, beside its proposed hunks, a pending hunk
// of its own that removes the AI comment the task was taken from (contract
// §4), and returns it. The client calls it when it receives the proposal
// (Client.Propose), so the removal is reviewed like any other hunk: accepting
// it removes the comment, rejecting it keeps the comment, and accepting the
// change without it leaves the comment for the user to delete.
//
// Why alongside and not after acceptance: a second proposal after the user
// accepted would need a second review round (a second Refactor Preview in
// VS Code, a second round of code actions in Helix) for one deletion; one
// review of everything is less to do and the comment's hunk can still be
// declined on its own.
//
// ok is false when the task did not come from a whole-line AI comment in the
// session's first focus file, when the comment is gone, or when a proposed
// hunk already touches the comment's lines (the model removed or rewrote it
// itself).
func (e *Engine) AICommentHunk(sessionID string) (editapply.Hunk, bool) {
	s, err := e.session(sessionID)
	if err != nil {
		return editapply.Hunk{}, false
	}
	s.mu.Lock()
	task := s.task
	var path string
	if len(s.focus) > 0 {
		path = s.focus[0]
	}
	s.mu.Unlock()
	if path == "" {
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
		s.mu.Lock()
		for _, o := range s.hunks {
			if o.status == hunkPending && o.hunk.Path == path && (o.hunk.Kind != editapply.KindEdit || o.hunk.Start < end && start < o.hunk.End) {
				s.mu.Unlock()
				return editapply.Hunk{}, false
			}
		}
		s.nextHunk++
		h.ID = fmt.Sprintf("h%d", s.nextHunk)
		s.hunks = append(s.hunks, &hunkState{hunk: h, status: hunkPending})
		s.mu.Unlock()
		e.emit(s, "proposal", map[string]any{"hunks": []map[string]any{{"id": h.ID, "path": h.Path, "kind": string(h.Kind), "summary": h.Summary}}, "aiComment": true})
		e.rediff(sessionID) // the plan document's diff shows the removal too

		return h, true
	}
	return editapply.Hunk{}, false
}
