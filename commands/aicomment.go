package commands

import (
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// AIComment is a task written in the code as a comment whose text starts
// with "AI:" (contract §4), with the comment lines that follow it.
type AIComment struct {
	Task      string // the comment text after "AI:", following lines joined with "\n"
	StartLine int    // 0-based line of the "AI:" comment
	EndLine   int    // 0-based last line of the block (inclusive)
}

// Title is the task on one line, for code-action titles.
func (c AIComment) Title() string { return strings.Join(strings.Fields(c.Task), " ") }

// commentMarkers gives the line-comment markers of a file by the language
// table (treesitter.LangOf); a file it does not know tries the common ones.
func commentMarkers(path string) []string {
	if l, ok := treesitter.LangOf(path); ok && len(l.Comments) > 0 {
		return l.Comments
	}
	return []string{"//", "#", "--", ";"}
}

// commentText returns the text of a comment on line (after the marker) and
// whether the whole line is a comment. A trailing comment on a code line is
// found too (wholeLine false). Block-comment delimiters are dropped.
func commentText(line string, markers []string) (text string, found, wholeLine bool) {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "/*") || (strings.HasPrefix(trimmed, "*") && !strings.HasPrefix(trimmed, "*/")) {
		t := strings.TrimPrefix(strings.TrimPrefix(trimmed, "/*"), "*")
		t = strings.TrimSuffix(strings.TrimSpace(t), "*/")
		return strings.TrimSpace(t), true, true
	}
	for _, m := range markers {
		if strings.HasPrefix(trimmed, m) {
			return strings.TrimSpace(strings.TrimLeft(trimmed[len(m):], m[:1])), true, true
		}
	}
	// A trailing comment: the first marker followed by "AI:".
	for _, m := range markers {
		for i := 0; i+len(m) <= len(line); {
			j := strings.Index(line[i:], m)
			if j < 0 {
				break
			}
			rest := strings.TrimSpace(line[i+j+len(m):])
			if hasAIPrefix(rest) {
				return rest, true, false
			}
			i += j + len(m)
		}
	}
	return "", false, false
}

func hasAIPrefix(s string) bool {
	return len(s) >= 3 && strings.EqualFold(s[:2], "AI") && s[2] == ':'
}

// maxAICommentLines bounds the following comment lines taken into a task, so
// a long license header under an AI comment does not become the task.
const maxAICommentLines = 20

// FindAIComment finds the AI comment at line (0-based) of a file's text, or
// in the comment block line is part of, or on the line just above or below
// it. ok is false when there is none.
func FindAIComment(path, text string, line int) (c AIComment, ok bool) {
	lines := strings.Split(text, "\n")
	markers := commentMarkers(path)
	for _, probe := range []int{line, line - 1, line + 1} {
		if probe < 0 || probe >= len(lines) {
			continue
		}
		// Walk up through the comment block holding probe to its AI: line.
		for i := probe; i >= 0 && probe-i <= maxAICommentLines; i-- {
			t, found, whole := commentText(lines[i], markers)
			if !found {
				break
			}
			if hasAIPrefix(t) {
				return aiBlock(lines, i, markers), true
			}
			if !whole {
				break
			}
		}
	}
	return AIComment{}, false
}

// aiBlock collects the AI comment at start and the whole-line comments that
// follow it (up to a blank comment, another AI comment or code).
func aiBlock(lines []string, start int, markers []string) AIComment {
	first, _, whole := commentText(lines[start], markers)
	parts := []string{strings.TrimSpace(first[3:])}
	end := start
	if whole {
		for i := start + 1; i < len(lines) && i-start <= maxAICommentLines; i++ {
			t, found, w := commentText(lines[i], markers)
			if !found || !w || t == "" || hasAIPrefix(t) {
				break
			}
			parts = append(parts, t)
			end = i
		}
	}
	return AIComment{Task: strings.TrimSpace(strings.Join(parts, "\n")), StartLine: start, EndLine: end}
}

// TaskFromAIComment takes a task from the first AI comment of the focus
// files (contract §4) and says in which of them it is (its index in files).
// The task is empty when none holds one.
func TaskFromAIComment(ws *workspace.Workspace, files []string) (task string, file int) {
	for i, f := range files {
		text, ok, err := ws.Read(f)
		if err != nil || !ok {
			continue
		}
		for l, n := 0, strings.Count(text, "\n"); l <= n; l++ {
			if c, ok := FindAIComment(f, text, l); ok && c.Task != "" {
				return c.Task, i
			}
		}
	}
	return "", 0
}

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
