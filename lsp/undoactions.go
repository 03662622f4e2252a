package lsp

import (
	"strings"

	"github.com/aide-lsp/aide-lsp/commands"
)

// TitleUndo is followed by a session's task: undo that session's accepted
// hunks (aide.undo, contract §4). On a line a session changed, the same
// title ending in "(<id> only)" undoes that hunk alone.
const TitleUndo = "AIDE: Undo "

// undoer is the engine's side of the undo code actions (commands.Engine).
type undoer interface {
	UndoOffers(abs string, line int) []commands.UndoOffer
	UndoCount(session string) int
}

func (s *Server) undoer() undoer {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, _ := s.engine.(undoer)
	return u
}

// undoTitle is the title of an undo of task, with a suffix.
func undoTitle(task, suffix string) string {
	t := strings.Join(strings.Fields(task), " ")
	return TitleUndo + shorten(t, maxTitleTask) + suffix
}

func undoAction(title string, arg map[string]any) codeAction {
	return codeAction{Title: title, Kind: CodeActionKind, Command: &command{Title: title, Command: commands.CmdUndo, Arguments: []any{arg}}}
}

// lineUndoActions are the undos offered on a line a session changed: the
// whole session, then that hunk alone, for each session (newest first).
func (s *Server) lineUndoActions(abs string, line int) []codeAction {
	u := s.undoer()
	if u == nil || abs == "" {
		return nil
	}
	var out []codeAction
	for _, o := range u.UndoOffers(abs, line) {
		out = append(out,
			undoAction(undoTitle(o.Task, ""), map[string]any{"session": o.Session}),
			undoAction(undoTitle(o.Task, " ("+o.Hunk+" only)"), map[string]any{"session": o.Session, "hunks": []string{o.Hunk}}))
	}
	return out
}

// planUndoAction is the undo offered in a session's plan document while
// it has accepted hunks still standing.
func (s *Server) planUndoAction(session, task, suffix string) []codeAction {
	u := s.undoer()
	if u == nil || u.UndoCount(session) == 0 {
		return nil
	}
	return []codeAction{undoAction(undoTitle(task, suffix), map[string]any{"session": session})}
}
