package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/planview"
)

// A prompt turn (docs/contract.md §10): the prompt starts an aide session
// (architect, or one call in edit mode) or continues the last one (a
// re-plan with the prompt as feedback); the turn then follows the session:
// a waiting plan is put up for approval, proposed hunks are reviewed one
// by one, and the turn ends when the session waits for the user's next
// prompt, is done, failed or was cancelled.

// Prompt words.
const (
	approveCommand = "approve" // "/approve": ask again to approve the waiting plan, as edited
	optApprove     = "approve"
	optKeep        = "keep-planning"
	optAccept      = "accept"
	optReject      = "reject"
)

func (s *session) prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	in, err := readPrompt(p.Prompt, s.r.path)
	if err != nil {
		return sdk.PromptResponse{}, refuse("%v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.cancel != nil {
		s.mu.Unlock()
		return sdk.PromptResponse{}, refuse("a prompt is still running in this session: wait for it or cancel it")
	}
	s.cancel = cancel
	s.turnIn, s.turnOut = 0, 0
	notices := s.notices
	s.notices = nil
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	for _, n := range notices {
		s.say(ctx, n+"\n\n")
	}
	stop := s.turn(ctx, in)
	s.mu.Lock()
	usage := &sdk.Usage{InputTokens: s.turnIn, OutputTokens: s.turnOut, TotalTokens: s.turnIn + s.turnOut}
	s.mu.Unlock()
	return sdk.PromptResponse{StopReason: stop, Usage: usage}, nil
}

// cancelTurn stops the running prompt, if any (session/cancel).
func (s *session) cancelTurn() {
	s.mu.Lock()
	c := s.cancel
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

func (s *session) turn(ctx context.Context, in promptInput) sdk.StopReason {
	s.mu.Lock()
	prev, prevMode, mode, arch, ed := s.aide, s.aideMode, s.mode, s.archModel, s.edModel
	s.mu.Unlock()
	if prev != "" && strings.EqualFold(strings.TrimSpace(in.task), "/"+approveCommand) {
		if v, ok := s.r.view(prev); ok && v.State == commands.StateWaiting {
			return s.drive(ctx, prev, nil)
		}
		s.say(ctx, "No plan waits for approval in this session: write a task to start one.")
		return sdk.StopReasonEndTurn
	}
	var id string
	var work commands.Work
	var err error
	if prev != "" && prevMode == mode && s.continues(prev) {
		s.readPlanDoc(ctx, prev) // the user's notes in the plan document go to the architect
		id, work, err = s.r.replan(prev, in.task)
	} else {
		id, work, err = s.r.start(in.task, in.focus, mode == modeEdit, arch, ed)
	}
	if err != nil {
		s.say(ctx, "aide-lsp: "+err.Error())
		return sdk.StopReasonEndTurn
	}
	s.r.own(id, s)
	s.mu.Lock()
	s.aide, s.aideMode = id, mode
	s.hunkSteps = map[string]int{}
	s.mu.Unlock()
	return s.drive(ctx, id, work)
}

// continues says whether a new prompt re-plans the last aide session (with
// the prompt as feedback) rather than starting one: while its plan waits,
// and when the user rejected some of its hunks (the architect is told why,
// design rule 6).
func (s *session) continues(id string) bool {
	v, ok := s.r.view(id)
	if !ok {
		return false
	}
	switch v.State {
	case commands.StateWaiting:
		return true
	case commands.StateDone:
		for _, h := range v.Hunks {
			if h.Status == "rejected" {
				return true
			}
		}
	}
	return false
}

// drive runs the session's work, then follows its state until the turn ends.
func (s *session) drive(ctx context.Context, id string, work commands.Work) sdk.StopReason {
	for {
		if work != nil {
			_ = work(withStream(ctx, s), nopProgress{})
			s.r.client.setEdited(s.planPath(id), "", false)
			work = nil
		}
		v, ok := s.r.view(id)
		if ctx.Err() != nil {
			// A cancel ends the turn, not the session's plan: a plan that
			// waits stays for /approve or a re-plan (contract §10).
			if !ok || v.State != commands.StateWaiting {
				s.r.cancel(id)
			}
			return sdk.StopReasonCancelled
		}
		if !ok {
			return sdk.StopReasonEndTurn
		}
		switch v.State {
		case commands.StateWaiting:
			s.sendEntries(ctx, v, "")
			if !s.approval(ctx, id, v) || ctx.Err() != nil {
				// Keep planning, or a cancel (even right after approve: a
				// cancel stops the turn's work): the plan waits either way.
				s.say(ctx, fmt.Sprintf("\n\nThe plan waits in %s: edit it there, then send /%s, or tell me what to change and I plan again.", v.PlanDoc.Path, approveCommand))
				if ctx.Err() != nil {
					return sdk.StopReasonCancelled
				}
				return sdk.StopReasonEndTurn
			}
			s.readPlanDoc(ctx, id)
			s.mu.Lock()
			model := s.edModel
			s.mu.Unlock()
			_, w, err := s.r.approve(id, model)
			if err != nil {
				s.say(ctx, "aide-lsp: "+err.Error())
				return sdk.StopReasonEndTurn
			}
			s.sendEntries(ctx, v, "in_progress")
			work = w
		case commands.StateProposed:
			if cancelled, asked := s.review(ctx, id); cancelled {
				// The turn's work stops: the hunks not yet decided are
				// withdrawn (aide.cancel), those decided stay, and the
				// question left unanswered gets its final update before
				// the prompt answers cancelled (the ACP spec).
				s.r.cancel(id)
				if asked != "" {
					s.closeAsked(ctx, id, asked)
				}
				return sdk.StopReasonCancelled
			}
		case commands.StateDone:
			s.sendEntries(ctx, v, "")
			s.say(ctx, "\n\n"+summary(v))
			return sdk.StopReasonEndTurn
		case commands.StateFailed:
			s.say(ctx, "\n\naide-lsp: the session stopped: "+v.Reason)
			return sdk.StopReasonEndTurn
		case commands.StateCancelled:
			return sdk.StopReasonCancelled
		default:
			s.say(ctx, "\n\naide-lsp: the session is "+string(v.State)+".")
			return sdk.StopReasonEndTurn
		}
	}
}

// summary is the end of a turn: what was written, rejected, withdrawn.
func summary(v commands.View) string {
	n := map[string]int{}
	for _, h := range v.Hunks {
		n[string(h.Status)]++
	}
	if len(v.Hunks) == 0 {
		return "Done: no change was proposed."
	}
	out := fmt.Sprintf("Done: %d accepted, %d rejected", n["accepted"], n["rejected"])
	if n["stale"] > 0 {
		out += fmt.Sprintf(", %d withdrawn (the file changed under them)", n["stale"])
	}
	if n["rejected"] > 0 {
		out += ". Tell me what to change and I plan again, knowing what you rejected"
	}
	return out + "."
}

func (s *session) planPath(id string) string {
	return filepath.Join(s.r.path, ".aide", "plans", id+".md")
}

// readPlanDoc reads the plan document through the client when it offers
// fs/read_text_file (its buffer, with the user's unsaved edits), for the
// engine's next turn: an edited plan is the plan carried out, and notes
// written in it reach the architect (contract §5). Without it the engine
// reads the file.
func (s *session) readPlanDoc(ctx context.Context, id string) {
	if !s.a.clientCaps().Fs.ReadTextFile {
		return
	}
	path := s.planPath(id)
	r, err := s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: s.id, Path: path})
	if err != nil {
		s.a.log.Info("the plan could not be read through the client; the file is used", "err", err)
		return
	}
	s.r.client.setEdited(path, r.Content, true)
}

// approval puts the waiting plan up for approval: a resource link to the
// plan file, a switch_mode tool call "Approve plan" with the plan, and a
// permission request with one approve option (contract §10): the editor
// model is the session's editorModel option, a setting of its own, never
// a choice among approve options (a client that shows each option by its
// kind could not tell them apart). It reports false for "keep planning"
// and a cancelled request.
func (s *session) approval(ctx context.Context, id string, v commands.View) bool {
	path := v.PlanDoc.Path
	if path == "" {
		path = s.planPath(id)
	}
	link := sdk.ResourceLinkBlock(filepath.Base(path), fileURI(path))
	link.ResourceLink.Title = sdk.Ptr("The plan (edit it before approving)")
	link.ResourceLink.MimeType = sdk.Ptr("text/markdown")
	s.update(ctx, sdk.UpdateAgentMessage(link))
	s.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: []sdk.AvailableCommand{
		{Name: approveCommand, Description: "Ask again to approve the waiting plan (as you edited it)"},
	}}})
	s.mu.Lock()
	editor := s.edModel
	s.mu.Unlock()
	tc := s.nextToolID("approve")
	title := "Approve plan"
	input := map[string]any{"plan": v.Plan.Text, "planFile": path, "editorModel": editor}
	content := []sdk.ToolCallContent{sdk.ToolContent(link)}
	s.update(ctx, sdk.StartToolCall(tc, title, sdk.WithStartKind(sdk.ToolKindSwitchMode), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartRawInput(input), sdk.WithStartContent(content), sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: path}})))
	resp, err := s.ask(ctx, sdk.RequestPermissionRequest{SessionId: s.id, Options: approvalOptions(v, editor), ToolCall: sdk.ToolCallUpdate{
		ToolCallId: tc, Title: sdk.Ptr(title), Kind: sdk.Ptr(sdk.ToolKindSwitchMode), Status: sdk.Ptr(sdk.ToolCallStatusPending),
		RawInput: input, Content: content, Locations: []sdk.ToolCallLocation{{Path: path}},
	}})
	if err != nil || resp.Outcome.Selected == nil {
		s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateRawOutput(map[string]any{"approved": false, "cancelled": true})))
		return false
	}
	if resp.Outcome.Selected.OptionId != optApprove { // keep planning, or an option never offered
		s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateRawOutput(map[string]any{"approved": false})))
		return false
	}
	s.update(ctx, sdk.UpdateToolCall(tc, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateRawOutput(map[string]any{"approved": true, "editorModel": editor})))
	return true
}

// approvalOptions are approve (with the editor model's estimate in its
// name) and keep planning.
func approvalOptions(v commands.View, editor string) []sdk.PermissionOption {
	name := "Approve"
	if editor != "" {
		name = "Approve with " + editor
	}
	for _, est := range v.Estimates {
		if est.Model == editor {
			name += " (" + estimateLine(est) + ")"
			break
		}
	}
	return []sdk.PermissionOption{
		{OptionId: optApprove, Name: name, Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optKeep, Name: "Keep planning", Kind: sdk.PermissionOptionKindRejectOnce},
	}
}

// sendEntries sends the plan's steps as plan entries, the complete list
// every time. force, when set, is every entry's status (in_progress while
// the editor carries the plan out); else each step's status follows its
// hunks (entryStatuses).
func (s *session) sendEntries(ctx context.Context, v commands.View, force sdk.PlanEntryStatus) {
	entries := planview.Entries(v.Plan.Text)
	if len(entries) == 0 {
		return
	}
	s.mu.Lock()
	steps := make(map[string]int, len(s.hunkSteps))
	for k, n := range s.hunkSteps {
		steps[k] = n
	}
	s.mu.Unlock()
	out := entryStatuses(entries, v.Hunks, steps, v.State)
	if force != "" {
		for i := range out {
			out[i].Status = force
		}
	}
	s.update(ctx, sdk.UpdatePlan(out...))
}

// entryStatuses: a waiting plan's steps are pending; a step whose hunks
// are all decided is completed, one with a hunk still pending in progress,
// and a step no hunk carries out stays pending (when the editor named
// steps at all). When it named none, every step follows the whole review.
func entryStatuses(entries []planview.Entry, hunks []commands.HunkView, steps map[string]int, state commands.State) []sdk.PlanEntry {
	out := make([]sdk.PlanEntry, len(entries))
	traced := len(steps) > 0
	pendingAll := false
	for _, h := range hunks {
		pendingAll = pendingAll || h.Status == "pending"
	}
	for i, e := range entries {
		status := sdk.PlanEntryStatusPending
		switch {
		case state == commands.StateWaiting || state == commands.StatePlanning:
		case !traced:
			if len(hunks) > 0 && !pendingAll {
				status = sdk.PlanEntryStatusCompleted
			} else if len(hunks) > 0 {
				status = sdk.PlanEntryStatusInProgress
			}
		default:
			has, pending := false, false
			for _, h := range hunks {
				if n, ok := steps[h.Hunk.ID]; ok && n == e.Step {
					has = true
					pending = pending || h.Status == "pending"
				}
			}
			switch {
			case has && pending:
				status = sdk.PlanEntryStatusInProgress
			case has:
				status = sdk.PlanEntryStatusCompleted
			}
		}
		out[i] = sdk.PlanEntry{Content: e.Text, Priority: sdk.PlanEntryPriorityMedium, Status: status}
	}
	return out
}

// onEvent hears the engine's events of this session's aide sessions.
func (s *session) onEvent(ev commands.Event) {
	ctx := s.a.ctx
	switch ev.Event {
	case commands.EvArchitectPass, commands.EvEditorPass:
		if p, ok := passOf(ev.Data); ok {
			role := "architect"
			if ev.Event == commands.EvEditorPass {
				role = "editor"
			}
			s.passed(ctx, role, p, s.r.config().Prices)
		}
	case commands.EvProposal:
		s.mu.Lock()
		if s.hunkSteps == nil {
			s.hunkSteps = map[string]int{}
		}
		for id, n := range stepsOf(ev.Data) {
			s.hunkSteps[id] = n
		}
		s.mu.Unlock()
	case commands.EvFallback, commands.EvDrift:
		if line := describe(ev); line != "" {
			s.update(ctx, sdk.UpdateAgentThoughtText(planview.DefangPlain(line)+"\n"))
		}
	}
}

// message is the engine's message to the user.
func (s *session) message(level, text string) {
	prefix := "aide-lsp: "
	if level != "info" {
		prefix = "aide-lsp (" + level + "): "
	}
	s.say(s.a.ctx, "\n\n"+prefix+text+"\n")
}

type nopProgress struct{}

func (nopProgress) Report(string) {}
