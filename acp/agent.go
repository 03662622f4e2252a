// Package acp is aide-lsp's second adapter beside lsp: an Agent Client
// Protocol agent over stdio (`aide-lsp acp`, docs/contract.md §10) on the
// same engine (commands) and everything below it. A prompt is a task: the
// architect's text streams as agent messages, its plan becomes plan entries
// and a file the user may edit, approval is a permission request, and each
// hunk is its own edit tool call reviewed before anything is written.
//
// The wire is github.com/coder/acp-go-sdk (docs/design.md, "ACP"). This file
// is the protocol's session set-up; engine.go is the one file that talks to
// the engine; turn.go runs a prompt; review.go reviews hunks; stream.go
// streams the architect's text.
package acp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Options configure an agent. The zero value is production.
type Options struct {
	Version string
	// Env replaces os.Getenv for the configuration and the providers.
	Env func(string) string
	// RetryBaseDelay is the model Router's first backoff step (tests).
	RetryBaseDelay time.Duration
	Logger         *slog.Logger // nil discards
}

// Agent is one ACP connection's agent.
type Agent struct {
	opts Options
	log  *slog.Logger
	conn clientConn      // the client's connection, its border on (border.go)
	ctx  context.Context // the connection's life: roots stop with it

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	roots    map[string]*root
	sessions map[sdk.SessionId]*session
}

// Serve runs an agent over in/out (stdio) until the client goes away or
// ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := New(ctx, o)
	conn := a.Connect(in, out)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return nil
}

// New makes an agent whose roots live as long as ctx; Connect gives it its
// connection (Serve does both).
func New(ctx context.Context, o Options) *Agent {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Agent{opts: o, log: log, ctx: ctx, roots: map[string]*root{}, sessions: map[sdk.SessionId]*session{}}
}

// Connect makes the connection the agent answers on, over in and out (the
// client's lines to the agent, and the agent's to the client), with the
// border to the client on both (border.go).
func (a *Agent) Connect(in io.Reader, out io.Writer) *sdk.AgentSideConnection {
	w := &borderWriter{w: out, log: a.log}
	conn := sdk.NewAgentSideConnection(a, w, &lineGuard{r: bufio.NewReaderSize(in, 64<<10), w: w, log: a.log})
	conn.SetLogger(a.log)
	a.conn = clientConn{conn}
	return conn
}

var _ sdk.Agent = (*Agent)(nil)

// refuse is an invalid-params error whose message says what to do.
func refuse(format string, args ...any) error {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf(format, args...)}
}

// Initialize answers protocol version 1 and what this agent really does:
// text and resource links in prompts (no images, audio or embedded
// resources), no session loading, no MCP servers, no authentication.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			PromptCapabilities: sdk.PromptCapabilities{},
		},
		AgentInfo:   &sdk.Implementation{Name: "aide-lsp", Title: sdk.Ptr("aide (architect → editor)"), Version: a.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *Agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

// Authenticate: no method is offered, so there is nothing to do.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// Logout: nothing to forget (keys come from the environment only).
func (a *Agent) Logout(context.Context, sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	return sdk.LogoutResponse{}, nil
}

// NewSession opens (or shares) the engine on cwd, the workspace root: its
// .aide/config.json applies by the trust rules of contract §3, exactly as
// in the language server.
func (a *Agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return sdk.NewSessionResponse{}, refuse("cwd %q is not an absolute path: ACP sends the workspace root as an absolute path", p.Cwd)
	}
	dir, err := filepath.EvalSymlinks(filepath.Clean(p.Cwd))
	if err != nil {
		return sdk.NewSessionResponse{}, refuse("cwd %s cannot be opened: %v", p.Cwd, err)
	}
	r, err := a.root(dir)
	if err != nil {
		return sdk.NewSessionResponse{}, refuse("%v", err)
	}
	id := sdk.SessionId("acp-" + randomID())
	s := newSession(a, r, id)
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return sdk.NewSessionResponse{SessionId: id, Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, refuse("no session %q: create one with session/new", id)
	}
	return s, nil
}

// Prompt runs one prompt turn (turn.go).
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p)
}

// Cancel stops the session's running turn: the SDK has cancelled the
// prompt's context already, which stops the model call; a turn waiting
// for a permission stops when the client answers it "cancelled".
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil // a notification: nothing to answer
	}
	s.cancelTurn()
	return nil
}

// SetSessionMode switches between architect (two calls) and edit (one call).
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.setOption(optMode, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	s.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the mode, the architect model or the editor
// model of the session's next turns.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, refuse("aide's options are selects: send a value id")
	}
	s, err := a.session(p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if err := s.setOption(string(p.ValueId.ConfigId), string(p.ValueId.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if p.ValueId.ConfigId == optMode {
		s.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(p.ValueId.Value)}})
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// ListSessions is not offered (sessionCapabilities.list is not declared).
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound("session/list")
}

// ResumeSession is not offered.
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound("session/resume")
}

// CloseSession is not offered.
func (a *Agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound("session/close")
}
