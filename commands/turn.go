package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

type turnKind int

const (
	turnFirst   turnKind = iota // aide.architect / aide.edit
	turnApprove                 // aide.approvePlan
	turnReplan                  // aide.replan
)

// start checks the argument of aide.architect / aide.edit and creates the
// session (busy, its plan document written but not yet shown).
func (e *Engine) start(a StartArgs, oneCall bool) (*session, error) {
	cfg := e.config()
	var focus []string
	seen := map[string]bool{}
	addFocus := func(p string) error {
		_, rel, err := e.ws.Resolve(p)
		if err != nil {
			return fmt.Errorf("the file %s cannot be used: %v", p, err)
		}
		if !seen[rel] {
			seen[rel] = true
			focus = append(focus, rel)
		}
		return nil
	}
	if a.URI != "" {
		p, err := fileToPath(a.URI)
		if err != nil {
			return nil, err
		}
		if err := addFocus(p); err != nil {
			return nil, err
		}
	}
	for _, f := range a.Files {
		if err := addFocus(f); err != nil {
			return nil, err
		}
	}
	task := strings.TrimSpace(a.Task)
	if task == "" && len(focus) > 0 {
		if text, ok, err := e.ws.Read(focus[0]); err == nil && ok {
			from, to := 0, 0
			if a.Range != nil {
				from, to = a.Range.Start.Line, a.Range.End.Line
			}
			for l := from; l <= to && l <= from+maxAICommentLines; l++ {
				if c, ok := FindAIComment(focus[0], text, l); ok && c.Task != "" {
					task = c.Task
					break
				}
			}
		}
	}
	if task == "" {
		return nil, errors.New(`no task: pass one in the argument ({"task": "..."}), or put the cursor on a comment that starts with "AI:" (for example // AI: add a retry to fetch)`)
	}
	arch, ed := cfg.ArchitectModel, cfg.EditorModel
	if a.ArchitectModel != "" {
		arch = a.ArchitectModel
	}
	if a.EditorModel != "" {
		ed = a.EditorModel
	}
	for _, m := range []string{arch, ed} {
		if !strings.Contains(m, "/") {
			return nil, fmt.Errorf("%q is not a model id; write provider/model, for example \"ollama/qwen2.5-coder:14b\"", m)
		}
	}
	kind := "architect"
	if oneCall {
		kind = "edit"
	}
	// A cloned repository may carry .aide with links out of the workspace.
	for _, dir := range []string{"sessions", "plans"} {
		if err := workspace.CheckPrivateDir(e.root, filepath.Join(e.root, ".aide", dir)); err != nil {
			return nil, err
		}
	}
	s := e.newSession(kind, task, focus, arch, ed)
	s.busy = true
	e.mu.Lock()
	e.sessions[s.id] = s
	e.mu.Unlock()
	e.writePlan(s, false)
	return s, nil
}

// errCancelled marks a turn stopped by cancellation.
var errCancelled = errors.New("cancelled")

// runTurn is the work of a command: one user turn of a session.
func (e *Engine) runTurn(ctx context.Context, s *session, p Progress, kind turnKind, feedback string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if p == nil {
		p = nopProgress{}
	}
	s.mu.Lock()
	s.cancelFn = cancel
	reason := s.cancelled
	// A new user turn: the failure counters start again (design rule 5).
	s.edFailures, s.mistakes = 0, 0
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.cancelFn = nil
		s.mu.Unlock()
	}()
	if kind == turnApprove {
		// Before anything rewrites the plan file: the user may have edited it.
		e.takeEditedPlan(s)
	}
	e.writePlan(s, true) // shows the plan document
	var err error
	if reason == "" {
		err = e.turn(ctx, s, p, kind, feedback)
	}
	if ctx.Err() != nil || errors.Is(err, errCancelled) || reason != "" {
		s.mu.Lock()
		reason = s.cancelled
		s.mu.Unlock()
		if reason == "" {
			reason = "cancelled"
		}
		e.finishCancelled(s, reason)
		return nil
	}
	return err
}

func (e *Engine) turn(ctx context.Context, s *session, p Progress, kind turnKind, feedback string) error {
	cfg := e.config()
	switch kind {
	case turnApprove:
		s.mu.Lock()
		reloaded := s.reloaded
		s.mu.Unlock()
		if reloaded {
			e.fallback(s, "rederive", "this session was reloaded from .aide/sessions: its plan is derived again, not replayed")
			s.mu.Lock()
			s.reloaded = false
			s.mu.Unlock()
			return e.architectTurn(ctx, s, p, cfg, "", true)
		}
		return e.editorTurn(ctx, s, p, cfg)
	case turnReplan:
		e.withdraw(s, "superseded by a re-plan")
		s.mu.Lock()
		s.reloaded = false
		s.diff = ""
		isEdit := s.kind == "edit"
		s.mu.Unlock()
		if isEdit {
			return e.oneCallTurn(ctx, s, p, cfg, feedback)
		}
		return e.architectTurn(ctx, s, p, cfg, feedback, false)
	}
	s.mu.Lock()
	isEdit := s.kind == "edit"
	s.mu.Unlock()
	if isEdit {
		return e.oneCallTurn(ctx, s, p, cfg, "")
	}
	return e.architectTurn(ctx, s, p, cfg, "", false)
}

// takeEditedPlan reads the plan back from the plan file: a plan the user
// edited is the plan that is carried out (contract §4).
func (e *Engine) takeEditedPlan(s *session) {
	s.mu.Lock()
	reloaded := s.reloaded
	s.mu.Unlock()
	if reloaded {
		return // its plan is derived again, whatever the file says
	}
	data, err := workspace.ReadRegular(s.planPath, workspace.MaxStateBytes)
	if err != nil {
		s.addLog("the plan file could not be read (%v); the plan as written is used", err)
		return
	}
	p, err := planview.ExtractPlan(string(data))
	if err != nil {
		s.addLog("the plan file has no plan section (%v); the plan as written is used", err)
		return
	}
	s.mu.Lock()
	changed := p.Text != s.plan.Text
	if changed {
		s.plan = p
		s.log = append(s.log, "the plan was edited by the user; the edited plan is carried out")
	}
	cycle, model := s.cycle, s.archModel
	s.mu.Unlock()
	if changed {
		e.emit(s, "plan", map[string]any{"plan": p.Text, "model": model, "cycle": cycle, "truncated": p.Truncated, "edited": true})
	}
}

func (e *Engine) fallback(s *session, kind, reason string) {
	s.addLog("fallback (%s): %s", kind, reason)
	e.emit(s, "fallback", map[string]any{"kind": kind, "reason": reason})
}

// architectTurn runs the architect pass and what follows from its answer.
// approved means the user already approved going on to the editor.
func (e *Engine) architectTurn(ctx context.Context, s *session, p Progress, cfg config.Config, feedback string, approved bool) error {
	s.mu.Lock()
	capped := s.cycle >= cfg.MaxCycles
	s.mu.Unlock()
	if capped {
		e.fallback(s, "cycle_cap", fmt.Sprintf("the session used its %d architect/editor cycles (maxCycles): this turn is one call", cfg.MaxCycles))
		return e.oneCallTurn(ctx, s, p, cfg, feedback)
	}
	s.mu.Lock()
	s.cycle++
	s.state = StatePlanning
	s.oneCall = false
	if s.plan.Text != "" {
		s.lastPlan = s.plan.Text
	}
	s.plan = planview.Plan{}
	s.planNote = ""
	s.drift = nil
	s.mu.Unlock()
	e.writePlan(s, true)
	e.ensureIndex(ctx)
	req, inPrompt := e.architectRequest(s, cfg, feedback)
	snap := e.ws.Snapshot(inPrompt)
	p.Report("architect: planning")
	resp, err := e.call(ctx, s, p, req)
	if err != nil {
		return err
	}
	e.passEvent(s, "architect_pass", resp, req, nil)

	calls := resp.ToolCalls
	if len(calls) == 0 {
		calls = toolCallsInText(resp.Text)
	}
	textEdits, _ := editapply.ParseText(resp.Text)
	plan, perr := planview.Parse(resp.Text)
	s.mu.Lock()
	s.streaming = ""
	s.snapshot = snap
	if perr == nil {
		s.plan = plan
	}
	s.mu.Unlock()
	if perr == nil {
		// Files the plan names are part of what it depends on: drift in
		// them between now and the editor call matters.
		named := e.namedFiles(plan.Text)
		more := e.ws.Snapshot(named)
		s.mu.Lock()
		if s.snapshot.Files == nil {
			s.snapshot.Files = map[string]workspace.FileState{}
		}
		for k, v := range more.Files {
			if _, ok := s.snapshot.Files[k]; !ok {
				s.snapshot.Files[k] = v
			}
		}
		s.mu.Unlock()
		e.emit(s, "plan", map[string]any{"plan": plan.Text, "model": resp.Model, "cycle": s.cycleNow(), "truncated": plan.Truncated})
		e.writePlan(s, true)
	}
	if len(calls) > 0 || len(textEdits) > 0 {
		e.fallback(s, "collapse", "the architect wrote edits itself: its answer is used as the editor's output and no editor call is made")
		mode := editMode{first: resp, firstCalls: calls}
		if perr == nil {
			mode.plan = plan.Text
		}
		return e.editLoop(ctx, s, p, cfg, mode)
	}
	if perr != nil {
		why := "the architect's answer has no usable plan (" + perr.Error() + ")"
		s.mu.Lock()
		s.planNote = "No plan: " + why + "; one call to the editor instead."
		s.mu.Unlock()
		e.fallback(s, "one_call", why+": falling through to one editor call")
		return e.oneCallTurn(ctx, s, p, cfg, feedback)
	}
	if cfg.ReviewPlan && !approved {
		s.setState(StateWaiting)
		e.writePlan(s, true)
		p.Report(fmt.Sprintf("architect: plan ready for approval (%d tokens)", resp.Usage.CompletionTokens))
		return nil
	}
	return e.editorTurn(ctx, s, p, cfg)
}

func (s *session) cycleNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cycle
}

// editorTurn checks drift and runs the editor on the plan.
func (e *Engine) editorTurn(ctx context.Context, s *session, p Progress, cfg config.Config) error {
	s.mu.Lock()
	s.state = StateEditing
	snap := s.snapshot
	s.mu.Unlock()
	e.writePlan(s, true)
	drift := e.ws.Drift(snap)
	note := ""
	if len(drift) > 0 {
		var files []map[string]any
		var lines []string
		for _, c := range drift {
			files = append(files, map[string]any{"path": c.Path, "kind": c.Kind, "summary": c.Summary})
			lines = append(lines, fmt.Sprintf("%s %s %s", c.Path, c.Kind, c.Summary))
		}
		s.mu.Lock()
		s.drift = drift
		s.log = append(s.log, "drift: "+strings.Join(lines, "; "))
		s.mu.Unlock()
		e.emit(s, "drift", map[string]any{"files": files, "onDrift": cfg.OnDrift})
		e.writePlan(s, true)
		switch cfg.OnDrift {
		case "stop":
			return e.fail(s, "files changed since the plan ("+strings.Join(lines, "; ")+") and onDrift is \"stop\": re-plan to continue")
		case "replan":
			return e.architectTurn(ctx, s, p, cfg, "These files changed since your last plan: "+strings.Join(lines, "; ")+". Plan again against their current content.", true)
		}
		note = "Note: these files changed since the plan was written: " + strings.Join(lines, "; ") + ". The content below is their current content; follow the plan against it."
	}
	s.mu.Lock()
	plan := s.plan.Text
	s.mu.Unlock()
	return e.editLoop(ctx, s, p, cfg, editMode{plan: plan, driftNote: note})
}

// oneCallTurn is the one-call path: a single editor call with the task, the
// context and the tools, and no plan.
func (e *Engine) oneCallTurn(ctx context.Context, s *session, p Progress, cfg config.Config, feedback string) error {
	s.mu.Lock()
	s.state = StateEditing
	s.oneCall = true
	s.mu.Unlock()
	e.writePlan(s, true)
	e.ensureIndex(ctx)
	return e.editLoop(ctx, s, p, cfg, editMode{oneCall: true, feedback: feedback})
}

// editMode says what the editor passes of a turn are given.
type editMode struct {
	plan       string // the plan (empty on the one-call path)
	oneCall    bool
	feedback   string
	driftNote  string
	first      *model.Response  // collapse: the architect's answer is the first editor output
	firstCalls []model.ToolCall // its tool calls (native or found in its text)
}

// editLoop runs editor passes until every edit matched, or the mistake limit
// stops the turn, and proposes what matched.
func (e *Engine) editLoop(ctx context.Context, s *session, p Progress, cfg config.Config, mode editMode) error {
	var proposed []editapply.Hunk
	var retry []editapply.Failure
	var already []editapply.Edit
	stop := ""
	sawEdits := false
	switched := false
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return errCancelled
		}
		var resp *model.Response
		var calls []model.ToolCall
		if attempt == 1 && mode.first != nil {
			resp, calls = mode.first, mode.firstCalls
		} else {
			req := e.editorRequest(s, cfg, mode, retry, already)
			if req.Model != s.editorModelNow() && !switched {
				switched = true
				e.fallback(s, "editor_switch", fmt.Sprintf("%d editor passes in a row had only failed edits (editorFailureThreshold): the architect's model %s edits now", cfg.EditorFailureThreshold, req.Model))
			}
			p.Report(fmt.Sprintf("editor: pass %d", attempt))
			var err error
			resp, err = e.call(ctx, s, p, req)
			if err != nil {
				return err
			}
			calls = resp.ToolCalls
			if len(calls) == 0 {
				calls = toolCallsInText(resp.Text)
			}
		}
		edits, failures := collectEdits(resp.Text, calls)
		sawEdits = sawEdits || len(edits) > 0 || len(failures) > 0
		res, refused := e.resolve(edits)
		for _, r := range refused {
			e.emit(s, "error", map[string]any{"message": "refused edit: " + r, "path": strings.SplitN(r, ":", 2)[0]})
			s.addLog("refused edit: %s", r)
		}
		hunks, overlaps := e.number(s, res.Hunks, proposed)
		failures = append(failures, res.Failures...)
		failures = append(failures, overlaps...)
		proposed = append(proposed, hunks...)
		already = res.AlreadyApplied
		if mode.first == nil || attempt > 1 {
			e.passEvent(s, "editor_pass", resp, model.Request{Model: resp.Model}, map[string]any{
				"attempt": attempt, "edits": len(edits) + len(failures) - len(res.Failures) - len(overlaps),
				"matched": len(hunks), "failed": len(failures), "alreadyPresent": len(res.AlreadyApplied),
			})
		}
		if len(failures) == 0 {
			p.Report(fmt.Sprintf("editor: %d edits", len(proposed)))
		} else {
			p.Report(fmt.Sprintf("editor: %d edits, %d failed", len(proposed), len(failures)))
		}
		s.mu.Lock()
		s.lastFailed = failures
		if len(failures) == 0 {
			s.mistakes = 0
			s.edFailures = 0
			s.mu.Unlock()
			break
		}
		s.mistakes++
		if len(hunks) == 0 && len(res.AlreadyApplied) == 0 {
			s.edFailures++
		} else {
			s.edFailures = 0
		}
		mistakes := s.mistakes
		var reasons []string
		for _, f := range failures {
			reasons = append(reasons, f.Edit.Path+": "+f.Reason)
		}
		s.log = append(s.log, fmt.Sprintf("editor pass %d: %d edit(s) failed: %s", attempt, len(failures), strings.Join(reasons, "; ")))
		s.mu.Unlock()
		if mistakes >= cfg.MaxMistakes {
			stop = fmt.Sprintf("stopped after %d consecutive failed editor passes (maxMistakes): %s", mistakes, strings.Join(reasons, "; "))
			break
		}
		retry = failures
		e.fallback(s, "retry", fmt.Sprintf("%d edit(s) failed; asking the editor again for those only", len(failures)))
	}
	if ctx.Err() != nil {
		return errCancelled
	}
	if len(proposed) == 0 {
		if stop != "" {
			return e.fail(s, stop)
		}
		reason := "the editor proposed no edits"
		if !sawEdits {
			reason = "the editor made no edits: it found nothing in the plan to carry out"
		}
		if len(already) > 0 {
			reason = "every change is already present in the files"
		}
		s.mu.Lock()
		s.state = StateDone
		s.log = append(s.log, reason)
		s.mu.Unlock()
		e.emit(s, "done", map[string]any{"proposed": 0, "reason": reason})
		e.writePlan(s, true)
		return nil
	}
	if stop != "" {
		s.addLog("%s", stop)
		e.emit(s, "error", map[string]any{"message": stop})
	}
	return e.propose(ctx, s, proposed)
}

// propose hands the finished hunks to the client.
func (e *Engine) propose(ctx context.Context, s *session, hunks []editapply.Hunk) error {
	if ctx.Err() != nil {
		return errCancelled
	}
	diff := editapply.RenderDiff(hunks, e.ws)
	var list []map[string]any
	s.mu.Lock()
	for _, h := range hunks {
		s.hunks = append(s.hunks, &hunkState{hunk: h, status: hunkPending})
		list = append(list, map[string]any{"id": h.ID, "path": h.Path, "kind": string(h.Kind), "summary": h.Summary})
	}
	s.diff = diff
	s.state = StateProposed
	task := s.task
	s.mu.Unlock()
	e.emit(s, "proposal", map[string]any{"hunks": list})
	e.writePlan(s, true)
	e.client.Propose(Proposal{Session: s.id, Task: task, Hunks: hunks})
	return nil
}

// number gives hunks session-wide ids and refuses hunks that overlap ones
// already proposed in this turn (every pass resolves against the same
// unchanged files, so two passes can target the same lines).
func (e *Engine) number(s *session, hunks, earlier []editapply.Hunk) ([]editapply.Hunk, []editapply.Failure) {
	var ok []editapply.Hunk
	var failed []editapply.Failure
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hunks {
		clash := ""
		for _, o := range append(append([]editapply.Hunk(nil), earlier...), ok...) {
			if o.Path != h.Path && !(o.Kind == editapply.KindRename && o.NewPath == h.Path) {
				continue
			}
			if o.Kind != editapply.KindEdit || h.Kind != editapply.KindEdit || h.Start < o.End && o.Start < h.End {
				clash = o.ID
				break
			}
		}
		if clash != "" {
			failed = append(failed, editapply.Failure{
				Edit:   editapply.Edit{Kind: h.Kind, Path: h.Path, OldText: h.OldText, NewText: h.NewText, NewPath: h.NewPath},
				Reason: "it overlaps edit " + clash + " that is already proposed; leave that part alone",
			})
			continue
		}
		s.nextHunk++
		h.ID = fmt.Sprintf("h%d", s.nextHunk)
		ok = append(ok, h)
	}
	return ok, failed
}

// resolve matches edits against the current files, refusing paths outside
// the workspace or denied (contract §8) and edits that break the syntax.
func (e *Engine) resolve(edits []editapply.Edit) (editapply.Result, []string) {
	var mu sync.Mutex
	var refused []string
	opts := editapply.Options{
		Allow: func(path string) (string, error) {
			_, rel, err := e.ws.Resolve(path)
			if err != nil {
				mu.Lock()
				refused = append(refused, path+": "+err.Error())
				mu.Unlock()
				return "", err
			}
			return rel, nil
		},
		Syntax: treesitter.SyntaxCheck,
	}
	if len(edits) == 0 {
		return editapply.Result{}, nil
	}
	res := editapply.Resolve(edits, e.ws, opts)
	return res, refused
}

// collectEdits turns the model's tool calls and its text (SEARCH/REPLACE
// blocks, diff fences) into edits; unreadable tool calls are failures.
func collectEdits(text string, calls []model.ToolCall) ([]editapply.Edit, []editapply.Failure) {
	var edits []editapply.Edit
	var failures []editapply.Failure
	for _, c := range calls {
		ed, err := editapply.FromToolCall(c.Name, c.Arguments)
		if err != nil {
			failures = append(failures, editapply.Failure{Edit: editapply.Edit{Path: c.Name, Source: "tool"}, Reason: "unreadable tool call: " + err.Error()})
			continue
		}
		edits = append(edits, ed)
	}
	if len(calls) == 0 {
		more, _ := editapply.ParseText(text)
		edits = append(edits, more...)
	}
	return edits, failures
}

// call makes one model call, streams progress (and the architect's plan into
// the plan document), and meters it.
func (e *Engine) call(ctx context.Context, s *session, p Progress, req model.Request) (*model.Response, error) {
	role := string(req.Role)
	var buf strings.Builder
	lastShown := e.now()
	chars := 0
	onDelta := func(d model.Delta) {
		chars += len(d.Text)
		if d.ToolCall != nil {
			chars += len(d.ToolCall.Arguments)
		}
		if req.Role == model.RoleArchitect {
			buf.WriteString(d.Text)
		}
		// Refresh at most every streamRefresh: a person cannot read faster,
		// and each refresh rewrites the plan file and notifies the client.
		if now := e.now(); now.Sub(lastShown) >= streamRefresh {
			lastShown = now
			// "architect: planning (412 tokens)", "editor: writing edits (90 tokens)".
			verb := "writing edits"
			if req.Role == model.RoleArchitect {
				verb = "planning"
			}
			p.Report(fmt.Sprintf("%s: %s (%d tokens)", role, verb, chars/4))
			if req.Role == model.RoleArchitect {
				s.mu.Lock()
				s.streaming = buf.String()
				s.mu.Unlock()
				e.writePlan(s, true)
			}
		}
	}
	resp, err := e.models.Chat(ctx, req, onDelta)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errCancelled
		}
		s.addLog("%s call to %s failed: %v", role, req.Model, err)
		return nil, e.fail(s, fmt.Sprintf("the %s call to %s failed: %v", role, req.Model, err))
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	e.meter.Record(req.Role, resp)
	s.mu.Lock()
	s.passes = append(s.passes, passRecord{model: resp.Model, role: req.Role, prompt: resp.Usage.PromptTokens,
		complete: resp.Usage.CompletionTokens, estimated: resp.Usage.Estimated})
	s.mu.Unlock()
	return resp, nil
}

// streamRefresh is how often streamed text refreshes progress and the plan
// document: four times a second is smooth to read and cheap to write.
const streamRefresh = 250 * time.Millisecond

func (e *Engine) passEvent(s *session, name string, resp *model.Response, _ model.Request, extra map[string]any) {
	f := map[string]any{
		"model": resp.Model, "promptTokens": resp.Usage.PromptTokens, "completionTokens": resp.Usage.CompletionTokens,
		"ms": resp.Duration.Milliseconds(),
	}
	if resp.Usage.Estimated {
		f["estimated"] = true
	}
	for k, v := range extra {
		f[k] = v
	}
	e.emit(s, name, f)
}

func (e *Engine) ensureIndex(ctx context.Context) {
	if e.index == nil {
		return
	}
	if e.indexReady != nil { // the caller's build, not a second one
		e.indexReady(ctx)
		return
	}
	e.indexOnce.Do(func() {
		files, err := e.ws.Files(ctx)
		if err == nil {
			_, _ = e.index.Build(ctx, files)
		}
	})
}

type nopProgress struct{}

func (nopProgress) Report(string) {}
