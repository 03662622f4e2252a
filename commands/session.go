package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sync"
	"time"

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
	// out: an edit carrying it went to the editor and is not answered yet
	// (reviewset.go); sentBase is the content it was sent against.
	out      bool
	sentBase string
	// withdrawn: stale because the session moved on (cancel, re-plan), not
	// because the user changed its lines; while out, the user may still
	// apply it (DocumentsChanged, Delivered).
	withdrawn bool
}

// passRecord is one metered model call of the session, for its cost table.
type passRecord struct {
	model     string
	role      model.Role
	prompt    int
	complete  int
	estimated bool
}

// session is one session. What it is (id, kind, its files) is fixed when
// it starts; the rest is guarded by mu and has three owners, each with its
// own methods: the plan (planState), the proposal's review (reviewSet) and
// the running turn (turnState). The session file's order (evMu) and the
// plan document's writes (planMu) have locks of their own.
type session struct {
	id        string
	kind      string // "architect" or "edit"
	planPath  string
	eventPath string
	statePath string

	evMu sync.Mutex // serialises appends to the session file and SessionEvent calls, so both see one order

	decideMu sync.Mutex // one decision (settle) at a time, statuses to events

	planMu     sync.Mutex // serialises plan-document writes and their notifications
	savedState []byte     // the state file as last written (guarded by planMu)

	mu          sync.Mutex // guards everything below
	task        string
	fromComment bool // the task is an AI comment's: the proposal removes it (aiCommentHunk)
	createdAt   time.Time
	focus       []string
	state       State // written by move only (state.go)
	reason      string
	archModel   string
	edModel     string
	log         []string
	passes      []passRecord
	reloaded    bool // read back from .aide/sessions: its plan is never replayed
	planState
	reviewSet
	turnState
}

// planState is the plan and what the plan document shows of it.
type planState struct {
	cycle       int
	oneCall     bool // the last turn skipped the architect
	plan        planview.Plan
	lastPlan    string // the plan of the previous cycle, shown to the architect on a re-plan
	planNote    string
	streaming   string
	snapshot    workspace.Snapshot
	drift       []workspace.Change
	planVersion int
	planShown   bool
	notes       string              // the user's "## Notes" of the plan document, rendered as written
	stepNotes   []planview.StepNote // the user's "Note:" lines under steps, read at the last re-plan
	estimates   []estimate.Estimate // the next editor call priced while the plan waits; [0] is the editor model's
	priced      *estimate.Estimate  // the estimate of the approved call, until it is made
	versus      string              // the last approved call: estimate against actual
}

// reviewSet is the proposed hunks and their review (reviewset.go).
type reviewSet struct {
	hunks     []*hunkState
	nextHunk  int
	diff      string
	stepOf    map[string]int // hunk id → the plan step it carries out (steps.go)
	traced    bool           // the editor named steps: hunks without one are "not in the plan"
	idleSteps []int          // the plan's steps no hunk of the last proposal carries out
	rerun     []string       // the stale hunks aide.rerunHunk asked the editor for again
	round     reviewRound    // the delivery of the current proposal
	undo      undoState      // what undos did (undo.go)
	// The last verification's results (verify.go), the rounds that failed
	// before it, and "builds" or "build failed" on each hunk proposed.
	verified    []planview.VerifyLine
	verifyNote  string
	verifyLabel string
}

// hunkByID is the hunk of that id, or nil.
func (r *reviewSet) hunkByID(id string) *hunkState {
	for _, h := range r.hunks {
		if h.hunk.ID == id {
			return h
		}
	}
	return nil
}

// turnState is the running turn: its claim and its failure counters.
type turnState struct {
	mistakes   int                 // consecutive failed editor passes (maxMistakes)
	edFailures int                 // consecutive editor passes whose edits all failed (editorFailureThreshold)
	lastFailed []editapply.Failure // what failed in the last turn, for the next architect prompt
	busy       bool                // a turn is claimed or running
	idle       chan struct{}       // closed when busy clears (setBusy makes a new one)
	cancelFn   context.CancelFunc
	cancelled  string // non-empty: cancel requested, with the reason
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
		createdAt: e.now(), state: first, planState: planState{oneCall: kind == "edit"},
		planPath:  filepath.Join(dir, "plans", id+".md"),
		eventPath: filepath.Join(dir, "sessions", id+".jsonl"),
		statePath: filepath.Join(dir, "sessions", id+".json"),
	}
	return s
}

// claimWait bounds how long claim waits for a turn that has already moved
// the session to a state it rests in (anything but planning or editing) to
// return: such a turn is only finishing (writing the plan document and the
// state file), and a command the user gives then (re-plan while VS Code's
// Refactor Preview is open) must not be refused for it.
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
	if s.busy && s.state != StatePlanning && s.state != StateEditing {
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
func (s *turnState) setBusy() {
	s.busy = true
	s.idle = make(chan struct{})
}

// clearBusy ends the turn's claim and wakes a claim waiting for it; s.mu
// is held.
func (s *turnState) clearBusy() {
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
