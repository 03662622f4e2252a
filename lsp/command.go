package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/aide-lsp/aide-lsp/commands"
)

// Causes of a job's cancellation, for the log and the progress end message.
var (
	errCancelledByClient = errors.New("cancelled by the client")
	errShutdown          = errors.New("the server is shutting down")
)

// job is one command's background work.
type job struct {
	id      jsonrpc2.ID
	token   string // progress token as JSON text, "" when there is none
	command string
	session string // the session the work is on, "" when unknown
	ctx     context.Context
	cancel  context.CancelCauseFunc
}

// executeCommand checks the command, lets the engine answer at once, and
// runs the returned work in a goroutine under a progress token.
func (s *Server) executeCommand(ctx context.Context, id jsonrpc2.ID, params []byte) (any, error) {
	var p executeCommandParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	engine := s.engine
	s.mu.Unlock()
	if !slices.Contains(engine.Commands(), p.Command) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	arg := json.RawMessage("{}")
	if len(p.Arguments) > 0 && !isNull(p.Arguments[0]) {
		arg = append(json.RawMessage(nil), p.Arguments[0]...)
	} else if need := neededArgument(p.Command); need != "" {
		// Helix's :lsp-workspace-command sends no arguments at all; say
		// what the command needs instead of failing on an empty object.
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, need)
	}
	// The command sees every document change sent before it judged (an
	// accept after the user typed into the hunk is refused as stale).
	s.currentReview(ctx)
	result, work, err := engine.Execute(ctx, p.Command, arg)
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	if work != nil {
		session := ""
		if r, ok := result.(commands.SessionResult); ok {
			session = r.Session
		}
		s.startJob(id, p.Command, session, p.WorkDoneToken, work)
	}
	return result, nil
}

// neededArgument is the refusal for a command sent without its argument,
// "" for the commands that need none (aide.sessions, aide.cost): the
// command table says what each takes.
func neededArgument(command string) string {
	c, ok := commands.Lookup(command)
	if !ok || !c.NeedsArg() {
		return ""
	}
	msg := command + " needs one argument " + c.ArgShape()
	if strings.Contains(c.ArgShape(), "session") {
		return msg + "; run aide.sessions for the session ids, or use the AIDE code actions in the plan document or on a proposal"
	}
	return msg + `; without one, write a comment "AI: <task>" in the file and pick "` + TitleArchitect + `" or "AIDE: Edit" from its code actions`
}

// startJob registers the work under the request id (before the reply is
// written, so a $/cancelRequest that follows the reply finds it) and runs it.
func (s *Server) startJob(id jsonrpc2.ID, command, session string, clientToken json.RawMessage, work func(context.Context, Progress) error) {
	ctx, cancel := context.WithCancelCause(s.bg)
	j := &job{id: id, command: command, session: session, ctx: ctx, cancel: cancel}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		cancel(errShutdown)
		return
	}
	s.work[id] = j
	s.jobs.Add(1)
	s.mu.Unlock()
	go s.runJob(j, clientToken, work)
}

func (s *Server) runJob(j *job, clientToken json.RawMessage, work func(context.Context, Progress) error) {
	defer s.jobs.Done()
	defer func() {
		s.mu.Lock()
		delete(s.work, j.id)
		if j.token != "" {
			delete(s.tokens, j.token)
		}
		s.mu.Unlock()
		j.cancel(nil)
	}()

	progress := &progressReporter{s: s}
	if token := s.progressToken(j, clientToken); token != nil {
		progress.token = token
		s.mu.Lock()
		j.token = string(token)
		s.tokens[j.token] = j
		s.mu.Unlock()
		cancellable := true
		progress.send(workDoneProgress{Kind: "begin", Title: jobTitle(j.command), Cancellable: &cancellable})
	}

	err := s.safeRun(j, work, progress)
	end := "done"
	switch {
	case j.ctx.Err() != nil:
		end = "cancelled"
		s.log.Info("command cancelled", "command", j.command, "cause", context.Cause(j.ctx))
	case err != nil:
		end = "failed: " + err.Error()
		s.log.Warn("command failed", "command", j.command, "err", err)
	default:
		end = s.outcome(j.session)
	}
	progress.send(workDoneProgress{Kind: "end", Message: end})
}

// jobTitle is the progress title of a command (the command table's).
func jobTitle(command string) string {
	if c, ok := commands.Lookup(command); ok && c.Progress != "" {
		return c.Progress
	}
	return "AIDE: " + command
}

// outcome says how a session's turn ended, for the end of its progress:
// the engine's work returns nil for a plan waiting, a proposal, a cancel.
func (s *Server) outcome(session string) string {
	if session == "" {
		return "done"
	}
	v, ok := s.eng().View(session)
	if !ok {
		return "done"
	}
	pending := 0
	for _, h := range v.Hunks {
		if h.Status == "pending" {
			pending++
		}
	}
	switch v.State {
	case commands.StateWaiting:
		return "plan ready: approve it in the plan document"
	case commands.StateProposed:
		return fmt.Sprintf("proposed: %d change(s) to review", pending)
	case commands.StateCancelled:
		return "cancelled"
	case commands.StateFailed:
		return "failed: " + v.Reason
	}
	return "done"
}

// safeRun runs work, turning a panic into an error so a bug in one command
// neither kills the server nor leaves a progress bar spinning.
func (s *Server) safeRun(j *job, work func(context.Context, Progress) error, p Progress) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("command work panicked", "command", j.command, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return work(j.ctx, p)
}

// progressToken returns the token to report under: the client's
// workDoneToken, else a server-created one when the client supports
// window/workDoneProgress/create, else nil (no progress notifications).
func (s *Server) progressToken(j *job, clientToken json.RawMessage) json.RawMessage {
	if !isNull(clientToken) {
		return compactJSON(clientToken)
	}
	if !s.Profile().WorkDoneProgress {
		return nil
	}
	s.mu.Lock()
	s.nextToken++
	token := json.RawMessage(strconv.Quote(fmt.Sprintf("aide/%d", s.nextToken)))
	s.mu.Unlock()
	if err := s.call(j.ctx, "window/workDoneProgress/create", workDoneProgressCreateParams{Token: token}, nil); err != nil {
		s.log.Debug("progress token refused; running without progress", "err", err)
		return nil
	}
	return token
}

// workDoneProgressCancel cancels the job of a progress token.
func (s *Server) workDoneProgressCancel(params []byte) error {
	var p workDoneProgressCancelParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	j := s.tokens[string(compactJSON(p.Token))]
	s.mu.Unlock()
	if j != nil {
		j.cancel(errCancelledByClient)
	}
	return nil
}

// cancelAllWork cancels every running job.
func (s *Server) cancelAllWork(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.work {
		j.cancel(cause)
	}
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// progressReporter sends $/progress reports under one token.
type progressReporter struct {
	s     *Server
	token json.RawMessage // nil: no progress notifications
}

// Report implements Progress.
func (p *progressReporter) Report(message string) {
	p.s.log.Debug("progress", "message", message)
	p.send(workDoneProgress{Kind: "report", Message: message})
}

func (p *progressReporter) send(v workDoneProgress) {
	if p.token == nil {
		return
	}
	p.s.notify("$/progress", progressParams{Token: p.token, Value: v})
}

// UnavailableEngine is the placeholder engine: it registers every command
// and answers each with "not available yet" (or reason).
func UnavailableEngine(reason string) Engine {
	if reason == "" {
		reason = "aide-lsp: this command is not available yet in this build"
	}
	return unavailable(reason)
}

type unavailable string

func (unavailable) Commands() []string {
	return append([]string(nil), commands.AllCommands...)
}

func (u unavailable) Execute(context.Context, string, json.RawMessage) (any, func(context.Context, Progress) error, error) {
	return nil, nil, errors.New(string(u))
}

func (unavailable) View(string) (commands.View, bool)        { return commands.View{}, false }
func (unavailable) SessionForPlanFile(string) (string, bool) { return "", false }
func (unavailable) Delivered(string, []string, bool, error)  {}
func (u unavailable) Stale(string, []string, string) ([]string, error) {
	return nil, errors.New(string(u))
}
func (unavailable) DocumentsChanged(context.Context, []commands.DocChange) []commands.SessionReview {
	return nil
}
