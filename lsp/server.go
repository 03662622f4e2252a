package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// Options configure a Server. Only Version is needed; the rest have working
// defaults.
type Options struct {
	// Version is reported as serverInfo.version.
	Version string
	// Engine runs the aide.* commands. Used when Setup is nil; nil means a
	// placeholder that answers every command with "not available yet".
	Engine Engine
	// Workspace, when set, hears of buffer changes. Used when Setup is nil.
	Workspace *workspace.Workspace
	// Setup, when set, is the backend initialize starts, with the roots the
	// client sent: it returns the Engine and Workspace of this connection
	// (either may be nil). An error is shown to the user and leaves the
	// server running with commands answering that error.
	Setup Backend
	// Logger receives the server's log (the --log file); nil discards.
	// Warnings and errors are also sent as window/logMessage.
	Logger *slog.Logger
	// Delivery is the configured delivery ("auto", "applyEdit", "codeActions");
	// "" means auto.
	Delivery string
	// OnApplyResult, when set, hears the client's answer to each
	// workspace/applyEdit that Propose sent (err when the request failed).
	OnApplyResult func(p commands.Proposal, res protocol.ApplyWorkspaceEditResult, err error)
}

// Backend builds a connection's engine at initialize (lsp.NewSetup is the
// real one). It talks to the user only through the Server's methods
// (Message, Ask, Configuration), never with LSP messages of its own.
type Backend interface {
	Start(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error)
}

// BackendFunc is a Backend in one function.
type BackendFunc func(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error)

// Start implements Backend.
func (f BackendFunc) Start(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error) {
	return f(ctx, in)
}

// SetupInput is what Options.Setup gets at initialize.
type SetupInput struct {
	Client                commands.Client   // the server itself
	Server                *Server           // the server itself, for hooks (OnConfiguration, Go, SetDelivery)
	Buffers               workspace.Buffers // the document store
	Roots                 []string          // absolute workspace folders, first is the main root
	Profile               *Profile
	InitializationOptions json.RawMessage
}

// CustomHandler answers a custom method (aide/planDocument, …). params is
// nil when the message had no params or "params": null.
type CustomHandler func(ctx context.Context, params json.RawMessage) (any, error)

// closeGrace bounds how long Serve waits, after cancelling all background
// work, for handlers and work goroutines to return before it closes the
// transport under them. Work reacts to cancellation within milliseconds; the
// bound only matters for a handler that ignores its context, which must not
// keep the process alive after exit.
const closeGrace = 5 * time.Second

// Server is one LSP connection's server. Create with New, run with Serve.
type Server struct {
	opts Options
	log  *slog.Logger
	docs *Documents

	// conn is read without s.mu: the logger sends window/logMessage through
	// it, and logging must never wait for (or deadlock on) s.mu.
	conn      atomic.Pointer[connHolder]
	canceller func(jsonrpc2.ID) // cancels an in-flight request handler; set before the conn starts

	// bg is cancelled by shutdown, exit and the connection closing; every
	// background job and server→client call runs under it.
	bg       context.Context
	bgCancel context.CancelFunc
	jobs     sync.WaitGroup

	exitOnce sync.Once
	exited   chan struct{}

	mu          sync.Mutex // guards the fields below
	initialized bool
	shutdown    bool
	exitCode    int
	profile     *Profile
	roots       []string
	engine      Engine
	ws          *workspace.Workspace
	custom      map[string]CustomHandler
	work        map[jsonrpc2.ID]*job // running command work by executeCommand id
	tokens      map[string]*job      // the same jobs by progress token (JSON text)
	nextToken   int
	onConfig    func(ctx context.Context) // re-reads the configuration (set by Setup)
	// documentOpened is told of each didOpen (set by Setup: index warming)
	documentOpened func(abs, text string)
	delivery       string // configured delivery of contract §6 ("" = Options.Delivery)

	review  review    // proposals under review (review.go)
	reloads latest    // the runs of onConfig (ReloadConfiguration)
	loop    readLoop  // the read-loop guard (readloop.go)
	plans   planFiles // what the server knows of plan files (planfile.go)
}

// New makes a server.
func New(opts Options) *Server {
	base := opts.Logger
	if base == nil {
		base = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:     opts,
		docs:     newDocuments(),
		exited:   make(chan struct{}),
		exitCode: 1,
		profile:  NewProfile(nil, "", ""),
		custom:   map[string]CustomHandler{},
		work:     map[jsonrpc2.ID]*job{},
		tokens:   map[string]*job{},
	}
	s.log = slog.New(&clientLogHandler{inner: base.Handler(), s: s, queue: &clientLogQueue{}})
	s.review.init()
	s.custom["aide/planDocument"] = s.planDocument
	s.bg, s.bgCancel = context.WithCancel(context.Background())
	return s
}

// Handle registers a custom request or notification method. Call it before
// Serve.
func (s *Server) Handle(method string, h CustomHandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.custom[method] = h
}

// Documents returns the document store (it implements workspace.Buffers).
func (s *Server) Documents() *Documents { return s.docs }

// Profile returns the client profile (a conservative one before initialize).
func (s *Server) Profile() *Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.profile
}

// Roots returns the absolute workspace roots sent in initialize.
func (s *Server) Roots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roots...)
}

// Logger is the server's logger (warnings and errors reach the client too).
func (s *Server) Logger() *slog.Logger { return s.log }

// Serve runs the connection over rwc until the client sends exit, the
// connection drops or ctx is cancelled. It returns the process exit status:
// 0 after shutdown then exit, 1 otherwise (LSP specification).
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	stream := NewStream(rwc, s.log)
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(Codec))
	handler, canceller := jsonrpc2.CancelHandler(s.dispatch)
	s.canceller = canceller
	s.conn.Store(&connHolder{conn})
	conn.Go(s.bg, s.guard(handler))

	select {
	case <-s.exited:
	case <-conn.Done():
		if err := conn.Err(); err != nil {
			s.log.Error("connection ended", "err", err)
		}
	case <-ctx.Done():
	}

	// Exit only signalled us: cancel the background work first (outgoing
	// calls waiting for the client return at once), then close the conn,
	// which waits for in-flight handlers.
	s.bgCancel()
	waitOrTimeout(s.jobs.Wait, closeGrace)
	if !waitOrTimeout(func() { _ = conn.Close() }, closeGrace) {
		s.log.Warn("a handler ignored cancellation; closing the transport under it")
		_ = rwc.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// waitOrTimeout runs f and reports whether it returned within d.
func waitOrTimeout(f func(), d time.Duration) bool {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// notify sends a notification; failures (the client is gone) are logged at
// debug level only, since the connection's end is reported elsewhere.
func (s *Server) notify(method string, params any) {
	h := s.conn.Load()
	if h == nil {
		return
	}
	if err := h.conn.Notify(s.bg, method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

// call sends a server→client request under the background context and
// waits for the answer; cancelling sends $/cancelRequest.
func (s *Server) call(ctx context.Context, method string, params, result any) error {
	h := s.conn.Load()
	if h == nil {
		return errors.New("not connected")
	}
	ctx, cancel := mergeCancel(ctx, s.bg)
	defer cancel()
	return protocol.Call(ctx, h.conn, method, params, result)
}

// connHolder lets an interface value live in an atomic.Pointer.
type connHolder struct{ conn jsonrpc2.Conn }

// mergeCancel returns a context cancelled when either a or b is.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// rootsOf returns the absolute roots of initialize: workspaceFolders, else
// rootUri, else rootPath.
func rootsOf(p *initializeParams) []string {
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path := uriPath(f.URI); path != "" {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 && p.RootURI != nil {
		if path := uriPath(*p.RootURI); path != "" {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 && p.RootPath != nil && filepath.IsAbs(*p.RootPath) {
		roots = append(roots, filepath.Clean(*p.RootPath))
	}
	return roots
}
