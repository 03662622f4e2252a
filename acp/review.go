package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// Per-hunk review (docs/contract.md §10): the engine runs it
// (commands.Engine.Next and Answer: which hunk is next, what it is judged
// against, withdrawn, landed or written, and its title); this file only
// translates. Each question is a tool call whose one diff is the whole
// current file before and with only that hunk applied, then a permission
// request; each outcome is the tool call's final update. Files go through
// the client's fs/* methods when it offers both (files).

// review asks about every pending hunk of the aide session in turn; it
// reports whether the turn was cancelled, and the hunk whose question was
// left unanswered then.
func (s *session) review(ctx context.Context, id string) (cancelled bool, asked string) {
	f := s.files()
	for {
		step, ok := s.r.eng.Next(ctx, id, f)
		if !ok {
			return ctx.Err() != nil, ""
		}
		if v, ok := s.r.view(id); ok {
			s.sendEntries(ctx, v, "")
		}
		if step.Settled != nil {
			s.outcome(ctx, id, *step.Settled, false)
			continue
		}
		q := *step.Ask
		tc := hunkToolID(id, q.ID)
		call := hunkCall(tc, id, q)
		s.update(ctx, sdk.SessionUpdate{ToolCall: &call})
		resp, err := s.ask(ctx, sdk.RequestPermissionRequest{SessionId: s.id, ToolCall: sdk.ToolCallUpdate{
			ToolCallId: tc, Title: sdk.Ptr(call.Title), Kind: sdk.Ptr(call.Kind), Status: sdk.Ptr(sdk.ToolCallStatusPending),
			Content: call.Content, Locations: call.Locations, RawInput: call.RawInput,
		}, Options: []sdk.PermissionOption{
			{OptionId: optAccept, Name: "Accept this hunk", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optReject, Name: "Reject this hunk", Kind: sdk.PermissionOptionKindRejectOnce},
		}})
		if err != nil || resp.Outcome.Selected == nil {
			return true, q.ID
		}
		// Any option but accept (reject, or one never offered) rejects. An
		// answer given is carried out even when a cancel follows at once
		// (agent-shell cancels after every reject): the cancel stops the
		// turn's work, not what the user decided.
		o, ok := s.r.eng.Answer(context.WithoutCancel(ctx), id, q.ID, resp.Outcome.Selected.OptionId == optAccept, f)
		if ok {
			s.outcome(ctx, id, o, true)
		}
	}
}

// closeAsked is the final update of a hunk whose question a cancel left
// unanswered, with what the engine made of it (withdrawn by aide.cancel).
func (s *session) closeAsked(ctx context.Context, id, hunk string) {
	v, _ := s.r.view(id)
	decision, reason := "withdrawn", "the turn was cancelled before it was answered"
	for _, h := range v.Hunks {
		if h.Hunk.ID == hunk && h.Status != "stale" && h.Status != "pending" {
			decision, reason = string(h.Status), ""
		}
	}
	out := map[string]any{"decision": decision}
	if reason != "" {
		out["reason"] = reason
	}
	s.update(ctx, sdk.UpdateToolCall(hunkToolID(id, hunk), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateRawOutput(out)))
}

// files is how the engine reads and writes this client's files: through
// its buffers when it offers both fs methods.
func (s *session) files() commands.Files {
	fs := s.a.clientCaps().Fs
	return commands.Files{
		Buffers: fs.ReadTextFile && fs.WriteTextFile,
		Read: func(ctx context.Context, abs string) (string, error) {
			r, err := s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: s.id, Path: abs})
			return r.Content, err
		},
		Write: func(ctx context.Context, abs, text string) error {
			_, err := s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: s.id, Path: abs, Content: text})
			return err
		},
	}
}

// outcome is a settled hunk's final tool-call update; shown says its tool
// call was sent (a hunk the engine settled without a question was not).
func (s *session) outcome(ctx context.Context, id string, o commands.Outcome, shown bool) {
	tc := hunkToolID(id, o.ID)
	if !shown {
		call := hunkCall(tc, id, o.Question)
		if o.Decision == commands.DecisionWithdrawn {
			call.Content = nil
		}
		s.update(ctx, sdk.SessionUpdate{ToolCall: &call})
	}
	out := map[string]any{"decision": string(o.Decision)}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)}
	switch o.Decision {
	case commands.DecisionAccepted:
		opts[0] = sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)
		if o.AlreadyInFile {
			out["alreadyInFile"] = true
		}
	case commands.DecisionWithdrawn:
		out["reason"] = o.Reason
		opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(plainBlock("Withdrawn: " + o.Reason + "."))}))
	}
	s.update(ctx, sdk.UpdateToolCall(tc, append(opts, sdk.WithUpdateRawOutput(out))...))
}

func hunkToolID(id, hunk string) sdk.ToolCallId { return sdk.ToolCallId("hunk-" + id + "-" + hunk) }

// hunkCall is a question's tool call: kind edit (delete, move), the
// engine's title, its location, and one diff of the whole file
// (CodeCompanion shows only a call's first diff; Zed anchors a whole-file
// diff to real lines).
func hunkCall(tc sdk.ToolCallId, id string, q commands.Question) sdk.SessionUpdateToolCall {
	var content []sdk.ToolCallContent
	switch {
	case !q.Diff:
		content = append(content, sdk.ToolContent(plainBlock(q.Summary)))
	case q.Hunk.Hunk.Created:
		content = append(content, sdk.ToolDiffContent(q.Hunk.Abs, q.After))
	default:
		content = append(content, sdk.ToolDiffContent(q.Hunk.Abs, q.After, q.Before))
	}
	h := q.Hunk.Hunk
	return sdk.SessionUpdateToolCall{
		ToolCallId: tc, Title: q.Title, Kind: hunkKind(h), Status: sdk.ToolCallStatusPending,
		Locations: []sdk.ToolCallLocation{{Path: q.Hunk.Abs, Line: sdk.Ptr(q.Line)}}, Content: content,
		RawInput: map[string]any{"session": id, "hunk": h.ID, "path": h.Path, "summary": h.Summary},
	}
}

func hunkKind(h editapply.Hunk) sdk.ToolKind {
	switch h.Kind {
	case editapply.KindDelete:
		return sdk.ToolKindDelete
	case editapply.KindRename:
		return sdk.ToolKindMove
	}
	return sdk.ToolKindEdit
}
