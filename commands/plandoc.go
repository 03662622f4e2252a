package commands

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"

	"github.com/aide-lsp/aide-lsp/clienttext"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// The plan document (contract §5): rendered from the session, written to
// .aide/plans/<session>.md (and latest.md for the newest session), told to
// the client, and read back with the user's edits.

// doc builds the plan document of the session.
func (e *Engine) doc(s *session) planview.Doc {
	cfg := e.config()
	s.mu.Lock()
	defer s.mu.Unlock()
	d := planview.Doc{
		Session: s.id, Task: s.task, State: string(s.state), Reason: s.reason, Cycle: s.cycle, MaxCycles: cfg.MaxCycles,
		ArchitectModel: s.archModel, EditorModel: s.edModel, OneCall: s.oneCall,
		Plan: s.plan, PlanNote: s.planNote, Diff: s.diff, Log: append([]string(nil), s.log...), Notes: s.notes,
		Versus: s.versus, Verification: withoutOutput(s.verified), VerifyNote: s.verifyNote,
	}
	if s.state == StateWaiting {
		d.Estimates = estimateLines(s.estimates)
	}
	if s.traced && len(s.hunks) > 0 {
		d.IdleSteps = append([]int(nil), s.idleSteps...)
	}
	if d.Plan.Text == "" && s.streaming != "" {
		d.PlanNote = "The architect is writing the plan…"
		d.Streaming = s.streaming
	}
	for _, c := range s.drift {
		d.Drift = append(d.Drift, planview.DriftItem{Path: c.Path, Kind: c.Kind, Summary: c.Summary})
	}
	for _, h := range s.hunks {
		d.Hunks = append(d.Hunks, planview.HunkLine{ID: h.hunk.ID, Summary: h.hunk.Summary, Status: string(h.status), Reason: h.reason,
			Step: stepLabel(s.stepOf[h.hunk.ID], s.traced, h.aiComment)})
	}
	d.Undo = s.undoLines()
	d.Cost = costLines(s.passes, cfg.Prices)
	return d
}

func costLines(passes []passRecord, prices map[string]model.Price) []planview.CostLine {
	type key struct {
		model string
		role  model.Role
	}
	rows := map[key]*planview.CostLine{}
	var order []key
	for _, p := range passes {
		k := key{p.model, p.role}
		r := rows[k]
		if r == nil {
			r = &planview.CostLine{Model: p.model, Role: string(p.role)}
			rows[k] = r
			order = append(order, k)
		}
		r.Requests++
		r.PromptTokens += p.prompt
		r.CompletionTokens += p.complete
		r.Estimated = r.Estimated || p.estimated
		r.CostUSD += prices[p.model].Cost(p.prompt, p.complete)
		r.PriceFrom = prices[p.model].From
	}
	out := make([]planview.CostLine, 0, len(order))
	for _, k := range order {
		out = append(out, *rows[k])
	}
	return out
}

// writePlan saves the state file, renders and writes the plan document,
// then tells the client: ShowPlan the first time (when notify),
// PlanChanged after that.
func (e *Engine) writePlan(s *session, notify bool) {
	s.planMu.Lock()
	defer s.planMu.Unlock()
	e.keepSavedEdit(s)
	e.saveState(s) // the state file before the plan document (move: emit → save → plan)
	e.keepNotes(s)
	text := clienttext.Markdown(planview.Render(e.doc(s))) // the border's text of it (contract §8), as the client gets it, so the file and the client's copy are the same
	if !e.userEditing(s.planPath) {
		if err := e.writePlanFile(s.planPath, text); err != nil {
			e.client.Message("warning", fmt.Sprintf("aide: could not write the plan document %s: %v", s.planPath, err))
		}
	}
	latest := ""
	if e.isLatest(s) {
		latest = filepath.Join(filepath.Dir(s.planPath), LatestPlanName)
		if e.userEditing(latest) {
			// Its text is still the client's to know (PlanDoc.LatestPath).
		} else if err := e.writePlanFile(latest, text); err != nil {
			e.client.Message("warning", fmt.Sprintf("aide: could not write the plan document %s: %v", latest, err))
			latest = ""
		}
	}
	e.plans.remember(filepath.Clean(s.planPath), text)
	if latest != "" {
		e.plans.remember(filepath.Clean(latest), text)
	}
	s.mu.Lock()
	s.planVersion++
	doc := PlanDoc{Session: s.id, Path: s.planPath, Version: s.planVersion, Text: text, State: s.state, LatestPath: latest}
	first := !s.planShown && notify
	if notify {
		s.planShown = true
	}
	shown := s.planShown
	s.mu.Unlock()
	switch {
	case first:
		e.client.ShowPlan(doc)
	case shown:
		e.client.PlanChanged(doc)
	}
}

// keepSavedEdit makes the plan of a waiting session the one the user saved
// in its plan document, before the document is written again (a live-drift
// refresh, a settings change): a saved edit is the plan (contract §4),
// whether or not an editor still has the file open, and a rewrite that
// dropped it would lose it. What the file holds is the user's when it is
// a document of this session's that differs from the text this run last
// wrote there. An open, unsaved buffer is the client's to guard
// (Client.PlanEdited).
func (e *Engine) keepSavedEdit(s *session) {
	s.mu.Lock()
	skip := s.state != StateWaiting || s.reloaded
	s.mu.Unlock()
	if skip {
		return
	}
	paths := []string{s.planPath}
	if e.isLatest(s) {
		paths = append(paths, filepath.Join(filepath.Dir(s.planPath), LatestPlanName))
	}
	for _, path := range paths {
		data, err := workspace.ReadRegular(path, workspace.MaxStateBytes)
		if err != nil || e.lastWrote(path, string(data)) || !e.ownDoc(s, path, string(data)) {
			continue
		}
		e.adoptPlan(s, string(data))
		return
	}
}

// lastWrote reports whether text is what this run last wrote at path.
func (e *Engine) lastWrote(path, text string) bool {
	e.lastMu.Lock()
	defer e.lastMu.Unlock()
	sum, ok := e.lastPlan[path]
	return ok && sum == sha256.Sum256([]byte(text))
}

// writePlanFile writes a plan document and remembers, in the user's state
// folder, that the engine wrote it (Options.Written).
func (e *Engine) writePlanFile(path, text string) error {
	if err := e.writePrivate(path, []byte(text)); err != nil {
		return err
	}
	e.lastMu.Lock()
	if e.lastPlan == nil {
		e.lastPlan = map[string][32]byte{}
	}
	e.lastPlan[path] = sha256.Sum256([]byte(text))
	e.lastMu.Unlock()
	if err := e.written.Record(path, text); err != nil {
		e.writtenWarn.Do(func() {
			e.client.Message("warning", fmt.Sprintf("aide: %v; after a restart its session's plan is derived again", err))
		})
	}
	return nil
}

// Wrote reports whether text is the plan document the engine last wrote
// at path, in this run or an earlier one (Options.Written): an editor's
// buffer holding it is no edit of the user's.
func (e *Engine) Wrote(path, text string) bool { return e.written.Wrote(path, text) }

// ownDoc reports whether text, at path, is a plan document the engine
// wrote for session s: it names the session, and the engine remembers
// writing there (Options.Written; without a state folder, a session of
// this run's is taken at its word). The user's edits are what differs
// from what it wrote; a file the engine never wrote is never a plan.
func (e *Engine) ownDoc(s *session, path, text string) bool {
	if planview.SessionOf(text) != s.id {
		return false
	}
	if e.written == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return !s.reloaded
	}
	_, ok := e.written.Text(path)
	return ok
}

// setLatest makes s the session the stable plan path shows: the session a
// command last started a turn of.
func (e *Engine) setLatest(s *session) {
	e.mu.Lock()
	e.latest = s.id
	e.mu.Unlock()
}

func (e *Engine) isLatest(s *session) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.latest == s.id
}

// planDocText is the plan document as the user has it now: the user's edit
// in the editor, saved or not, of the session's plan file or of the stable
// path while it shows this session; else the file.
func (e *Engine) planDocText(s *session) (string, error) {
	paths := []string{s.planPath}
	if e.isLatest(s) {
		paths = append(paths, filepath.Join(filepath.Dir(s.planPath), LatestPlanName))
	}
	for _, path := range paths {
		// A buffer of a document the engine did not write for this
		// session is no edit of its plan document (ownDoc): a planted
		// latest.md, or <session>.md shipped with a planted session.
		if text, edited := e.editedPlan(path); edited && e.ownDoc(s, path, text) {
			return text, nil
		}
	}
	data, err := workspace.ReadRegular(s.planPath, workspace.MaxStateBytes)
	if err == nil && !e.ownDoc(s, s.planPath, string(data)) {
		return "", fmt.Errorf("%s is not the plan document of session %s (it was not written by aide-lsp for it)", s.planPath, s.id)
	}
	return string(data), err
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
	data, err := e.planDocText(s)
	if err != nil {
		s.addLog("the plan file could not be read (%v); the plan as written is used", err)
		return
	}
	e.adoptPlan(s, data)
}

// adoptPlan makes the plan section of data, the plan document as the user
// has it, the session's plan.
func (e *Engine) adoptPlan(s *session, data string) {
	p, err := planview.ExtractPlan(data)
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
	noSnapshot := s.snapshot.Files == nil
	s.mu.Unlock()
	if noSnapshot {
		// A plan kept across a restart (keepWrittenPlan): drift is
		// judged from now on, on the files it names.
		snap := e.ws.Snapshot(e.namedFiles(p.Text))
		s.mu.Lock()
		s.snapshot = snap
		s.mu.Unlock()
	}
	if changed {
		e.emit(s, EvPlan, PlanData{Plan: p.Text, Model: model, Cycle: cycle, Truncated: p.Truncated, Edited: true})
	}
}
