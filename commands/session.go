package commands

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

type hunkState struct {
	hunk      editapply.Hunk
	abs, base string // the review set's: its file and the text the hunk is expressed against (reviewset.go)
	status    HunkStatus
	aiComment bool   // the removal of the AI comment the task came from (aiCommentHunk)
	reason    string // why the user rejected it, when they said (aide.reject, the plan document)
	edited    bool   // stale because the user edited its lines (not withdrawn): aide.rerunHunk may redo it
	told      bool   // its decision was told to the architect on a re-plan
}

// passRecord is one metered model call of the session, for its cost table.
type passRecord struct {
	model     string
	role      model.Role
	prompt    int
	complete  int
	estimated bool
}

type session struct {
	id        string
	kind      string // "architect" or "edit"
	planPath  string
	eventPath string
	statePath string

	evMu sync.Mutex // serialises appends to the session file and SessionEvent calls, so both see one order

	planMu     sync.Mutex // serialises plan-document writes and their notifications
	savedState []byte     // the state file as last written (guarded by planMu)

	mu          sync.Mutex // guards everything below
	task        string
	fromComment bool // the task is an AI comment's: the proposal removes it (aiCommentHunk)
	createdAt   time.Time
	focus       []string
	state       State // written by move only (state.go)
	reason      string
	cycle       int
	archModel   string
	edModel     string
	oneCall     bool // the last turn skipped the architect
	plan        planview.Plan
	lastPlan    string // the plan of the previous cycle, shown to the architect on a re-plan
	planNote    string
	streaming   string
	snapshot    workspace.Snapshot
	drift       []workspace.Change
	hunks       []*hunkState
	nextHunk    int
	diff        string
	log         []string
	passes      []passRecord
	mistakes    int                 // consecutive failed editor passes (maxMistakes)
	edFailures  int                 // consecutive editor passes whose edits all failed (editorFailureThreshold)
	lastFailed  []editapply.Failure // what failed in the last turn, for the next architect prompt
	busy        bool                // a turn is claimed or running
	idle        chan struct{}       // closed when busy clears (setBusy makes a new one)
	cancelFn    context.CancelFunc
	cancelled   string // non-empty: cancel requested, with the reason
	reloaded    bool   // read back from .aide/sessions: its plan is never replayed
	planVersion int
	planShown   bool
	notes       string                // the user's "## Notes" of the plan document, rendered as written
	stepNotes   []planview.StepNote   // the user's "Note:" lines under steps, read at the last re-plan
	estimates   []estimate.Estimate   // the next editor call priced while the plan waits; [0] is the editor model's
	priced      *estimate.Estimate    // the estimate of the approved call, until it is made
	versus      string                // the last approved call: estimate against actual
	stepOf      map[string]int        // hunk id → the plan step it carries out (steps.go)
	traced      bool                  // the editor named steps: hunks without one are "not in the plan"
	idleSteps   []int                 // the plan's steps no hunk of the last proposal carries out
	rerun       []string              // the stale hunks aide.rerunHunk asked the editor for again
	undo        undoState             // what undos did (undo.go)
	verified    []planview.VerifyLine // the last verification's results (verify.go)
	verifyNote  string                // the rounds that failed before it, for the plan document
	verifyLabel string                // "builds" or "build failed" on each hunk proposed; "" unverified
}

func newSessionID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (e *Engine) newSession(kind, task string, focus []string, arch, ed string) *session {
	id := newSessionID(e.now())
	dir := filepath.Join(e.root, ".aide")
	first := StatePlanning // a session's first state is set here; every later one by move
	if kind == "edit" {
		first = StateEditing
	}
	s := &session{
		id: id, kind: kind, task: task, focus: focus, archModel: arch, edModel: ed,
		createdAt: e.now(), state: first, oneCall: kind == "edit",
		planPath:  filepath.Join(dir, "plans", id+".md"),
		eventPath: filepath.Join(dir, "sessions", id+".jsonl"),
		statePath: filepath.Join(dir, "sessions", id+".json"),
	}
	return s
}

// claimWait bounds how long claim waits for a turn that has already moved
// the session to the wanted state to return.
const claimWait = 10 * time.Second

// claim marks a session busy for a command that will run work; want, when
// set, is the state the session must be in.
//
// A turn moves the session to its next state (and shows the plan) before it
// returns and clears busy. An editor that acts at once on what it was shown
// (approve as soon as "waiting for approval" is on screen) must not be told
// the session is busy, so claim waits for such a turn to end.
func (s *session) claim(want State, msg string) error {
	s.mu.Lock()
	if s.busy && want != "" && s.state == want {
		idle := s.idle
		s.mu.Unlock()
		select {
		case <-idle:
		case <-time.After(claimWait):
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if s.busy {
		return fmt.Errorf("session %s is %s; %s", s.id, s.state, msg)
	}
	if want != "" && s.state != want {
		return fmt.Errorf("session %s is %s; %s", s.id, s.state, msg)
	}
	s.setBusy()
	s.cancelled = ""
	return nil
}

// setBusy marks the session claimed by a turn; s.mu is held.
func (s *session) setBusy() {
	s.busy = true
	s.idle = make(chan struct{})
}

// clearBusy ends the turn's claim and wakes a claim waiting for it; s.mu
// is held.
func (s *session) clearBusy() {
	if s.busy && s.idle != nil {
		close(s.idle)
	}
	s.busy = false
}

func (s *session) addLog(format string, args ...any) {
	s.mu.Lock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// emit appends an event to the session file and then hands it to the
// client; data is the payload struct of the event's kind (events.go).
func (e *Engine) emit(s *session, name string, data any) {
	ev := Event{Session: s.id, Event: name, Time: e.now(), Data: data}
	s.evMu.Lock()
	defer s.evMu.Unlock()
	line, err := json.Marshal(ev)
	if err == nil {
		err = e.appendPrivate(s.eventPath, line)
	}
	if err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: could not write the session file %s: %v", s.eventPath, err))
	}
	e.client.SessionEvent(ev)
}

// appendPrivate and writePrivate write the session's own files under
// .aide: never through a symbolic link (a cloned repository can carry
// .aide/sessions/<id>.jsonl pointing anywhere), whatever the folders became
// since the session started. Both redact what they write (model.Redact):
// a key a provider or a proxy streams back, split across events or not,
// is in the model's text whole by the time it is written.
func (e *Engine) appendPrivate(path string, line []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return appendLine(path, []byte(model.Redact(string(line))))
}

func (e *Engine) writePrivate(path string, data []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return writeFileAtomic(path, []byte(model.Redact(string(data)))) // the rename replaces a link, never follows it
}

func appendLine(path string, line []byte) error {
	const flag = os.O_APPEND | os.O_CREATE | os.O_WRONLY
	f, err := workspace.OpenPrivate(path, flag, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder is made on first use only.
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			f, err = workspace.OpenPrivate(path, flag, 0o644)
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFileAtomic writes through a temporary file and a rename, so a reader
// never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	pattern := ".tmp-" + filepath.Base(path) + "-*"
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder is made when missing only (see appendLine).
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			tmp, err = os.CreateTemp(filepath.Dir(path), pattern)
		}
	}
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// doc builds the plan document of the session.
func (e *Engine) doc(s *session) planview.Doc {
	cfg := e.config()
	s.mu.Lock()
	defer s.mu.Unlock()
	d := planview.Doc{
		Session: s.id, Task: s.task, State: string(s.state), Reason: s.reason, Cycle: s.cycle, MaxCycles: cfg.MaxCycles,
		ArchitectModel: s.archModel, EditorModel: s.edModel, OneCall: s.oneCall,
		Plan: s.plan, PlanNote: s.planNote, Diff: s.diff, Log: append([]string(nil), s.log...), Notes: s.notes,
		Versus: s.versus, Verification: append([]planview.VerifyLine(nil), s.verified...), VerifyNote: s.verifyNote,
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
		price := prices[p.model]
		r.CostUSD += (float64(p.prompt)*price.Input + float64(p.complete)*price.Output) / 1e6
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
	e.saveState(s) // the state file before the plan document (move: emit → save → plan)
	e.keepNotes(s)
	text := model.Redact(planview.Render(e.doc(s))) // as written (writePrivate), so the client's copy is the same
	if !e.userEditing(s.planPath) {
		if err := e.writePrivate(s.planPath, []byte(text)); err != nil {
			e.client.Message("warning", fmt.Sprintf("aide: could not write the plan document %s: %v", s.planPath, err))
		}
	}
	latest := ""
	if e.isLatest(s) {
		latest = filepath.Join(filepath.Dir(s.planPath), LatestPlanName)
		if e.userEditing(latest) {
			// Its text is still the client's to know (PlanDoc.LatestPath).
		} else if err := e.writePrivate(latest, []byte(text)); err != nil {
			e.client.Message("warning", fmt.Sprintf("aide: could not write the plan document %s: %v", latest, err))
			latest = ""
		}
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

// PlanEditTeller is the optional part of a Client that knows the editor's
// buffers. PlanEdited reports whether the open buffer of a plan file holds
// an edit of the user's: the engine then leaves that file alone, so the
// editor never finds the file changed under an edited buffer (Neovim asks
// "file changed since editing started, really write?"). EditedPlan returns
// that edit, saved or not: approval carries it out (contract §5).
type PlanEditTeller interface {
	PlanEdited(path string) bool
	EditedPlan(path string) (string, bool)
}

func (e *Engine) userEditing(path string) bool {
	t, ok := e.client.(PlanEditTeller)
	return ok && t.PlanEdited(path)
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

// stateFile is the session's state on disk (.aide/sessions/<session>.json),
// beside its event log, so a restarted server can list it.
type stateFile struct {
	Session        string    `json:"session"`
	Kind           string    `json:"kind"`
	Task           string    `json:"task"`
	State          State     `json:"state"`
	Reason         string    `json:"reason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	Cycle          int       `json:"cycle"`
	ArchitectModel string    `json:"architectModel"`
	EditorModel    string    `json:"editorModel"`
	Focus          []string  `json:"focus,omitempty"`
	// Plan is kept for the record only: a reloaded session re-derives its plan.
	Plan string `json:"plan,omitempty"`
}

func (e *Engine) saveState(s *session) {
	s.mu.Lock()
	st := stateFile{Session: s.id, Kind: s.kind, Task: s.task, State: s.state, Reason: s.reason, CreatedAt: s.createdAt,
		Cycle: s.cycle, ArchitectModel: s.archModel, EditorModel: s.edModel, Focus: s.focus, Plan: s.plan.Text}
	s.mu.Unlock()
	data, _ := json.MarshalIndent(st, "", "  ")
	// Most plan-document refreshes leave the state as it was (a turn
	// rewrote the same state file several times): an unchanged state is
	// not written again. writePlan holds planMu, which guards savedState.
	if bytes.Equal(data, s.savedState) {
		return
	}
	if err := e.writePrivate(s.statePath, data); err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: could not write %s: %v", s.statePath, err))
		return
	}
	s.savedState = data
}

// MaxReloadedSessions bounds the session files a start reads, newest
// first, and MaxReloadedTaskChars the task kept of each: a repository can
// ship .aide/sessions (a small git pack of 100 files once cost 2.8 GiB).
const (
	MaxReloadedSessions  = 100
	MaxReloadedTaskChars = 8192
)

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + " […]"
}

// reload lists the sessions of .aide/sessions. A session that was running
// when its server stopped is interrupted; none of them keeps its plan for
// the editor: the next approval or re-plan derives a new one.
func (e *Engine) reload() {
	dir := filepath.Join(e.root, ".aide", "sessions")
	if err := workspace.CheckPrivateDir(e.root, dir); err != nil {
		e.LoadProblems = append(e.LoadProblems, err.Error())
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	// Only the newest state files are read (ids begin with their time):
	// a repository can ship any number of them (contract §8).
	var states []fs.DirEntry
	for _, ent := range entries {
		if !ent.IsDir() && strings.HasSuffix(ent.Name(), ".json") {
			states = append(states, ent)
		}
	}
	sort.Slice(states, func(i, j int) bool { return states[i].Name() > states[j].Name() })
	if len(states) > MaxReloadedSessions {
		e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%d session files in %s: only the newest %d were read", len(states), dir, MaxReloadedSessions))
		states = states[:MaxReloadedSessions]
	}
	for _, ent := range states {
		name := ent.Name()
		if ent.Type()&fs.ModeSymlink != 0 {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: a symbolic link, not a session state file (ignored)", name))
			continue
		}
		// A FIFO would block the start, /dev/zero would never end: regular
		// files of at most 4 MiB only (issue 16).
		data, err := workspace.ReadRegular(filepath.Join(dir, name), workspace.MaxStateBytes)
		if err != nil {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		var st stateFile
		// The id must pass the test every command applies to it (e.session),
		// or the session would be listed and then refused by every command.
		if err := json.Unmarshal(data, &st); err != nil || st.Session+".json" != name ||
			!sessionIDPattern.MatchString(st.Session) || strings.Contains(st.Session, "..") {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: not a session state file (ignored)", name))
			continue
		}
		// A state or kind no command knows would list a session that no
		// command can move on.
		if !knownStates[st.State] || (st.Kind != "architect" && st.Kind != "edit" && st.Kind != undoKind) {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: not a session state file (state %q, kind %q; ignored)", name, st.State, st.Kind))
			continue
		}
		state := st.State
		switch state {
		case StatePlanning, StateEditing, StateProposed:
			// Its model call or its proposals died with the old server.
			state = StateInterrupted
		}
		s := &session{
			id: st.Session, kind: st.Kind, task: clipRunes(st.Task, MaxReloadedTaskChars), createdAt: st.CreatedAt, focus: st.Focus,
			state: state, reason: st.Reason, cycle: st.Cycle, archModel: st.ArchitectModel, edModel: st.EditorModel,
			oneCall: st.Kind == "edit", reloaded: true,
			planPath:  filepath.Join(e.root, ".aide", "plans", st.Session+".md"),
			eventPath: filepath.Join(dir, st.Session+".jsonl"),
			statePath: filepath.Join(dir, name),
		}
		if st.Plan != "" {
			s.planNote = "The plan of the previous server run is not carried out: approving or re-planning derives a new one."
		}
		e.sessions[s.id] = s
	}
}

// Decide records the user's decision on pending hunks (all pending hunks
// when ids is empty) and returns the ids decided. lsp calls it after a
// workspace/applyEdit, and aide.accept / aide.reject call it. It does not
// write to disk: the client applies accepted edits (the CLI uses ApplyHunks).
func (e *Engine) Decide(sessionID string, ids []string, accepted bool) ([]string, error) {
	status := hunkRejected
	if accepted {
		status = hunkAccepted
	}
	return e.settle(sessionID, ids, status, "", false)
}

// Stale marks pending hunks that no longer apply (their document changed
// under them); a stale hunk is never applied.
func (e *Engine) Stale(sessionID string, ids []string, reason string) ([]string, error) {
	return e.settle(sessionID, ids, hunkStale, reason, false)
}

// Pending returns the hunks of a session still waiting for a decision.
func (e *Engine) Pending(sessionID string) []editapply.Hunk {
	s, err := e.session(sessionID)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []editapply.Hunk
	for _, h := range s.hunks {
		if h.status == hunkPending {
			out = append(out, h.hunk)
		}
	}
	return out
}

// settle records a decision on hunks; lenient skips the ids no longer
// pending instead of refusing them all (accept, after the editor applied
// them, races the review that follows its didChanges).
func (e *Engine) settle(sessionID string, ids []string, status HunkStatus, reason string, lenient bool) ([]string, error) {
	s, err := e.session(sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	byID := map[string]*hunkState{}
	for _, h := range s.hunks {
		byID[h.hunk.ID] = h
	}
	var decided []string
	if len(ids) == 0 {
		for _, h := range s.hunks {
			if h.status == hunkPending {
				decided = append(decided, h.hunk.ID)
			}
		}
	} else {
		for _, id := range ids {
			h := byID[id]
			if h == nil {
				s.mu.Unlock()
				return nil, fmt.Errorf("session %s has no hunk %q", s.id, id)
			}
			if h.status != hunkPending {
				if lenient {
					continue
				}
				s.mu.Unlock()
				return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, h.status)
			}
			decided = append(decided, id)
		}
	}
	var accepted []*hunkState
	for _, id := range decided {
		if status == hunkAccepted {
			accepted = append(accepted, byID[id])
		}
		byID[id].status = status
		if status == hunkRejected {
			byID[id].reason = reason
		}
		if status == hunkStale { // settle's stale is a document's change; a withdrawal does not come here
			byID[id].edited = true
		}
	}
	counts := map[HunkStatus]int{}
	for _, h := range s.hunks {
		counts[h.status]++
	}
	finished := len(decided) > 0 && counts[hunkPending] == 0 && s.state == StateProposed
	s.mu.Unlock()
	if len(decided) == 0 {
		return []string{}, nil
	}
	e.recordAccepted(s, accepted)
	decision := ev(string(status), DecisionData{Hunks: decided, Reason: reason})
	if finished {
		done := ev(EvDone, DoneData{Accepted: intp(counts[hunkAccepted]), Rejected: intp(counts[hunkRejected]), Stale: intp(counts[hunkStale])})
		if e.move(s, StateDone, nil, decision, done) == nil {
			return decided, nil
		}
	}
	e.emit(s, decision.Event, decision.Data)
	e.writePlan(s, true)
	return decided, nil
}

// withdraw turns every pending hunk stale (a re-plan or a cancel supersedes them).
func (e *Engine) withdraw(s *session, reason string) {
	s.mu.Lock()
	var ids []string
	for _, h := range s.hunks {
		if h.status == hunkPending {
			h.status = hunkStale
			ids = append(ids, h.hunk.ID)
		}
	}
	s.mu.Unlock()
	if len(ids) > 0 {
		e.emit(s, EvStale, DecisionData{Hunks: ids, Reason: reason})
	}
}

// cancel stops a session: its running model call, or its pending plan or
// proposals. Nothing half-proposed remains.
func (e *Engine) cancel(s *session, reason string) {
	s.mu.Lock()
	if s.busy {
		s.cancelled = reason
		fn := s.cancelFn
		s.mu.Unlock()
		if fn != nil {
			fn()
		}
		return
	}
	switch s.state {
	case StateDone, StateCancelled, StateFailed:
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	e.finishCancelled(s, reason)
}

func (e *Engine) finishCancelled(s *session, reason string) {
	e.withdraw(s, "session cancelled")
	_ = e.move(s, StateCancelled, func() {
		s.reason = reason
		s.streaming = ""
	}, ev(EvCancelled, CancelledData{Reason: reason}))
}

// fail stops the session with a reason the user can act on.
func (e *Engine) fail(s *session, reason string) error {
	_ = e.move(s, StateFailed, func() {
		s.reason = reason
		s.log = append(s.log, "stopped: "+reason)
		s.streaming = ""
	}, ev(EvError, ErrorData{Message: reason}))
	return errors.New(reason)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HunkApplier is the optional part of a Client that applies hunks in the
// editor (lsp). ApplyAccepted applies the pending hunks ids of a session
// and answers which landed (their edit is in the documents now, also when
// an edit of the editor's own came first) and which went stale; the others
// stay pending (the editor declined them). Without it the hunks are
// accepted as they are: the client writes them (the CLI's ApplyHunks).
type HunkApplier interface {
	ApplyAccepted(ctx context.Context, session, task string, ids []string) (landed, stale []string)
}

// accept is aide.accept, the one path of every client: it checks the hunks
// (all pending when ids is empty; accepted ones are answered again, a
// rejected or stale one is an error), has the client apply the pending ones
// and records what landed and what went stale.
func (e *Engine) accept(ctx context.Context, s *session, ids []string) ([]string, error) {
	s.mu.Lock()
	status := map[string]HunkStatus{}
	for _, h := range s.hunks {
		status[h.hunk.ID] = h.status
	}
	if len(ids) == 0 {
		for _, h := range s.hunks {
			if h.status == hunkPending {
				ids = append(ids, h.hunk.ID)
			}
		}
	}
	task := s.task
	s.mu.Unlock()
	applier, applies := e.client.(HunkApplier)
	accepted := []string{}
	var pending []string
	for _, id := range ids {
		switch status[id] {
		case "":
			return nil, fmt.Errorf("session %s has no hunk %q", s.id, id)
		case hunkRejected, hunkStale:
			return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, status[id])
		case hunkAccepted:
			if !applies {
				return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, status[id])
			}
			// In an editor the code action's edit lands before its command
			// runs: the hunk is accepted by then, which is what was asked.
			accepted = append(accepted, id)
		default:
			pending = append(pending, id)
		}
	}
	if len(pending) == 0 {
		return accepted, nil
	}
	if !applies {
		done, err := e.Decide(s.id, pending, true)
		return append(accepted, done...), err
	}
	landed, stale := applier.ApplyAccepted(ctx, s.id, task, pending)
	// The documents' changes may have decided some meanwhile (the review
	// follows every didChange): only what is still pending is decided here.
	landed, already := e.stillPending(s, landed, hunkAccepted)
	accepted = append(accepted, already...)
	stale, _ = e.stillPending(s, stale, hunkStale)
	if len(landed) > 0 {
		done, err := e.settle(s.id, landed, hunkAccepted, "", true)
		if err != nil {
			return nil, err
		}
		accepted = append(accepted, done...)
		if len(done) < len(landed) { // decided meanwhile: accepted, by the review
			for _, id := range landed {
				if !slices.Contains(done, id) && e.statusOf(s, id) == hunkAccepted {
					accepted = append(accepted, id)
				}
			}
		}
	}
	if len(stale) > 0 {
		if _, err := e.settle(s.id, stale, hunkStale, "the document changed under it", true); err != nil {
			return nil, err
		}
	}
	return accepted, nil
}

func (e *Engine) statusOf(s *session, id string) HunkStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hunks {
		if h.hunk.ID == id {
			return h.status
		}
	}
	return ""
}

// stillPending splits ids into those still pending and those already in
// status st.
func (e *Engine) stillPending(s *session, ids []string, st HunkStatus) (pending, already []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		for _, h := range s.hunks {
			if h.hunk.ID != id {
				continue
			}
			switch h.status {
			case hunkPending:
				pending = append(pending, id)
			case st:
				already = append(already, id)
			}
		}
	}
	return pending, already
}
