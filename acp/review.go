package acp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// Per-hunk review (docs/contract.md §10). Each pending hunk is its own
// tool call whose one diff is the whole current file before and with only
// that hunk applied, then a permission request: accept writes it at once,
// before the next hunk is asked about. The file is read again before the
// question and again before the write, and the hunk judged against what
// it holds (commands.Judge, as the language server judges a changed
// document): a hunk the user's edits moved is re-located, one they broke
// is withdrawn. That one check is why a stale hunk is never applied,
// whenever the user typed.

// review asks about every pending hunk of the aide session in turn; it
// reports whether the turn was cancelled.
func (s *session) review(ctx context.Context, id string) (cancelled bool) {
	for {
		if ctx.Err() != nil {
			return true
		}
		h, ok := s.r.next(id)
		if !ok {
			return false
		}
		if v, ok := s.r.view(id); ok {
			s.sendEntries(ctx, v, "")
		}
		tc := sdk.ToolCallId("hunk-" + id + "-" + h.Hunk.ID)
		cur, err := s.read(ctx, h)
		if err != nil {
			if ctx.Err() != nil {
				return true
			}
			s.withdraw(ctx, id, h, tc, false, "its file could not be read: "+err.Error())
			continue
		}
		h, fate := s.r.judge(id, h, cur)
		if s.settled(ctx, id, h, tc, fate, false) {
			continue
		}
		call := s.hunkCall(tc, id, h, cur)
		s.update(ctx, sdk.SessionUpdate{ToolCall: &call})
		resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: s.id, ToolCall: sdk.ToolCallUpdate{
			ToolCallId: tc, Title: sdk.Ptr(call.Title), Kind: sdk.Ptr(call.Kind), Status: sdk.Ptr(sdk.ToolCallStatusPending),
			Content: call.Content, Locations: call.Locations, RawInput: call.RawInput,
		}, Options: []sdk.PermissionOption{
			{OptionId: optAccept, Name: "Accept this hunk", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optReject, Name: "Reject this hunk", Kind: sdk.PermissionOptionKindRejectOnce},
		}})
		if err != nil || resp.Outcome.Selected == nil {
			return true
		}
		if resp.Outcome.Selected.OptionId != optAccept {
			// Rejected (or an option never offered): nothing is written;
			// the architect hears of it on the next re-plan.
			if err := s.r.decide(id, h.Hunk.ID, false); err == nil {
				s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateRawOutput(map[string]any{"decision": "rejected"})))
			}
			continue
		}
		// The user may have typed while the question waited.
		cur, err = s.read(ctx, h)
		if err != nil {
			if ctx.Err() != nil {
				return true
			}
			s.withdraw(ctx, id, h, tc, true, "its file could not be read: "+err.Error())
			continue
		}
		h, fate = s.r.judge(id, h, cur)
		if s.settled(ctx, id, h, tc, fate, true) {
			continue
		}
		if err := s.write(ctx, h, cur); err != nil {
			if ctx.Err() != nil {
				return true
			}
			s.withdraw(ctx, id, h, tc, true, "it could not be written: "+err.Error())
			continue
		}
		if err := s.r.decide(id, h.Hunk.ID, true); err != nil {
			s.a.log.Warn("accepted hunk not recorded", "hunk", h.Hunk.ID, "err", err)
		}
		s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateRawOutput(map[string]any{"decision": "accepted"})))
	}
}

// settled handles a hunk that is no longer pending in the file: stale
// (withdrawn) or already there (the user made the same change: accepted,
// nothing written). shown says its tool call was sent.
func (s *session) settled(ctx context.Context, id string, h commands.ReviewHunk, tc sdk.ToolCallId, fate commands.Fate, shown bool) bool {
	switch fate {
	case commands.FateStale:
		s.withdraw(ctx, id, h, tc, shown, "the file changed at its lines since it was proposed")
		return true
	case commands.FateLanded:
		_ = s.r.decide(id, h.Hunk.ID, true)
		if !shown {
			call := s.hunkCall(tc, id, h, h.Base)
			s.update(ctx, sdk.SessionUpdate{ToolCall: &call})
		}
		s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateRawOutput(map[string]any{"decision": "accepted", "alreadyInFile": true})))
		return true
	}
	return false
}

// withdraw makes a hunk stale (never applied) and says why on its tool call.
func (s *session) withdraw(ctx context.Context, id string, h commands.ReviewHunk, tc sdk.ToolCallId, shown bool, why string) {
	s.r.stale(id, h.Hunk.ID, why)
	if !shown {
		s.update(ctx, sdk.StartToolCall(tc, s.hunkTitle(id, h, h.Base), sdk.WithStartKind(hunkKind(h.Hunk)),
			sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartLocations(locations(h, h.Base))))
	}
	s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(plainBlock("Withdrawn: " + why + "."))}),
		sdk.WithUpdateRawOutput(map[string]any{"decision": "withdrawn", "reason": why})))
}

// viaClient: the hunk's file is read and written through the client
// (its buffer and undo) when it offers both fs methods; reading the buffer
// and writing the disk, or the other way round, would judge one text and
// change another.
func (s *session) viaClient(h editapply.Hunk) bool {
	fs := s.a.clientCaps().Fs
	return fs.ReadTextFile && fs.WriteTextFile && (h.Kind == editapply.KindEdit || h.Kind == editapply.KindWrite)
}

// read is the hunk's file as it is now ("" when it does not exist).
func (s *session) read(ctx context.Context, h commands.ReviewHunk) (string, error) {
	if s.viaClient(h.Hunk) {
		r, err := s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: s.id, Path: h.Abs})
		if err == nil {
			return r.Content, nil
		}
		if _, serr := os.Lstat(h.Abs); serr == nil || ctx.Err() != nil {
			return "", err
		}
		return "", nil // a new file: the client has nothing to read
	}
	text, _, err := s.r.ws.Read(h.Hunk.Path)
	return text, err
}

// write writes an accepted hunk on cur, the content it was judged on.
func (s *session) write(ctx context.Context, h commands.ReviewHunk, cur string) error {
	if !s.viaClient(h.Hunk) {
		return s.r.writeDisk(h.Hunk)
	}
	text, err := withHunk(cur, h.Hunk)
	if err != nil {
		return err
	}
	_, err = s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: s.id, Path: h.Abs, Content: text})
	return err
}

// withHunk is cur with only h applied.
func withHunk(cur string, h editapply.Hunk) (string, error) {
	switch h.Kind {
	case editapply.KindWrite:
		return h.NewText, nil
	case editapply.KindDelete:
		return "", nil
	case editapply.KindRename:
		return cur, nil
	}
	return editapply.Apply(cur, []editapply.Hunk{h})
}

// hunkCall is a hunk's tool call: kind edit (delete, move), a title with
// the file, its lines and its plan step, its location, and one diff of
// the whole file (CodeCompanion shows only a call's first diff; Zed
// anchors a whole-file diff to real lines).
func (s *session) hunkCall(tc sdk.ToolCallId, id string, h commands.ReviewHunk, cur string) sdk.SessionUpdateToolCall {
	var content []sdk.ToolCallContent
	switch h.Hunk.Kind {
	case editapply.KindRename:
		content = append(content, sdk.ToolContent(plainBlock(fmt.Sprintf("Rename %s to %s", h.Hunk.Path, h.Hunk.NewPath))))
	default:
		after, err := withHunk(cur, h.Hunk)
		switch {
		case err != nil:
			content = append(content, sdk.ToolContent(plainBlock(h.Hunk.Summary)))
		case h.Hunk.Created:
			content = append(content, sdk.ToolDiffContent(h.Abs, after))
		default:
			content = append(content, sdk.ToolDiffContent(h.Abs, after, cur))
		}
	}
	return sdk.SessionUpdateToolCall{
		ToolCallId: tc, Title: s.hunkTitle(id, h, cur), Kind: hunkKind(h.Hunk), Status: sdk.ToolCallStatusPending,
		Locations: locations(h, cur), Content: content,
		RawInput: map[string]any{"session": id, "hunk": h.Hunk.ID, "path": h.Hunk.Path, "summary": h.Hunk.Summary},
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

// hunkTitle: "greet.go:3-4 — step 2", with the hunk's id.
func (s *session) hunkTitle(id string, h commands.ReviewHunk, cur string) string {
	first, last := lines(h.Hunk, cur)
	where := filepath.ToSlash(h.Hunk.Path)
	switch {
	case h.Hunk.Kind != editapply.KindEdit:
		where += " (" + string(h.Hunk.Kind) + ")"
	case first == last:
		where += fmt.Sprintf(":%d", first)
	default:
		where += fmt.Sprintf(":%d-%d", first, last)
	}
	s.mu.Lock()
	label := s.labels[h.Hunk.ID]
	s.mu.Unlock()
	if label != "" {
		where += " — " + label
	}
	if why := s.runsCode(h, cur); why != "" {
		where += " — runs code: " + why
	}
	return where + " (" + h.Hunk.ID + ")"
}

// runsCode is why the hunk's file runs code or configures a tool
// (workspace.Sensitive, contract §2), judged on its resolved path and on
// the file before and after the hunk, or "": every review surface marks
// such a hunk, here its tool call's title.
func (s *session) runsCode(h commands.ReviewHunk, cur string) string {
	var after []byte
	if h.Hunk.Kind != editapply.KindDelete {
		if text, err := withHunk(cur, h.Hunk); err == nil {
			after = []byte(text)
		}
	}
	why := s.r.ws.Sensitive(h.Hunk.Path, []byte(cur), after)
	if why == "" && h.Hunk.Kind == editapply.KindRename {
		why = s.r.ws.Sensitive(h.Hunk.NewPath, nil, []byte(cur))
	}
	return why
}

// lines are the 1-based first and last lines a hunk's old text spans.
func lines(h editapply.Hunk, cur string) (int, int) {
	if h.Kind != editapply.KindEdit || h.Start < 0 || h.End > len(cur) || h.Start > h.End {
		return 1, 1
	}
	first := strings.Count(cur[:h.Start], "\n") + 1
	last := first + strings.Count(strings.TrimSuffix(h.OldText, "\n"), "\n")
	return first, last
}

func locations(h commands.ReviewHunk, cur string) []sdk.ToolCallLocation {
	first, _ := lines(h.Hunk, cur)
	return []sdk.ToolCallLocation{{Path: h.Abs, Line: sdk.Ptr(first)}}
}
