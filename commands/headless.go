package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// HeadlessOptions say how to run one task with nobody at an editor: the
// `aide-lsp run` command and the bench.
type HeadlessOptions struct {
	// Engine runs the task (app.Open, the one wiring of every front end);
	// its Client must be Client. Its configuration's ReviewPlan is set from
	// PlanOnly, its models from ArchitectModel and EditorModel.
	Engine *Engine
	Client *HeadlessClient

	// Task is what to do. Empty: the task is the first "AI:" comment of the
	// focus files (contract §4), and the comment is removed by a hunk of its
	// own once the change is written.
	Task  string
	Files []string // focus files, workspace-relative or absolute

	// ArchitectModel and EditorModel override Config's models for this run
	// (empty: Config's).
	ArchitectModel, EditorModel string

	OneCall  bool     // aide.edit: skip the architect
	PlanOnly bool     // stop after the architect's plan (Apply must be false)
	Apply    bool     // write the proposed hunks and accept them
	Progress Progress // nil: no progress messages
}

// HeadlessResult is what a headless run came to.
type HeadlessResult struct {
	Engine  *Engine // the engine that ran it: its Meter holds the usage
	Session string
	View    View     // the session at the end; its Diff holds every proposed hunk, the AI comment's removal included
	Applied []string // files written (Apply)

	// Proposed is true when the session got as far as proposing hunks.
	Proposed bool
	// Unresolved is how many edits of the answer still failed when the
	// editor stopped: writing the proposed rest would apply a part of the
	// answer (docs/contract.md §9), so --apply writes nothing then.
	Unresolved int
	// AIComment is true when a hunk removing the task's AI comment was
	// proposed beside the change.
	AIComment bool
	// Interrupted is true when ctx ended or the session was cancelled.
	Interrupted bool
	// Reason is why the session stopped without a result: its own reason,
	// or the work's error. Empty when it did not fail.
	Reason string
	client *HeadlessClient // the engine's client: it writes what Accept accepts

	// Problem is why the run as a whole did not succeed, on one line:
	// "interrupted", the failure, no plan (PlanOnly), no usable edits, or a
	// write that did not happen. Empty when it succeeded; `aide-lsp run`
	// exits 1 when it is not.
	Problem string
}

// Observer hears a headless run's events and messages (the CLI prints
// them, --json keeps them).
type Observer interface {
	SessionEvent(ev Event)
	Message(level, text string)
}

// ErrNoTask is RunHeadless's error when Task is empty and no focus file
// holds an AI comment.
var ErrNoTask = errors.New(`no task: give one, or a focus file with an "AI:" comment`)

// ErrPlanOnlyApply is RunHeadless's error for PlanOnly with Apply or OneCall.
var ErrPlanOnlyApply = errors.New("plan-only stops before any edit: it cannot apply or skip the architect")

// RunHeadless runs one task through an Engine from start to end: aide.architect
// (aide.edit with OneCall) with the task and the focus files, the plan carried
// straight to the editor (nobody approves it) unless PlanOnly, then, when the
// task came from an AI comment, a hunk removing that comment (proposed by
// the engine's propose step, never when a proposed hunk already touches its
// lines), and with Apply every
// pending hunk written with ApplyHunks and accepted.
//
// The error is for what stops the run before any work (no task, a focus file
// outside the workspace, no model client): a usage error. Everything that
// happens once the work has started is in the result (Problem).
func RunHeadless(ctx context.Context, o HeadlessOptions) (HeadlessResult, error) {
	if o.PlanOnly && (o.Apply || o.OneCall) {
		return HeadlessResult{}, ErrPlanOnlyApply
	}
	if o.Engine == nil || o.Client == nil {
		return HeadlessResult{}, errors.New("a headless run needs an engine and its headless client")
	}
	eng, tap := o.Engine, o.Client
	files := append([]string(nil), o.Files...)
	task := strings.TrimSpace(o.Task)
	fromComment := false
	if task == "" {
		var at int
		task, at = TaskFromAIComment(eng.ws, files)
		if task != "" {
			fromComment = true
			// The comment's file goes first: it is the session's main focus,
			// where the propose step looks for the comment.
			files = append(append([]string{files[at]}, files[:at]...), files[at+1:]...)
		}
	}
	if task == "" {
		return HeadlessResult{}, ErrNoTask
	}

	cfg := eng.config()
	cfg.ReviewPlan = o.PlanOnly // run carries the plan straight on unless it is to stop there
	if o.ArchitectModel != "" {
		cfg.ArchitectModel = o.ArchitectModel
	}
	if o.EditorModel != "" {
		cfg.EditorModel = o.EditorModel
	}
	eng.SetConfig(cfg)
	command := CmdArchitect
	if o.OneCall {
		command = CmdEdit
	}
	arg, _ := json.Marshal(StartArgs{Task: task, Files: files, ArchitectModel: o.ArchitectModel, EditorModel: o.EditorModel, FromAIComment: fromComment})
	res, work, err := eng.Execute(ctx, command, arg)
	if err != nil {
		return HeadlessResult{}, err
	}
	id := res.(SessionResult).Session
	workErr := work(ctx, o.Progress)
	view, _ := eng.View(id)

	out := HeadlessResult{Engine: eng, Session: id, Reason: view.Reason, client: tap}
	if out.Reason == "" && workErr != nil {
		out.Reason = workErr.Error()
	}
	switch {
	case ctx.Err() != nil || view.State == StateCancelled:
		out.Interrupted, out.Problem = true, "interrupted"
	case workErr != nil || view.State == StateFailed:
		out.Problem = out.Reason
	case o.PlanOnly:
		if view.Plan.Text == "" {
			out.Problem = "the architect wrote no usable plan"
		}
	case view.State == StateProposed:
		out.Proposed = true
		for _, h := range view.Hunks {
			out.AIComment = out.AIComment || h.AIComment
		}
		out.Unresolved = eng.unresolved(id)
		if o.Apply && out.Unresolved > 0 {
			out.Problem = UnresolvedProblem(out.Unresolved)
		} else if o.Apply {
			applied, err := out.Accept(ctx)
			out.Applied = applied
			if err != nil {
				out.Problem = "could not write the edits: " + err.Error()
			}
		}
		view, _ = eng.View(id)
	default:
		out.Problem = "no usable edits: " + tap.lastReason()
	}
	out.View = view
	return out, nil
}

// Accept accepts every pending hunk of the session through aide.accept,
// the one accept path of every client (contract §4): the headless client
// writes them all or nothing (ApplyHunks over workspace.ApplyAll), and the
// engine records what landed. It returns the files written.
func (r *HeadlessResult) Accept(ctx context.Context) ([]string, error) {
	s, err := r.Engine.session(r.Session)
	if err != nil {
		return nil, err
	}
	_, err = r.Engine.accept(ctx, s, nil)
	return r.client.takeWritten(), err
}

// HeadlessClient is the headless runner's Client: it passes the calls on to the
// caller's client and keeps the last reason an event gave (a fallback's, a
// refusal's), to say why a run proposed nothing. Accepted hunks it writes
// itself, all or nothing (ApplyHunks), since no editor holds the files.
type HeadlessClient struct {
	next Observer
	ws   *workspace.Workspace

	mu      sync.Mutex
	last    string
	written []string // files ApplyHunks wrote, until takeWritten
}

// NewHeadlessClient is the client of headless runs on ws, telling obs
// (nil: events go only to the session files).
func NewHeadlessClient(ws *workspace.Workspace, obs Observer) *HeadlessClient {
	if obs == nil {
		obs = nopClient{}
	}
	return &HeadlessClient{next: obs, ws: ws}
}

func (t *HeadlessClient) SessionEvent(ev Event) {
	if r := ev.Reason(); r != "" {
		t.mu.Lock()
		t.last = r
		t.mu.Unlock()
	}
	t.next.SessionEvent(ev)
}

func (t *HeadlessClient) lastReason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == "" {
		return "the editor proposed nothing"
	}
	return t.last
}

// The plan document is on disk; nobody reviews in place: Accept writes
// the hunks.
func (t *HeadlessClient) ShowPlan(PlanDoc)                  {}
func (t *HeadlessClient) PlanChanged(PlanDoc)               {}
func (t *HeadlessClient) Delivery() Delivery                { return ReviewInPlace }
func (t *HeadlessClient) Propose(context.Context, Proposal) {}
func (t *HeadlessClient) Message(level, text string)        { t.next.Message(level, text) }

// ApplyHunks writes the hunks to disk, all or nothing.
func (t *HeadlessClient) ApplyHunks(_ context.Context, _, _ string, hunks []editapply.Hunk) ([]string, error) {
	ids, paths, err := ApplyHunkIDs(t.ws, hunks)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.written = append(t.written, paths...)
	t.mu.Unlock()
	return ids, nil
}

func (t *HeadlessClient) takeWritten() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.written
	t.written = nil
	return out
}

// A headless run has no buffers: the plan file is the plan.
func (t *HeadlessClient) PlanBuffer(string) (string, bool) { return "", false }

// UnresolvedProblem is the refusal of an apply while n edits of the answer
// still failed.
func UnresolvedProblem(n int) string {
	return fmt.Sprintf("%d edit(s) of the answer still failed when the editor stopped, so nothing was written: no part of an answer is applied alone", n)
}

// unresolved is how many edits failed in the session's last editor pass.
func (e *Engine) unresolved(sessionID string) int {
	s, err := e.session(sessionID)
	if err != nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lastFailed)
}
