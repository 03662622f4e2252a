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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// Session states (contract §5); interrupted is a session found running in
// .aide/sessions when the server started.
const (
	StatePlanning    = "planning"
	StateWaiting     = "waiting for approval"
	StateEditing     = "editing"
	StateProposed    = "proposed"
	StateDone        = "done"
	StateCancelled   = "cancelled"
	StateFailed      = "failed"
	StateInterrupted = "interrupted"
	stateWaiting     = StateWaiting
)

// knownStates are the states a session file may hold.
var knownStates = map[string]bool{
	StatePlanning: true, StateWaiting: true, StateEditing: true, StateProposed: true,
	StateDone: true, StateCancelled: true, StateFailed: true, StateInterrupted: true,
}

// Hunk statuses.
const (
	hunkPending  = "pending"
	hunkAccepted = "accepted"
	hunkRejected = "rejected"
	hunkStale    = "stale"
)

type hunkState struct {
	hunk   editapply.Hunk
	status string
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
	createdAt   time.Time
	focus       []string
	state       string
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
	cancelFn    context.CancelFunc
	cancelled   string // non-empty: cancel requested, with the reason
	reloaded    bool   // read back from .aide/sessions: its plan is never replayed
	planVersion int
	planShown   bool
}

func newSessionID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (e *Engine) newSession(kind, task string, focus []string, arch, ed string) *session {
	id := newSessionID(e.now())
	dir := filepath.Join(e.root, ".aide")
	s := &session{
		id: id, kind: kind, task: task, focus: focus, archModel: arch, edModel: ed,
		createdAt: e.now(), state: StatePlanning, oneCall: kind == "edit",
		planPath:  filepath.Join(dir, "plans", id+".md"),
		eventPath: filepath.Join(dir, "sessions", id+".jsonl"),
		statePath: filepath.Join(dir, "sessions", id+".json"),
	}
	if kind == "edit" {
		s.state = StateEditing
	}
	return s
}

// claim marks a session busy for a command that will run work; want, when
// set, is the state the session must be in.
func (s *session) claim(want, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return fmt.Errorf("session %s is %s; %s", s.id, s.state, msg)
	}
	if want != "" && s.state != want {
		return fmt.Errorf("session %s is %s; %s", s.id, s.state, msg)
	}
	s.busy = true
	s.cancelled = ""
	return nil
}

func (s *session) setState(st string) {
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
}

func (s *session) addLog(format string, args ...any) {
	s.mu.Lock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// emit appends an event to the session file and then hands it to the client.
func (e *Engine) emit(s *session, name string, fields map[string]any) {
	ev := Event{Session: s.id, Event: name, Time: e.now(), Fields: fields}
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
// since the session started.
func (e *Engine) appendPrivate(path string, line []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return appendLine(path, line)
}

func (e *Engine) writePrivate(path string, data []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return writeFileAtomic(path, data) // the rename replaces a link, never follows it
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
		Session: s.id, Task: s.task, State: s.state, Reason: s.reason, Cycle: s.cycle, MaxCycles: cfg.MaxCycles,
		ArchitectModel: s.archModel, EditorModel: s.edModel, OneCall: s.oneCall,
		Plan: s.plan, PlanNote: s.planNote, Diff: s.diff, Log: append([]string(nil), s.log...),
	}
	if d.Plan.Text == "" && s.streaming != "" {
		d.PlanNote = "The architect is writing the plan…"
		d.Streaming = s.streaming
	}
	for _, c := range s.drift {
		d.Drift = append(d.Drift, planview.DriftItem{Path: c.Path, Kind: c.Kind, Summary: c.Summary})
	}
	for _, h := range s.hunks {
		d.Hunks = append(d.Hunks, planview.HunkLine{ID: h.hunk.ID, Summary: h.hunk.Summary, Status: h.status})
	}
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

// writePlan renders and writes the plan document, then tells the client:
// ShowPlan the first time (when notify), PlanChanged after that.
func (e *Engine) writePlan(s *session, notify bool) {
	s.planMu.Lock()
	defer s.planMu.Unlock()
	text := planview.Render(e.doc(s))
	if err := e.writePrivate(s.planPath, []byte(text)); err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: could not write the plan document %s: %v", s.planPath, err))
	}
	s.mu.Lock()
	s.planVersion++
	doc := PlanDoc{Session: s.id, Path: s.planPath, Version: s.planVersion, Text: text}
	first := !s.planShown && notify
	if notify {
		s.planShown = true
	}
	shown := s.planShown
	s.mu.Unlock()
	e.saveState(s)
	switch {
	case first:
		e.client.ShowPlan(doc)
	case shown:
		e.client.PlanChanged(doc)
	}
}

// stateFile is the session's state on disk (.aide/sessions/<session>.json),
// beside its event log, so a restarted server can list it.
type stateFile struct {
	Session        string    `json:"session"`
	Kind           string    `json:"kind"`
	Task           string    `json:"task"`
	State          string    `json:"state"`
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
	for _, ent := range entries {
		name := ent.Name()
		if ent.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
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
		if !knownStates[st.State] || (st.Kind != "architect" && st.Kind != "edit") {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: not a session state file (state %q, kind %q; ignored)", name, st.State, st.Kind))
			continue
		}
		s := &session{
			id: st.Session, kind: st.Kind, task: st.Task, createdAt: st.CreatedAt, focus: st.Focus,
			state: st.State, reason: st.Reason, cycle: st.Cycle, archModel: st.ArchitectModel, edModel: st.EditorModel,
			oneCall: st.Kind == "edit", reloaded: true,
			planPath:  filepath.Join(e.root, ".aide", "plans", st.Session+".md"),
			eventPath: filepath.Join(dir, st.Session+".jsonl"),
			statePath: filepath.Join(dir, name),
		}
		if st.Plan != "" {
			s.planNote = "The plan of the previous server run is not carried out: approving or re-planning derives a new one."
		}
		switch st.State {
		case StatePlanning, StateEditing, StateProposed:
			// Its model call or its proposals died with the old server.
			s.state = StateInterrupted
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
	return e.settle(sessionID, ids, status, "")
}

// Stale marks pending hunks that no longer apply (their document changed
// under them); a stale hunk is never applied.
func (e *Engine) Stale(sessionID string, ids []string, reason string) ([]string, error) {
	return e.settle(sessionID, ids, hunkStale, reason)
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

func (e *Engine) settle(sessionID string, ids []string, status, reason string) ([]string, error) {
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
				s.mu.Unlock()
				return nil, fmt.Errorf("hunk %s of session %s is already %s", id, s.id, h.status)
			}
			decided = append(decided, id)
		}
	}
	for _, id := range decided {
		byID[id].status = status
	}
	counts := map[string]int{}
	for _, h := range s.hunks {
		counts[h.status]++
	}
	finished := len(decided) > 0 && counts[hunkPending] == 0 && s.state == StateProposed
	if finished {
		s.state = StateDone
	}
	s.mu.Unlock()
	if len(decided) == 0 {
		return []string{}, nil
	}
	fields := map[string]any{"hunks": decided}
	if reason != "" {
		fields["reason"] = reason
	}
	e.emit(s, status, fields)
	if finished {
		e.emit(s, "done", map[string]any{"accepted": counts[hunkAccepted], "rejected": counts[hunkRejected], "stale": counts[hunkStale]})
	}
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
		e.emit(s, "stale", map[string]any{"hunks": ids, "reason": reason})
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
	s.mu.Lock()
	s.state = StateCancelled
	s.reason = reason
	s.streaming = ""
	s.mu.Unlock()
	e.emit(s, "cancelled", map[string]any{"reason": reason})
	e.writePlan(s, true)
}

// fail stops the session with a reason the user can act on.
func (e *Engine) fail(s *session, reason string) error {
	s.mu.Lock()
	s.state = StateFailed
	s.reason = reason
	s.log = append(s.log, "stopped: "+reason)
	s.streaming = ""
	s.mu.Unlock()
	e.emit(s, "error", map[string]any{"message": reason})
	e.writePlan(s, true)
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
