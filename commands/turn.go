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
	turnRerun                   // aide.rerunHunk: the editor again for stale hunks
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
	fromComment := a.FromAIComment && task != ""
	if (task == "" || a.Range != nil) && len(focus) > 0 {
		if text, ok, err := e.ws.Read(focus[0]); err == nil && ok {
			from, to := 0, 0
			if a.Range != nil {
				from, to = a.Range.Start.Line, a.Range.End.Line
			}
			for l := from; l <= to && l <= from+maxAICommentLines; l++ {
				if c, ok := FindAIComment(focus[0], text, l); ok && c.Task != "" {
					if task == "" {
						task = c.Task
					}
					fromComment = fromComment || c.Task == task
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
		if err := config.ValidModelID(m); err != nil {
			return nil, err
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
	s.fromComment = fromComment
	s.setBusy()
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
		s.clearBusy()
		s.cancelFn = nil
		s.mu.Unlock()
	}()
	if kind == turnApprove {
		// Before anything rewrites the plan file: the user may have edited it.
		e.takeEditedPlan(s)
	}
	if kind == turnReplan {
		// Before the withdrawal and any rewrite: a reason written on a
		// pending hunk's line rejects it, and the notes go to the architect.
		e.takeFeedback(s)
	}
	e.setLatest(s)
	e.writePlan(s, true) // shows the plan document
	var err error
	if reason == "" {
		t := &turn{e: e, s: s, ctx: ctx, p: p, cfg: e.config()}
		err = t.run(kind, feedback)
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

// step is one step of a turn: what runs next and what it is given. A turn
// is a sequence of steps (architect → editor → edits, with the fallbacks
// between them) that turn runs in a loop until one says the turn is over:
// no step calls another.
type step struct {
	kind     stepKind
	feedback string   // architect / one call: what the user or the drift said
	approved bool     // architect: the user already approved going on to the editor
	mode     editMode // edits: what the editor passes are given
}

type stepKind int

const (
	stepArchitect stepKind = iota // architect pass, then its plan decides
	stepEditor                    // drift check (onDrift), then the editor on the plan
	stepOneCall                   // one editor call, no plan
	stepEdits                     // editor passes until the edits match; propose
	stepRerun                     // the editor again for hunks the user's edits made stale
	stepEnd                       // the turn is over
)

// turn is one user turn of a session: what each of its steps works with.
type turn struct {
	e   *Engine
	s   *session
	ctx context.Context
	p   Progress
	cfg config.Config // the configuration when the turn started
}

// run runs the turn's steps until one says the turn is over.
func (t *turn) run(kind turnKind, feedback string) error {
	t.s.mu.Lock()
	if t.s.reloaded {
		// A session read back from .aide/sessions (which a repository can
		// ship): its task is shown with the plan derived again, and the
		// plan waits for approval whatever reviewPlan says (contract §5).
		t.cfg.ReviewPlan = true
	}
	t.s.mu.Unlock()
	next := t.e.firstStep(t.s, kind, feedback)
	for next.kind != stepEnd {
		var err error
		switch next.kind {
		case stepArchitect:
			next, err = t.architect(next.feedback, next.approved)
		case stepEditor:
			next, err = t.editor()
		case stepOneCall:
			next, err = t.oneCall(next.feedback)
		case stepRerun:
			next, err = t.rerun()
		case stepEdits:
			next, err = step{kind: stepEnd}, t.edits(next.mode)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// firstStep is where a user turn starts.
func (e *Engine) firstStep(s *session, kind turnKind, feedback string) step {
	s.mu.Lock()
	isEdit, reloaded := s.kind == "edit", s.reloaded
	s.mu.Unlock()
	switch kind {
	case turnApprove:
		if reloaded {
			e.fallback(s, "rederive", "this session was reloaded from .aide/sessions: its plan is derived again, not replayed, and waits for approval")
			s.mu.Lock()
			s.reloaded = false
			s.mu.Unlock()
			return step{kind: stepArchitect}
		}
		return step{kind: stepEditor}
	case turnRerun:
		return step{kind: stepRerun}
	case turnReplan:
		e.withdraw(s, "superseded by a re-plan")
		s.mu.Lock()
		s.reloaded = false
		s.diff = ""
		s.mu.Unlock()
		if isEdit {
			return step{kind: stepOneCall, feedback: feedback}
		}
		return step{kind: stepArchitect, feedback: feedback}
	}
	if isEdit {
		return step{kind: stepOneCall}
	}
	return step{kind: stepArchitect}
}

func (e *Engine) fallback(s *session, kind, reason string) {
	s.addLog("fallback (%s): %s", kind, reason)
	e.emit(s, EvFallback, FallbackData{Kind: kind, Reason: reason})
}

// architect runs the architect pass and says what follows from its
// answer. approved means the user already approved going on to the editor.
func (t *turn) architect(feedback string, approved bool) (step, error) {
	e, s, ctx, p, cfg := t.e, t.s, t.ctx, t.p, t.cfg
	end := step{kind: stepEnd}
	s.mu.Lock()
	capped := s.cycle >= cfg.MaxCycles
	s.mu.Unlock()
	if capped {
		e.fallback(s, "cycle_cap", fmt.Sprintf("the session used its %d architect/editor cycles (maxCycles): this turn is one call", cfg.MaxCycles))
		return step{kind: stepOneCall, feedback: feedback}, nil
	}
	if err := e.move(s, StatePlanning, func() {
		s.cycle++
		s.oneCall = false
		if s.plan.Text != "" {
			s.lastPlan = s.plan.Text
		}
		s.plan = planview.Plan{}
		s.planNote = ""
		s.drift = nil
	}); err != nil {
		return end, err
	}
	e.ensureIndex(ctx)
	req, inPrompt := e.architectRequest(s, cfg, feedback)
	// The plan document says what the map saw.
	if c := e.indexCoverage(); c.FromLastSession {
		s.addLog("the repository map was made from the last session's index (%d files; the files it names were checked against the disk): the workspace is still being listed and compared", c.Indexed)
	} else if c.Partial() {
		s.addLog("the repository map was made from %d of %d files: the index is still being built", c.Indexed, c.Listed)
	}
	snap := e.ws.Snapshot(inPrompt)
	p.Report("architect: planning")
	resp, err := t.call(req)
	if err != nil {
		return end, err
	}
	e.emit(s, EvArchitectPass, passData(resp))

	calls := resp.ToolCalls
	if len(calls) == 0 {
		calls = toolCallsInText(resp.Text)
	}
	textEdits, _ := editapply.ParseText(resp.Text)
	plan, perr := planview.Parse(resp.Text)
	// The model wrote it: nothing in it may make a Markdown preview of the
	// plan document fetch (planview.Defang). What the user edits later is
	// theirs and is read back as written.
	plan.Text = planview.Defang(plan.Text)
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
		e.emit(s, EvPlan, PlanData{Plan: plan.Text, Model: resp.Model, Cycle: s.cycleNow(), Truncated: plan.Truncated})
		e.writePlan(s, true)
	}
	if len(calls) > 0 || len(textEdits) > 0 {
		e.fallback(s, "collapse", "the architect wrote edits itself: its answer is used as the editor's output and no editor call is made")
		mode := editMode{first: resp, firstCalls: calls}
		if perr == nil {
			mode.plan = plan.Text
		}
		return step{kind: stepEdits, mode: mode}, nil
	}
	if perr != nil {
		why := "the architect's answer has no usable plan (" + perr.Error() + ")"
		s.mu.Lock()
		s.planNote = "No plan: " + why + "; one call to the editor instead."
		s.mu.Unlock()
		e.fallback(s, "one_call", why+": falling through to one editor call")
		return step{kind: stepOneCall, feedback: feedback}, nil
	}
	if cfg.ReviewPlan && !approved {
		ests := e.priceNextCall(ctx, s, cfg)
		if err := e.move(s, StateWaiting, func() { s.estimates = ests }); err != nil {
			return end, err
		}
		p.Report(fmt.Sprintf("architect: plan ready for approval (%d tokens)", resp.Usage.CompletionTokens))
		return end, nil
	}
	return step{kind: stepEditor}, nil
}

func (s *session) verifyLabelNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verifyLabel
}

func (s *session) cycleNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cycle
}

// editor checks drift (onDrift decides) before the editor runs on the plan.
func (t *turn) editor() (step, error) {
	e, s, cfg := t.e, t.s, t.cfg
	end := step{kind: stepEnd}
	var snap workspace.Snapshot
	if err := e.move(s, StateEditing, func() { snap = s.snapshot }); err != nil {
		return end, err
	}
	drift := e.ws.Drift(snap)
	note := ""
	if len(drift) > 0 {
		files, lines := driftFiles(drift)
		s.mu.Lock()
		s.drift = drift
		s.log = append(s.log, "drift: "+strings.Join(lines, "; "))
		s.mu.Unlock()
		e.emit(s, EvDrift, DriftData{Files: files, OnDrift: cfg.OnDrift})
		e.writePlan(s, true)
		switch cfg.OnDrift {
		case "stop":
			return end, e.fail(s, "files changed since the plan ("+strings.Join(lines, "; ")+") and onDrift is \"stop\": re-plan to continue")
		case "replan":
			return step{kind: stepArchitect, approved: true,
				feedback: "These files changed since your last plan: " + strings.Join(lines, "; ") + ". Plan again against their current content."}, nil
		}
		note = "Note: these files changed since the plan was written: " + strings.Join(lines, "; ") + ". The content below is their current content; follow the plan against it."
	}
	s.mu.Lock()
	plan := s.plan.Text
	s.mu.Unlock()
	return step{kind: stepEdits, mode: editMode{plan: plan, driftNote: note}}, nil
}

// oneCall starts the one-call path: a single editor call with the task,
// the context and the tools, and no plan.
func (t *turn) oneCall(feedback string) (step, error) {
	e, s := t.e, t.s
	if err := e.move(s, StateEditing, func() { s.oneCall = true }); err != nil {
		return step{kind: stepEnd}, err
	}
	e.ensureIndex(t.ctx)
	return step{kind: stepEdits, mode: editMode{oneCall: true, feedback: feedback}}, nil
}

// editMode says what the editor passes of a turn are given.
type editMode struct {
	plan       string // the plan (empty on the one-call path)
	oneCall    bool
	feedback   string
	driftNote  string
	redo       []editapply.Failure // rerun: the changes to make again, from the first pass
	first      *model.Response     // collapse: the architect's answer is the first editor output
	firstCalls []model.ToolCall    // its tool calls (native or found in its text)
	held       []editapply.Edit    // held back with the failed edits; sent again by the engine
	// verifyFeedback is what the last candidate broke (verify.go): it was
	// discarded, and the editor makes the edits again.
	verifyFeedback string
}

// edits runs editor passes until every edit matched, or the mistake limit
// stops the turn, and proposes what matched.
func (t *turn) edits(mode editMode) error {
	e, s, ctx, p, cfg := t.e, t.s, t.ctx, t.p, t.cfg
	var proposed []editapply.Hunk
	stepOf := map[string]int{} // hunk id → plan step (steps.go)
	planSteps := map[int]bool{}
	for _, n := range planview.Steps(mode.plan) {
		planSteps[n] = true
	}
	retry := mode.redo
	var already []editapply.Edit
	stop := ""
	var held []editapply.Edit // held back with a failed edit (editapply.Result.HeldBack)
	sawEdits := false
	switched := false
	verifyFailed := 0 // candidates discarded because verification failed
	s.mu.Lock()
	s.verified, s.verifyNote, s.verifyLabel = nil, "", ""
	firstID := s.nextHunk // a discarded candidate gives its hunk ids back
	s.mu.Unlock()
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
			resp, err = t.call(req)
			if err != nil {
				return err
			}
			calls = resp.ToolCalls
			if len(calls) == 0 {
				calls = toolCallsInText(resp.Text)
			}
		}
		edits, failures := collectEdits(resp.Text, calls)
		if why := cutOffAnswer(resp.StopReason); why != "" && len(edits) > 0 {
			// The answer stopped at the model's output limit: what came may
			// read as whole while the rest of the change never came.
			// Nothing of it is applied; a block naming no file holds back
			// the whole answer (contract §9.2).
			edits = append(edits, editapply.Edit{Kind: editapply.KindInvalid, Source: "answer", Reason: why})
		}
		if len(edits) == 0 && len(failures) == 0 && len(retry) > 0 {
			// A retry answered with no edit at all: the failures (and what
			// was held back with them) stay outstanding.
			s.mu.Lock()
			s.lastFailed = retry
			s.mu.Unlock()
			stop = fmt.Sprintf("the editor sent no corrected edits for the %d that failed", len(retry))
			break
		}
		if len(held) > 0 {
			// Edits held back with a failed one go in again, before the
			// corrections, so their unit is applied whole or not at all.
			edits = append(append([]editapply.Edit(nil), held...), edits...)
		}
		sawEdits = sawEdits || len(edits) > 0 || len(failures) > 0
		res, refused := e.resolve(s, edits)
		held = nil
		for _, h := range res.HeldBack {
			held = append(held, h.Edit)
		}
		mode.held = held
		for _, r := range refused {
			e.emit(s, EvError, ErrorData{Message: "refused edit: " + r, Path: strings.SplitN(r, ":", 2)[0]})
			s.addLog("refused edit: %s", r)
		}
		hunks, overlaps := e.number(s, res.Hunks, proposed)
		assignSteps(hunks, edits, callSteps(calls), planSteps, stepOf)
		failures = append(failures, res.Failures...)
		failures = append(failures, overlaps...)
		proposed = append(proposed, hunks...)
		already = res.AlreadyApplied
		if mode.first == nil || attempt > 1 {
			e.emit(s, EvEditorPass, EditorPassData{PassData: passData(resp),
				Attempt: attempt, Edits: len(edits) + len(failures) - len(res.Failures) - len(overlaps),
				Matched: len(hunks), Failed: len(failures), AlreadyPresent: len(res.AlreadyApplied),
			})
		}
		if len(failures) == 0 {
			p.Report(fmt.Sprintf("editor: %d edits", len(proposed)))
		} else {
			p.Report(fmt.Sprintf("editor: %d edits, %d failed", len(proposed), len(failures)))
		}
		if len(failures) == 0 {
			// Every edit matched: the candidate is verified before it is
			// proposed (verify.go). A failure discards it and asks the
			// editor again, as a failed pass.
			v := e.verifyCandidate(ctx, s, p, cfg, proposed)
			if ctx.Err() != nil {
				return errCancelled
			}
			s.mu.Lock()
			s.lastFailed = nil
			s.edFailures = 0
			if !v.ran || v.ok {
				s.mistakes = 0
				if v.notRun != "" {
					s.verifyLabel = v.notRun
				}
				if v.ran {
					s.verifyLabel = labelBuilds
					if v.unconfined {
						s.verifyLabel = verifyLabel(labelBuilds, labelUnconfined)
					}
					if verifyFailed > 0 {
						s.verifyNote = fmt.Sprintf("Passed after feedback: the editor's earlier answer(s) failed verification %d time(s) and were discarded.", verifyFailed)
					}
				}
				s.mu.Unlock()
				break
			}
			s.mistakes++
			mistakes := s.mistakes
			s.verifyLabel = labelBuildFailed
			s.log = append(s.log, fmt.Sprintf("editor pass %d: verification failed: %s", attempt, v.summary))
			s.mu.Unlock()
			verifyFailed++
			if mistakes >= cfg.MaxMistakes {
				// The budget is spent: the last candidate goes to the user
				// with its failure attached, never silently.
				s.mu.Lock()
				s.verifyNote = fmt.Sprintf("Failed: the editor's answers failed verification %d time(s); the last one is proposed as it is (maxMistakes).", verifyFailed)
				s.mu.Unlock()
				stop = fmt.Sprintf("verification failed %d time(s) in a row (maxMistakes): the last candidate is proposed with its failure: %s", verifyFailed, v.summary)
				break
			}
			// Discarded: the editor starts again from the files as they
			// are, told what its last answer broke.
			e.fallback(s, "verify", "the edits failed verification ("+v.summary+"): asking the editor again with the errors")
			proposed, retry, already, held = nil, nil, nil, nil
			s.mu.Lock()
			s.nextHunk = firstID
			s.mu.Unlock()
			stepOf = map[string]int{}
			mode.held, mode.verifyFeedback, mode.redo = nil, v.feedback, nil
			continue
		}
		s.mu.Lock()
		s.lastFailed = failures
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
		return e.move(s, StateDone, func() { s.log = append(s.log, reason) },
			ev(EvDone, DoneData{Proposed: intp(0), Reason: reason}))
	}
	if stop != "" {
		s.addLog("%s", stop)
		e.emit(s, EvError, ErrorData{Message: stop})
	}
	return t.propose(proposed, stepOf, planview.Steps(mode.plan))
}

// propose hands the finished hunks to the client for review.
// stepOf names the plan step of each hunk that has one; planSteps are the
// plan's steps.
func (t *turn) propose(hunks []editapply.Hunk, stepOf map[string]int, planSteps []int) error {
	e, s, ctx := t.e, t.s, t.ctx
	if ctx.Err() != nil {
		return errCancelled
	}
	ai, withAI := e.aiCommentHunk(s, hunks)
	all := hunks
	if withAI {
		all = append(append([]editapply.Hunk(nil), hunks...), ai)
	}
	diff := editapply.RenderDiff(all, e.ws)
	traced := len(stepOf) > 0 // the editor named steps: those without are not in the plan
	var list []ProposedHunk
	labels := map[string]string{}
	done := map[int]bool{}
	for _, h := range hunks {
		ph := proposedHunk(h)
		if n, ok := stepOf[h.ID]; ok {
			ph.Step = intp(n)
			done[n] = true
		}
		ph.NotInPlan = traced && ph.Step == nil
		if l := verifyLabel(stepLabel(stepOf[h.ID], traced, false), s.verifyLabelNow()); l != "" {
			labels[h.ID] = l
		}
		list = append(list, ph)
	}
	var idle []int
	if traced {
		for _, n := range planSteps {
			if !done[n] {
				idle = append(idle, n)
			}
		}
	}
	events := []Event{ev(EvProposal, ProposalData{Hunks: list, StepsWithoutHunks: idle})}
	if withAI {
		// Its own event, marked, as before the removal moved into this step
		// (cmd run and the session files tell it from the model's hunks).
		events = append(events, ev(EvProposal, ProposalData{Hunks: []ProposedHunk{proposedHunk(ai)}, AIComment: true}))
	}
	bases := make([][2]string, len(all))
	for i, h := range all {
		bases[i][0], bases[i][1] = e.reviewBase(h)
	}
	if err := e.move(s, StateProposed, func() {
		for i, h := range all {
			s.hunks = append(s.hunks, &hunkState{hunk: h, abs: bases[i][0], base: bases[i][1], status: hunkPending, aiComment: withAI && h.ID == ai.ID})
		}
		s.diff = diff
		s.startRound(ctx, labels)
		if s.stepOf == nil {
			s.stepOf = map[string]int{}
		}
		for id, n := range stepOf {
			s.stepOf[id] = n
		}
		s.traced, s.idleSteps = traced, idle
	}, events...); err != nil {
		return err
	}
	// The client returns at once: the turn ends here, and the review goes
	// on without it (reviewset.go), so cancel and re-plan act while the
	// editor still shows the proposal.
	e.deliver(s, all, false)
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
		// Only earlier passes can clash: the hunks of one Resolve result
		// never overlap, and an edit then a rename of the same file are one
		// answer (a rename checked against its own file's edit was refused).
		for _, o := range earlier {
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
// the workspace or denied (contract §8); editapply's verifier judges every
// changed file against the task and the plan (docs/edits.md).
func (e *Engine) resolve(s *session, edits []editapply.Edit) (editapply.Result, []string) {
	var mu sync.Mutex
	var refused []string
	s.mu.Lock()
	plan := s.task + "\n" + s.plan.Text
	s.mu.Unlock()
	opts := editapply.Options{
		Plan: plan,
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
	}
	if len(edits) == 0 {
		return editapply.Result{}, nil
	}
	res := editapply.Resolve(edits, e.ws, opts)
	return res, refused
}

// cutOffAnswer says why an answer that stopped for the reason given is not
// whole, or "" when it ended on its own. OpenAI reports "length",
// Anthropic "max_tokens".
func cutOffAnswer(stopReason string) string {
	switch stopReason {
	case "length", "max_tokens":
		return "your answer stopped at the output limit, so its last edit may be cut off; send the edits again, fewer or shorter ones per answer"
	}
	return ""
}

// collectEdits turns the model's tool calls and its text (SEARCH/REPLACE
// blocks, diff fences) into edits; unreadable tool calls are failures.
// Edits in the text of an answer with tool calls are marked as such.
func collectEdits(text string, calls []model.ToolCall) ([]editapply.Edit, []editapply.Failure) {
	var edits []editapply.Edit
	var failures []editapply.Failure
	for _, c := range calls {
		eds, err := editapply.FromToolCalls(c.Name, c.Arguments)
		if err != nil {
			failures = append(failures, editapply.Failure{Edit: editapply.Edit{Path: c.Name, Source: "tool"}, Reason: "unreadable tool call: " + err.Error()})
			continue
		}
		edits = append(edits, eds...)
	}
	more, _ := editapply.ParseText(text)
	if len(calls) > 0 {
		// Edits in the text beside tool calls: the answer may mean either
		// or both; Resolve resolves each reading (docs/edits.md, readings).
		more = editapply.AlsoInText(more)
	}
	edits = append(edits, more...)
	return edits, failures
}

// call makes one model call, streams progress (and the architect's plan into
// the plan document), and meters it.
func (t *turn) call(req model.Request) (*model.Response, error) {
	e, s, ctx, p := t.e, t.s, t.ctx, t.p
	role := string(req.Role)
	var buf strings.Builder
	lastShown := e.now()
	wait := streamRefresh // until the next refresh (refreshShare)
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
		if now := e.now(); now.Sub(lastShown) >= wait {
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
			lastShown = e.now()
			wait = max(streamRefresh, refreshShare*lastShown.Sub(now))
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
	if req.Role == model.RoleEditor {
		e.afterEditorCall(s, resp)
	}
	s.mu.Lock()
	s.passes = append(s.passes, passRecord{model: resp.Model, role: req.Role, prompt: resp.Usage.PromptTokens,
		complete: resp.Usage.CompletionTokens, estimated: resp.Usage.Estimated})
	s.mu.Unlock()
	return resp, nil
}

// streamRefresh is how often streamed text refreshes progress and the plan
// document: four times a second is smooth to read and cheap to write.
const streamRefresh = 250 * time.Millisecond

// refreshShare bounds the refreshes' share of a stream's time: the next
// refresh waits refreshShare times as long as the last one took. A refresh
// renders the whole plan so far, so refreshing on a fixed clock alone
// made a fast stream quadratic: once a render took longer than
// streamRefresh, every delta rendered the whole text again
// (docs/performance.md, "Streaming to a client").
const refreshShare = 4

// passData is the metering of one model call, for its pass event.
func passData(resp *model.Response) PassData {
	return PassData{Model: resp.Model, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
		Ms: resp.Duration.Milliseconds(), Estimated: resp.Usage.Estimated}
}

// proposedHunk is a hunk as a proposal event lists it.
func proposedHunk(h editapply.Hunk) ProposedHunk {
	return ProposedHunk{ID: h.ID, Path: h.Path, Kind: string(h.Kind), Summary: h.Summary}
}

func (e *Engine) ensureIndex(ctx context.Context) {
	if e.index == nil {
		return
	}
	if e.indexReady != nil { // the caller's build, not a second one
		e.indexReady(ctx)
		return
	}
	// The build goes on in the background; the map waits only for the
	// files near its request (treesitter's progressive index), or, on a
	// warm start, not at all: it is made from the last session's index,
	// checked where it reads it (treesitter's Preload).
	e.indexOnce.Do(func() {
		if e.index.Preload(e.ws.Listed) {
			go func() {
				if files, err := e.ws.Files(context.WithoutCancel(ctx)); err == nil {
					_, _ = e.index.Build(context.WithoutCancel(ctx), files)
				}
			}()
			return
		}
		if files, err := e.ws.Files(ctx); err == nil {
			go func() { _, _ = e.index.Build(context.WithoutCancel(ctx), files) }()
			e.index.WaitStarted(ctx)
		}
	})
}

// indexCoverage is how much of the repository the index holds now.
func (e *Engine) indexCoverage() treesitter.Coverage {
	if e.index == nil {
		return treesitter.Coverage{}
	}
	return e.index.Coverage()
}

type nopProgress struct{}

func (nopProgress) Report(string) {}
