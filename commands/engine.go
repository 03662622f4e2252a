package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/undo"
	"github.com/aide-lsp/aide-lsp/workspace"
	"github.com/aide-lsp/aide-lsp/written"
)

// Options wire an Engine. Workspace and Model are required.
type Options struct {
	Workspace *workspace.Workspace
	Config    config.Config // the effective configuration (Effective is applied again)
	Model     model.Client  // the Router in production; tests inject the Router over fakes
	Meter     *model.Meter  // nil: a private one
	Index     *treesitter.Index
	// IndexReady, when set, says the caller builds Index itself (lsp.NewSetup
	// starts the build in the background at initialize): the first architect
	// pass calls it to wait for that build (or ctx) instead of building the
	// index a second time. nil: the engine builds Index on its first
	// architect pass.
	IndexReady func(ctx context.Context)
	Client     Client           // nil: events go only to the session files
	Now        func() time.Time // nil: time.Now
	// History is the per-model record of editor calls in the user's state
	// folder (estimate.OpenDefault), for the estimate shown while a plan
	// waits. nil: no history is kept and the estimate says so.
	History *estimate.Store
	// Undo keeps the accepted hunks for aide.undo (undo.OpenDefault). nil:
	// nothing is recorded and aide.undo says why.
	Undo *undo.Store
	// Written remembers the plan documents the engine wrote, in the user's
	// state folder (contract §5): after a restart, a session whose document
	// it wrote keeps its plan, and the user's edits of it are read. nil:
	// a restarted server knows no document as its own (their sessions'
	// plans are derived again).
	Written *written.Store
}

// Engine runs the aide.* commands. It is safe for concurrent use.
type Engine struct {
	ws      *workspace.Workspace
	root    string
	models  model.Client
	meter   *model.Meter
	index   *treesitter.Index
	client  Client
	now     func() time.Time
	hist    *estimate.Store
	undo    *undo.Store
	written *written.Store
	// writtenWarn says once that a plan document is not remembered.
	writtenWarn sync.Once
	plans       planBuffers         // the plan texts written, the edits adopted (planbuffer.go)
	lastMu      sync.Mutex          // guards lastPlan
	lastPlan    map[string][32]byte // plan path → hash of the text this run last wrote there
	undoMu      sync.Mutex          // serialises the read-modify-write of undo records; guards the two below
	undoCache   []*undo.Record      // the records, newest first, as read at undoSeen
	undoSeen    time.Time           // the modification time of the store's folder then

	// reviewMu makes the review's judgements one at a time (reviewset.go).
	reviewMu sync.Mutex

	indexOnce  sync.Once // the repository index is built once, on the first architect pass
	indexReady func(ctx context.Context)

	mu       sync.Mutex // guards cfg, sessions and latest
	cfg      config.Config
	sessions map[string]*session
	latest   string // the session .aide/plans/latest.md shows (setLatest)

	// LoadProblems are session files that could not be read at start.
	LoadProblems []string
}

// NewEngine makes an engine and reloads the sessions of .aide/sessions.
func NewEngine(o Options) (*Engine, error) {
	if o.Workspace == nil || len(o.Workspace.Roots()) == 0 {
		return nil, errors.New("commands: no workspace")
	}
	if o.Model == nil {
		return nil, errors.New("commands: no model client")
	}
	e := &Engine{
		ws: o.Workspace, root: o.Workspace.Roots()[0], models: o.Model, meter: o.Meter,
		index: o.Index, indexReady: o.IndexReady, client: o.Client, now: o.Now, cfg: o.Config.Effective(), hist: o.History, undo: o.Undo, written: o.Written,
		sessions: map[string]*session{},
	}
	if e.meter == nil {
		e.meter = &model.Meter{}
	}
	if e.client == nil {
		e.client = nopClient{}
	}
	if e.now == nil {
		e.now = time.Now
	}
	e.reload()
	return e, nil
}

// SetConfig replaces the configuration (workspace/didChangeConfiguration).
// Running sessions keep the models they started with.
func (e *Engine) SetConfig(c config.Config) {
	e.mu.Lock()
	e.cfg = c.Effective()
	e.mu.Unlock()
}

func (e *Engine) config() config.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// Cost is the cost table of every model call this engine made, priced with
// the configuration's prices: aide.cost's reply, and run --json's usage.
func (e *Engine) Cost() CostResult {
	rows, total := e.meter.Rows(e.config().Prices)
	if rows == nil {
		rows = []model.CostRow{}
	}
	return CostResult{Rows: rows, Total: total}
}

// Commands lists the command names (lsp.Engine), from the command table.
func (e *Engine) Commands() []string { return append([]string(nil), AllCommands...) }

// Position and Range are the LSP shapes of a command's range argument.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// StartArgs is the argument of aide.architect and aide.edit.
type StartArgs struct {
	URI            string `json:"uri"`
	Range          *Range `json:"range,omitempty"`
	Task           string `json:"task,omitempty"`
	ArchitectModel string `json:"architectModel,omitempty"`
	EditorModel    string `json:"editorModel,omitempty"`
	// Files are more focus files (workspace-relative or absolute), for the CLI's --file.
	Files []string `json:"files,omitempty" aide:"internal"`
	// FromAIComment says Task is the AI comment's task in the first focus
	// file (the CLI found it there): the proposal then removes the comment.
	// Without it, a task is from the comment when the comment at Range
	// holds it (the code action on the comment sends both).
	FromAIComment bool `json:"fromAIComment,omitempty" aide:"internal"`
}

// SessionResult is the reply of the commands that start or continue work.
type SessionResult struct {
	Session string `json:"session"`
}

// SessionInfo is one row of aide.sessions.
type SessionInfo struct {
	Session   string    `json:"session"`
	Task      string    `json:"task"`
	State     State     `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	// Undoable counts the session's accepted hunks an aide.undo would
	// revert (kept in the undo records; 0: nothing to undo).
	Undoable int `json:"undoable,omitempty"`
}

// CostResult is the reply of aide.cost.
type CostResult struct {
	Rows  []model.CostRow `json:"rows"`
	Total float64         `json:"total"`
}

// Work is the background part of a command (lsp.Engine's work).
type Work = func(ctx context.Context, p Progress) error

// Execute checks a command's argument and replies at once; the model calls
// happen in the returned work (lsp.Engine). The command table (table.go)
// says what each command takes and gives.
func (e *Engine) Execute(ctx context.Context, command string, arg json.RawMessage) (any, Work, error) {
	c, ok := Lookup(command)
	if !ok {
		return nil, nil, fmt.Errorf("unknown command %q; the commands are %s", command, strings.Join(AllCommands, ", "))
	}
	a, err := c.decodeArg(arg)
	if err != nil {
		return nil, nil, err
	}
	res, work, err := c.run(e, ctx, a)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", command, err)
	}
	return res, work, nil
}

// startTurn is aide.architect (aide.edit with oneCall): a new session and
// its first turn.
func (e *Engine) startTurn(a *StartArgs, oneCall bool) (any, Work, error) {
	s, err := e.start(*a, oneCall)
	if err != nil {
		return nil, nil, err
	}
	return SessionResult{s.id}, func(ctx context.Context, p Progress) error { return e.runTurn(ctx, s, p, turnFirst, "") }, nil
}

// approve is aide.approvePlan: the editor on the plan waiting for approval.
func (e *Engine) approve(a *ApproveArgs) (any, Work, error) {
	if a.EditorModel != "" && !validModelID(a.EditorModel) {
		return nil, nil, fmt.Errorf("editorModel %q is not a model id provider/model", a.EditorModel)
	}
	s, err := e.plannedSession(a.Session)
	if err != nil {
		return nil, nil, err
	}
	if err := s.claim(stateWaiting, "approvePlan needs a plan waiting for approval"); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	if a.EditorModel != "" {
		s.edModel = a.EditorModel
	}
	s.approvedWith(s.edModel)
	s.mu.Unlock()
	return SessionResult{s.id}, func(ctx context.Context, p Progress) error { return e.runTurn(ctx, s, p, turnApprove, "") }, nil
}

// replan is aide.replan: a new architect turn with the user's feedback.
func (e *Engine) replan(a *ReplanArgs) (any, Work, error) {
	s, err := e.plannedSession(a.Session)
	if err != nil {
		return nil, nil, err
	}
	if err := s.claim("", "re-plan needs a session that is not running; cancel it first"); err != nil {
		return nil, nil, err
	}
	return SessionResult{s.id}, func(ctx context.Context, p Progress) error { return e.runTurn(ctx, s, p, turnReplan, a.Feedback) }, nil
}

// rerun is aide.rerunHunk: the editor again for stale hunks.
func (e *Engine) rerun(a *RerunArgs) (any, Work, error) {
	s, err := e.plannedSession(a.Session)
	if err != nil {
		return nil, nil, err
	}
	if err := e.claimRerun(s, a.Hunks); err != nil {
		return nil, nil, err
	}
	return SessionResult{s.id}, func(ctx context.Context, p Progress) error { return e.runTurn(ctx, s, p, turnRerun, "") }, nil
}

// plannedSession is a session a plan command may work on: an undo's
// session has no plan.
func (e *Engine) plannedSession(id string) (*session, error) {
	s, err := e.session(id)
	if err != nil {
		return nil, err
	}
	if s.kind == undoKind {
		return nil, fmt.Errorf("session %s is an undo: it has no plan; accept or reject its hunks, or undo it with aide.undo", s.id)
	}
	return s, nil
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func (e *Engine) session(id string) (*session, error) {
	if id == "" {
		return nil, errors.New("missing \"session\"; aide.sessions lists them")
	}
	if !sessionIDPattern.MatchString(id) || strings.Contains(id, "..") {
		return nil, fmt.Errorf("%q is not a session id", id)
	}
	e.mu.Lock()
	s := e.sessions[id]
	e.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("no session %q; aide.sessions lists them", id)
	}
	return s, nil
}

// MaxListedSessions and MaxListedTaskChars bound aide.sessions.
const (
	MaxListedSessions  = 200
	MaxListedTaskChars = 500
)

// Sessions lists the sessions, oldest first (the newest MaxListedSessions).
func (e *Engine) Sessions() []SessionInfo {
	list := e.sessionList()
	out := make([]SessionInfo, 0, len(list))
	undoable := e.undoable()
	for _, s := range list {
		s.mu.Lock()
		out = append(out, SessionInfo{Session: s.id, Task: s.task, State: s.state, CreatedAt: s.createdAt, Undoable: undoable[s.id].Undoable})
		s.mu.Unlock()
		delete(undoable, s.id)
	}
	for _, info := range undoable { // applied by another process (aide-lsp run --apply)
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].Session < out[j].Session
	})
	// The reply is bounded: the newest sessions, each task on at most a
	// few hundred characters.
	if len(out) > MaxListedSessions {
		out = out[len(out)-MaxListedSessions:]
	}
	for i := range out {
		out[i].Task = clipRunes(out[i].Task, MaxListedTaskChars)
	}
	return out
}

// fileToPath turns a file:// URI (or a plain path) into a path.
func fileToPath(u string) (string, error) {
	if strings.HasPrefix(u, "file:") {
		p, err := url.Parse(u)
		if err != nil {
			return "", fmt.Errorf("bad uri %q: %v", u, err)
		}
		return filepath.FromSlash(p.Path), nil
	}
	if strings.Contains(u, "://") {
		return "", fmt.Errorf("uri %q is not a file: URI", u)
	}
	return u, nil
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

type nopClient struct{}

func (nopClient) SessionEvent(Event)                {}
func (nopClient) ShowPlan(PlanDoc)                  {}
func (nopClient) PlanChanged(PlanDoc)               {}
func (nopClient) Delivery() Delivery                { return ReviewInPlace }
func (nopClient) Propose(context.Context, Proposal) {}
func (nopClient) Message(level, text string)        {}
func (nopClient) ApplyHunks(context.Context, string, string, []editapply.Hunk) ([]string, error) {
	return nil, errors.New("no editor to apply the changes in")
}
func (nopClient) PlanBuffer(string) (string, bool) { return "", false }
