package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// Titles of the two code actions of contract §4 and of the plan-document
// actions (contract §5, file form): the command table's.
const (
	TitleArchitect   = commands.TitleArchitect
	TitleEdit        = commands.TitleEdit
	TitleApprovePlan = commands.TitleApprovePlan
	TitleReplan      = commands.TitleReplan
	TitleDiscard     = commands.TitleDiscard
	// TitleApproveWith is followed by a model id: approve, with the editor
	// call on that model (the plan document prices each).
	TitleApproveWith = "AIDE: Approve with "
	// TitleRerun is followed by a stale hunk's id: the editor again for
	// that change, against the user's current text (aide.rerunHunk).
	TitleRerun = "AIDE: Re-run the editor for "
)

// CommandArg is the argument of aide.architect and aide.edit as the code
// actions send it. Task is set when the action was offered on an AI comment.
type CommandArg struct {
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
	Task  string         `json:"task,omitempty"`
}

// maxTitleTask bounds the task text in a code-action title: menus are one
// line, and the whole task still travels in the command's argument.
const maxTitleTask = 80

// codeAction answers at once: no model call, nothing to resolve (Helix
// blocks its UI on resolve). It offers, in order: the review actions of
// pending proposals on the range, the plan-document actions inside a plan
// file, and the two AIDE actions (titled with the task on an AI comment).
func (s *Server) codeAction(ctx context.Context, params []byte) (any, error) {
	var p struct {
		codeActionParams
		Context struct {
			Only []string `json:"only"`
		} `json:"context"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	actions := []codeAction{}
	abs := uriPath(p.TextDocument.URI)
	if kindWanted(ReviewActionKind, p.Context.Only) && abs != "" {
		actions = append(actions, s.reviewActions(ctx, abs, p.Range)...)
	}
	if !kindWanted(CodeActionKind, p.Context.Only) {
		return actions, nil
	}
	if eng := s.eng(); abs != "" {
		if session, ok := eng.SessionForPlanFile(abs); ok {
			suffix := ""
			if filepath.Base(abs) == commands.LatestPlanName {
				// The stable path shows whichever session is newest: say which.
				suffix = " — session " + session
			}
			actions = append(actions, planActions(eng, session, suffix)...)
			v, _ := eng.View(session)
			return append(actions, s.planUndoAction(session, v.Task, suffix)...), nil
		}
	}
	arg := CommandArg{URI: p.TextDocument.URI, Range: p.Range}
	suffix := ""
	if abs != "" {
		if c, ok := s.findAIComment(abs, int(p.Range.Start.Line)); ok && c.Task != "" {
			arg.Task = c.Task
			suffix = ": " + shorten(c.Title(), maxTitleTask)
		}
	}
	for _, a := range []struct{ title, cmd string }{
		{TitleArchitect, commands.CmdArchitect},
		{TitleEdit, commands.CmdEdit},
	} {
		actions = append(actions, codeAction{
			Title: a.title + suffix, Kind: CodeActionKind,
			Command: &command{Title: a.title + suffix, Command: a.cmd, Arguments: []any{arg}},
		})
	}
	return append(actions, s.lineUndoActions(abs, int(p.Range.Start.Line))...), nil
}

// aiCommentReach is how many lines around the cursor line findAIComment
// hands to commands.FindAIComment: it probes the lines next to the cursor
// and walks at most maxAICommentLines (20) up and down from them, so 64 is
// ample (TestFindAICommentWindowMatchesWholeText checks blocks far longer).
const aiCommentReach = 64

// findAIComment is commands.FindAIComment on the current text of abs. For
// an open buffer it looks at the lines around line only: copying and
// splitting a 10,000-line document on every codeAction cost more than the
// rest of the request.
func (s *Server) findAIComment(abs string, line int) (commands.AIComment, bool) {
	lo, hi := line-aiCommentReach, line+aiCommentReach+1
	text, first, count, ok := s.docs.Lines(abs, lo, hi)
	if !ok {
		return commands.FindAIComment(abs, s.content(abs), line)
	}
	if hi < count {
		// text ends with the '\n' of line hi-1, which FindAIComment would
		// read as an empty line hi; the reach keeps it out of sight, but
		// drop it so no caller ever sees a line the buffer does not have.
		text = strings.TrimSuffix(text, "\n")
	}
	c, ok := commands.FindAIComment(abs, text, line-first)
	if ok {
		c.StartLine += first
		c.EndLine += first
	}
	return c, ok
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// planActions are approve, re-plan and discard inside a session's plan
// file; suffix ends every title (latest.md names the session it shows).
func planActions(eng Engine, session, suffix string) []codeAction {
	arg := commands.SessionArg{Session: session}
	var out []codeAction
	add := func(title, cmd string) {
		title += suffix
		out = append(out, codeAction{Title: title, Kind: CodeActionKind, Command: &command{Title: title, Command: cmd, Arguments: []any{arg}}})
	}
	v, _ := eng.View(session)
	if v.State == commands.StateWaiting {
		add(TitleApprovePlan, commands.CmdApprovePlan)
		for _, m := range v.ApproveWith {
			title := TitleApproveWith + m + suffix
			with := commands.ApproveArgs{Session: session, EditorModel: m}
			out = append(out, codeAction{Title: title, Kind: CodeActionKind, Command: &command{Title: title, Command: commands.CmdApprovePlan, Arguments: []any{with}}})
		}
	}
	switch {
	case v.State == commands.StatePlanning || v.State == commands.StateEditing:
	case v.State == commands.StateWaiting && len(v.Drift) > 0:
		// Live drift (contract §7): the plan is older than these files.
		add(TitleReplan+" (changed since the plan: "+shorten(strings.Join(v.Drift, ", "), maxTitleTask)+")", commands.CmdReplan)
	default:
		add(TitleReplan, commands.CmdReplan)
	}
	if v.State == commands.StateProposed || v.State == commands.StateDone {
		// A hunk the user's edit made stale: their text is kept; this asks
		// the editor to make the change again on it.
		for _, h := range v.Hunks {
			if h.Edited && !h.AIComment {
				title := TitleRerun + h.Hunk.ID + " on the current text (" + shorten(h.Hunk.Summary, maxTitleTask) + ")" + suffix
				rerun := commands.RerunArgs{Session: session, Hunks: []string{h.Hunk.ID}}
				out = append(out, codeAction{Title: title, Kind: CodeActionKind, Command: &command{Title: title, Command: commands.CmdRerunHunk, Arguments: []any{rerun}}})
			}
		}
	}
	switch v.State {
	case commands.StateDone, commands.StateCancelled, commands.StateFailed:
	default:
		add(TitleDiscard, commands.CmdCancel)
	}
	return out
}

// tracked is a pending hunk and its file.
type tracked struct {
	hunk editapply.Hunk
	abs  string
}

// reviewActions are the accept/reject actions of the pending code-action
// hunks whose lines meet rng, then accept-all and reject-all of their
// sessions. The accept actions carry the versioned edit (the editor applies
// it, then runs the command that tells the server).
func (s *Server) reviewActions(ctx context.Context, abs string, rng protocol.Range) []codeAction {
	profile := s.Profile()
	enc := profile.Encoding
	build := func(hunks []editapply.Hunk) *protocol.WorkspaceEdit {
		we := editapply.BuildWorkspaceEdit(hunks, s.docFor, editapply.BuildOptions{Encoding: enc, ResourceOps: profile.ResourceOps()})
		return &we
	}
	type sessionHunks struct {
		id, task string
		all      []editapply.Hunk
	}
	var per, all []codeAction
	var touched []sessionHunks
	// The text is needed only when a pending hunk is in this file.
	var cur string
	curRead := false
	for _, rs := range inPlace(s.currentReview(ctx)) {
		hit := false
		var hunks []editapply.Hunk
		for _, rh := range rs.Hunks {
			hunks = append(hunks, rh.Hunk)
		}
		labels := s.runsCodeLabels(hunks, rs.Labels)
		hunks = nil
		for _, rh := range rs.Hunks {
			t := tracked{hunk: rh.Hunk, abs: rh.Abs}
			hunks = append(hunks, t.hunk)
			if t.abs != abs {
				continue
			}
			if !curRead {
				cur, curRead = s.content(abs), true
			}
			hr := editapply.HunkRange(t.hunk, cur, enc)
			if hr.Start.Line > rng.End.Line || rng.Start.Line > hr.End.Line {
				continue
			}
			if len(s.vetPaths(rs.Session, []editapply.Hunk{t.hunk})) == 0 {
				continue // its path is refused now: it goes stale
			}
			edit := build([]editapply.Hunk{t.hunk})
			hit = true
			d := diagnostic{Range: hr, Severity: 3, Source: "aide", Code: ProposalCode,
				Message: proposalMessage(t.hunk, labels[t.hunk.ID]), Data: hunkRef{rs.Session, t.hunk.ID}}
			one := commands.AcceptArgs{Session: rs.Session, Hunks: []string{t.hunk.ID}}
			per = append(per,
				codeAction{
					Title: fmt.Sprintf("AIDE: Accept %s — %s", t.hunk.ID, t.hunk.Summary), Kind: ReviewActionKind,
					Diagnostics: []diagnostic{d}, IsPreferred: true, Edit: edit,
					Command: &command{Title: "AIDE: accept", Command: commands.CmdAccept, Arguments: []any{one}},
				},
				codeAction{
					Title: fmt.Sprintf("AIDE: Reject %s — %s", t.hunk.ID, t.hunk.Summary), Kind: ReviewActionKind,
					Diagnostics: []diagnostic{d},
					Command:     &command{Title: "AIDE: reject", Command: commands.CmdReject, Arguments: []any{one}},
				})
		}
		if hit {
			touched = append(touched, sessionHunks{rs.Session, rs.Task, hunks})
		}
	}
	for _, t := range touched {
		vetted := s.vetPaths(t.id, t.all)
		if len(vetted) == 0 {
			continue
		}
		ids := make([]string, len(vetted))
		for i, h := range vetted {
			ids[i] = h.ID
		}
		arg := commands.AcceptArgs{Session: t.id, Hunks: ids}
		allEdit := build(vetted)
		all = append(all,
			codeAction{
				Title: fmt.Sprintf("AIDE: Accept all %d changes of %q", len(ids), shorten(t.task, maxTitleTask)), Kind: ReviewActionKind,
				Edit:    allEdit,
				Command: &command{Title: "AIDE: accept all", Command: commands.CmdAccept, Arguments: []any{arg}},
			},
			codeAction{
				Title: fmt.Sprintf("AIDE: Reject all %d changes of %q", len(ids), shorten(t.task, maxTitleTask)), Kind: ReviewActionKind,
				Command: &command{Title: "AIDE: reject all", Command: commands.CmdReject, Arguments: []any{arg}},
			})
	}
	return append(per, all...)
}

// kindWanted applies context.only: a kind matches a filter equal to it or
// to one of its dot-separated prefixes.
func kindWanted(kind string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}
