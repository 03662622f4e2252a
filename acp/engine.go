package acp

// The one file that talks to the engine (commands): the root a session's
// cwd opens, the engine's Client, and the engine calls the turn makes. The
// rest of the package speaks ACP.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// root is one workspace root with its engine; the sessions opened on the
// same cwd share it.
type root struct {
	path   string
	eng    *commands.Engine
	ws     *workspace.Workspace
	opened *app.Opened
	client *engineClient
	// interrupted is an apply a crash left unfinished (the journal of
	// contract §8), said at the first session's first prompt.
	interrupted string
	toldOnce    sync.Once
}

// root opens the engine on dir once per connection.
func (a *Agent) root(dir string) (*root, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.roots[dir]; r != nil {
		return r, nil
	}
	c := &engineClient{owners: map[string]*session{}, edited: map[string]string{}}
	o, err := app.Open(app.Options{
		Roots: []string{dir}, Client: c, Env: a.opts.Env, RetryBaseDelay: a.opts.RetryBaseDelay, Logger: a.log,
		WrapModel: func(m model.Client) model.Client { return streamTap{next: m} },
	})
	if err != nil {
		return nil, err
	}
	go o.BuildIndex(a.ctx, nil, func(msg string) { a.log.Warn(msg) })
	go o.Watch(a.ctx, app.WatchHooks{Off: "drift is seen only when a file is read", Polling: func(why string) {
		a.log.Warn(why + "; the workspace is polled instead: raise fs.inotify.max_user_watches")
	}})
	c.ws = o.Workspace
	r := &root{path: dir, eng: o.Engine, ws: o.Workspace, opened: o, client: c, interrupted: o.Workspace.Interrupted()}
	a.roots[dir] = r
	return r, nil
}

func (r *root) config() config.Config { return r.opened.Config }

// notices are what a new session is told at its first prompt: skipped
// settings, and a workspace file that asks for trust (contract §3).
func (r *root) notices() []string {
	var out []string
	r.toldOnce.Do(func() {
		if r.interrupted != "" {
			out = append(out, "aide-lsp: "+r.interrupted)
		}
	})
	if len(r.opened.Problems) > 0 {
		var lines []string
		for _, p := range r.opened.Problems {
			lines = append(lines, model.Redact(p.String()))
		}
		out = append(out, "aide-lsp configuration: "+strings.Join(lines, "; ")+" (these settings were skipped)")
	}
	if r.opened.Trust.NeedsTrust() {
		out = append(out, "aide-lsp: "+model.Redact(r.opened.Trust.TrustMessage(r.path)))
	}
	return out
}

// start runs aide.architect (or aide.edit in edit mode) on the task.
func (r *root) start(task, focus string, oneCall bool, arch, ed string) (string, commands.Work, error) {
	cmd := commands.CmdArchitect
	if oneCall {
		cmd = commands.CmdEdit
	}
	args := commands.StartArgs{Task: task, ArchitectModel: arch, EditorModel: ed}
	if focus != "" {
		args.URI = fileURI(focus)
	}
	return r.execute(cmd, args)
}

// replan runs aide.replan with the prompt as the user's feedback.
func (r *root) replan(id, feedback string) (string, commands.Work, error) {
	return r.execute(commands.CmdReplan, commands.ReplanArgs{Session: id, Feedback: feedback})
}

// approve runs aide.approvePlan, with another editor model when chosen.
func (r *root) approve(id, editorModel string) (string, commands.Work, error) {
	return r.execute(commands.CmdApprovePlan, commands.ApproveArgs{Session: id, EditorModel: editorModel})
}

// cancel runs aide.cancel: the running call stops, pending hunks are withdrawn.
func (r *root) cancel(id string) {
	_, _, _ = r.execute(commands.CmdCancel, commands.SessionArg{Session: id})
}

func (r *root) execute(cmd string, args any) (string, commands.Work, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return "", nil, err
	}
	res, work, err := r.eng.Execute(context.Background(), cmd, raw)
	if err != nil {
		return "", nil, err
	}
	sr, _ := res.(commands.SessionResult)
	return sr.Session, work, nil
}

func (r *root) view(id string) (commands.View, bool) { return r.eng.View(id) }

// own makes s the ACP session that hears of aide session id.
func (r *root) own(id string, s *session) {
	r.client.mu.Lock()
	r.client.owners[id] = s
	r.client.mu.Unlock()
}

// engineClient is the engine's Client for one root: it routes each
// session's events to the ACP session that runs it.
type engineClient struct {
	ws     *workspace.Workspace // ApplyHunks writes here
	mu     sync.Mutex
	owners map[string]*session // aide session id → ACP session
	edited map[string]string   // plan path → the client's text of it, read at approval
}

func (c *engineClient) owner(id string) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.owners[id]
}

// SessionEvent hears every event (already in .aide/sessions/<id>.jsonl).
func (c *engineClient) SessionEvent(ev commands.Event) {
	if s := c.owner(ev.Session); s != nil {
		s.onEvent(ev)
	}
}

// ShowPlan: the plan is shown when it is complete (turn.go), as a resource link.
func (c *engineClient) ShowPlan(commands.PlanDoc) {}

// PlanChanged: the client reads the plan file itself.
func (c *engineClient) PlanChanged(commands.PlanDoc) {}

// Delivery: the hunks are reviewed in place, one permission question each
// (review.go).
func (c *engineClient) Delivery() commands.Delivery { return commands.ReviewInPlace }

// Propose: hunks are reviewed one by one once the turn's work returns
// (review.go, through the engine's Next and Answer).
func (c *engineClient) Propose(context.Context, commands.Proposal) {}

// Message goes to every ACP session that ran an aide session on this
// root (the engine's messages are not per session).
func (c *engineClient) Message(level, text string) {
	c.mu.Lock()
	var to []*session
	for _, s := range c.owners {
		to = append(to, s)
	}
	c.mu.Unlock()
	seen := map[*session]bool{}
	for _, s := range to {
		if !seen[s] {
			seen[s] = true
			s.message(level, text)
		}
	}
}

// ApplyHunks writes accepted hunks with the server's all-or-nothing
// writer (aide.accept from another front end; this one accepts hunk by
// hunk in review.go).
func (c *engineClient) ApplyHunks(_ context.Context, _, _ string, hunks []editapply.Hunk) ([]string, error) {
	ids, _, err := commands.ApplyHunkIDs(c.ws, hunks)
	return ids, err
}

// PlanBuffer is the plan document as the client had it at approval
// (fs/read_text_file: the user's unsaved edits in Zed); whether it is an
// edit is the engine's rule.
func (c *engineClient) PlanBuffer(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, ok := c.edited[path]
	return text, ok
}

// setEdited records (text, ok) or forgets (!ok) the client's plan text.
func (c *engineClient) setEdited(path, text string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		c.edited[path] = text
	} else {
		delete(c.edited, path)
	}
}

// passOf reads the figures of an architect_pass or editor_pass event.
func passOf(data any) (passFigures, bool) {
	switch d := data.(type) {
	case commands.PassData:
		return passFigures{d.Model, d.PromptTokens, d.CompletionTokens}, true
	case *commands.PassData:
		return passFigures{d.Model, d.PromptTokens, d.CompletionTokens}, true
	case commands.EditorPassData:
		return passFigures{d.Model, d.PromptTokens, d.CompletionTokens}, true
	case *commands.EditorPassData:
		return passFigures{d.Model, d.PromptTokens, d.CompletionTokens}, true
	}
	return passFigures{}, false
}

// stepsOf reads the plan step of each hunk of a proposal event.
func stepsOf(data any) map[string]int {
	var d commands.ProposalData
	switch p := data.(type) {
	case commands.ProposalData:
		d = p
	case *commands.ProposalData:
		d = *p
	default:
		return nil
	}
	out := map[string]int{}
	for _, h := range d.Hunks {
		if h.Step != nil {
			out[h.ID] = *h.Step
		}
	}
	return out
}

// describe is a fallback or drift event as one line for the user, "" for
// the other events.
func describe(ev commands.Event) string {
	switch d := ev.Data.(type) {
	case commands.FallbackData:
		return fmt.Sprintf("fallback (%s): %s", d.Kind, d.Reason)
	case *commands.FallbackData:
		return fmt.Sprintf("fallback (%s): %s", d.Kind, d.Reason)
	case commands.DriftData:
		return driftLine(d)
	case *commands.DriftData:
		return driftLine(*d)
	}
	return ""
}

func driftLine(d commands.DriftData) string {
	var files []string
	for _, f := range d.Files {
		files = append(files, f.Path+" ("+f.Kind+")")
	}
	return "drift: changed since the plan: " + strings.Join(files, ", ") + "; onDrift is " + d.OnDrift
}
