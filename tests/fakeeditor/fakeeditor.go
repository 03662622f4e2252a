// Package fakeeditor is the in-memory editor every end-to-end test drives:
// it starts the aide-lsp server in-process over net.Pipe with the real
// Content-Length framing, initializes it with a real editor's captured
// capabilities (tests/testdata/profiles), keeps documents with versions,
// answers the server's requests the way VS Code does (applyEdit applies
// documentChanges and refuses stale versions with applied:false and nothing
// applied), and records every notification and request the server sends.
//
// Typical use:
//
//	ed := fakeeditor.Start(t, fakeeditor.Options{
//		Profile: "vscode-1.96",
//		Server:  lsp.Options{Version: "test", Engine: myEngine},
//	})
//	ed.Open("main.go", "package main\n")
//	res, _, err := ed.ExecuteCommand("aide.edit", map[string]any{"uri": ed.URI("main.go")})
//	ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))
//
// Start registers a cleanup that shuts the server down (shutdown, exit).
// Methods that wait fail the test after Options.Timeout, a hang guard only;
// call them from the test goroutine.
package fakeeditor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// DefaultTimeout is the hang guard of every wait: generous, because tests
// run on slow, busy machines; it never decides whether a test passes, only
// how long a broken one takes to fail.
const DefaultTimeout = 60 * time.Second

// Options configure Start.
type Options struct {
	// Profile names a capture under tests/testdata/profiles without ".json":
	// "vscode-1.96" (default), "neovim-0.7", "neovim-0.10", "neovim-0.12",
	// "helix-25.1" or "helix-25.07".
	Profile string
	// Capabilities, when set, may edit the profile's capabilities object
	// before initialize (for example to add experimental.aidePlanDocument).
	Capabilities func(caps map[string]any)
	// Roots are the absolute workspace folders; default one t.TempDir().
	Roots []string
	// Server configures the server under test (Engine, Setup, Workspace, …).
	Server lsp.Options
	// InitializationOptions is sent as initializationOptions.
	InitializationOptions any
	// Configuration answers workspace/configuration items by section;
	// nil answers null for every item.
	Configuration func(section string) any
	// ApplyEdit, when set, replaces the default (VS Code) handling of
	// workspace/applyEdit.
	ApplyEdit func(e *Editor, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult
	// NoInitialize skips initialize/initialized (raw lifecycle tests).
	NoInitialize bool
	// Timeout is the hang guard; default DefaultTimeout.
	Timeout time.Duration
	// Wire, when set, receives every message the server sent, requests,
	// notifications and responses alike, encoded as JSON, one per line
	// (the border tests walk every string of them).
	Wire io.Writer
}

// Message is one message the server sent to the editor.
type Message struct {
	Seq    int // order of arrival, from 1, shared by notifications and requests
	Method string
	Params json.RawMessage
	IsCall bool
	ID     jsonrpc2.ID
}

// Decode unmarshals the message's params into v (protocol types work).
func (m Message) Decode(v any) error { return protocol.Unmarshal(m.Params, v) }

// Doc is the editor's state of one open document.
type Doc struct {
	URI     string
	Version int32
	Text    string
	// Modified is the editor's "unsaved changes" mark: set by every change
	// of the buffer (the user's or an applied edit), cleared by opening,
	// saving and reloading it, as Neovim and Helix keep it (by change, not
	// by content: a buffer edited back to the file's text stays modified).
	Modified bool
	// Read is the file's content when the buffer last read or wrote it;
	// Neovim asks "file changed since editing started, really write?" when
	// the file no longer holds it.
	Read string
}

// Shown is one window/showDocument the editor carried out.
type Shown struct {
	Path      string
	TakeFocus bool
	// Split says the document opened beside the current one, the cursor
	// left there (showDocument below says how each editor reads takeFocus).
	Split bool
}

// Editor is a running fake editor connected to a server.
type Editor struct {
	t       testing.TB
	opts    Options
	timeout time.Duration
	server  *lsp.Server
	conn    jsonrpc2.Conn
	wire    net.Conn // the editor's end of the pipe (WriteRaw)
	stream  *tapStream
	roots   []string
	enc     editapply.Encoding

	served   chan struct{}
	exitCode int

	mu       sync.Mutex // guards the fields below
	changed  *sync.Cond // broadcast on every recorded message
	docs     map[string]*Doc
	received []Message
	initRes  map[string]any
	closed   bool
	raw      map[string]chan *jsonrpc2.Response // RawCall waiters by id
	shown    []Shown
	holding  bool        // HoldApplyEdits: applyEdits wait for Release
	held     []*HeldEdit // held applyEdits, oldest first, not yet released
}

// HeldEdit is a workspace/applyEdit the editor holds open, as VS Code does
// while its Refactor Preview is shown: the server has no answer until the
// test applies or discards it (Editor.Release).
type HeldEdit struct {
	Params protocol.ApplyWorkspaceEditParams
	answer chan bool // true: apply; false: discard
}

// Start starts a server with opts.Server over net.Pipe and, unless
// NoInitialize, initializes it with the chosen profile.
func Start(t testing.TB, opts Options) *Editor {
	t.Helper()
	if opts.Profile == "" {
		opts.Profile = "vscode-1.96"
	}
	if len(opts.Roots) == 0 {
		opts.Roots = []string{t.TempDir()}
	}
	e := &Editor{
		t: t, opts: opts, timeout: opts.Timeout, roots: opts.Roots,
		served: make(chan struct{}), docs: map[string]*Doc{}, enc: editapply.UTF16,
	}
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	e.changed = sync.NewCond(&e.mu)
	e.server = lsp.New(opts.Server)
	serverEnd, editorEnd := net.Pipe()
	e.wire = editorEnd
	go func() {
		code := e.server.Serve(context.Background(), serverEnd)
		e.mu.Lock()
		e.exitCode = code
		e.mu.Unlock()
		close(e.served)
	}()
	e.stream = &tapStream{Stream: jsonrpc2.NewHeaderStream(newQueuedConn(editorEnd)), e: e}
	e.conn = jsonrpc2.NewConn(e.stream, jsonrpc2.WithCodec(lsp.Codec))
	e.conn.Go(context.Background(), e.handle)
	t.Cleanup(e.cleanup)
	if !opts.NoInitialize {
		e.Initialize()
	}
	return e
}

// Initialize sends initialize with the profile (roots and process id
// replaced) and then initialized. Start calls it unless NoInitialize.
func (e *Editor) Initialize() map[string]any {
	e.t.Helper()
	params, err := e.InitializeParams()
	if err != nil {
		e.t.Fatalf("fakeeditor: %v", err)
	}
	var res map[string]any
	if err := e.Call("initialize", params, &res); err != nil {
		e.t.Fatalf("fakeeditor: initialize: %v", err)
	}
	if caps, ok := res["capabilities"].(map[string]any); ok && caps["positionEncoding"] == "utf-8" {
		e.enc = editapply.UTF8
	}
	e.mu.Lock()
	e.initRes = res
	e.mu.Unlock()
	if err := e.Notify("initialized", map[string]any{}); err != nil {
		e.t.Fatalf("fakeeditor: initialized: %v", err)
	}
	return res
}

// InitializeParams builds the initialize params from the profile.
func (e *Editor) InitializeParams() (map[string]any, error) {
	path := filepath.Join(ProfileDir(), e.opts.Profile+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile %q: %w", e.opts.Profile, err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	caps, _ := p["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		p["capabilities"] = caps
	}
	if e.opts.Capabilities != nil {
		e.opts.Capabilities(caps)
	}
	var folders []map[string]any
	for _, r := range e.roots {
		folders = append(folders, map[string]any{"uri": string(uri.File(r)), "name": filepath.Base(r)})
	}
	p["processId"] = os.Getpid()
	p["rootUri"] = string(uri.File(e.roots[0]))
	p["rootPath"] = e.roots[0]
	p["workspaceFolders"] = folders
	if e.opts.InitializationOptions != nil {
		p["initializationOptions"] = e.opts.InitializationOptions
	}
	return p, nil
}

// ProfileDir is the absolute path of tests/testdata/profiles.
func ProfileDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "profiles")
}

// Server is the server under test.
func (e *Editor) Server() *lsp.Server { return e.server }

// InitializeResult is the server's answer to initialize.
func (e *Editor) InitializeResult() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.initRes
}

// Encoding is the negotiated position encoding.
func (e *Editor) Encoding() editapply.Encoding { return e.enc }

// Root is the first workspace folder.
func (e *Editor) Root() string { return e.roots[0] }

// Abs resolves a path relative to the first root (absolute paths pass).
func (e *Editor) Abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(e.roots[0], filepath.FromSlash(path))
}

// URI is the file URI of a path (relative to the first root).
func (e *Editor) URI(path string) string { return string(uri.File(e.Abs(path))) }

// ---- requests and notifications to the server ----

// Call sends a request and decodes its result into result (may be nil).
func (e *Editor) Call(method string, params, result any) error {
	_, err := e.CallID(method, params, result)
	return err
}

// CallID is Call that also returns the request's id (for $/cancelRequest).
func (e *Editor) CallID(method string, params, result any) (jsonrpc2.ID, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	return e.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) error {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	return e.conn.Notify(ctx, method, params)
}

// WriteRaw writes bytes straight onto the wire (malformed-frame tests).
// Use it only while no other message is being sent.
func (e *Editor) WriteRaw(b []byte) error {
	_ = e.wire.SetWriteDeadline(time.Now().Add(e.timeout))
	defer func() { _ = e.wire.SetWriteDeadline(time.Time{}) }()
	_, err := e.wire.Write(b)
	return err
}

// WriteFrom copies r straight onto the wire (large raw frames without
// holding them in memory). Same rule as WriteRaw.
func (e *Editor) WriteFrom(r io.Reader) error {
	_ = e.wire.SetWriteDeadline(time.Now().Add(e.timeout))
	defer func() { _ = e.wire.SetWriteDeadline(time.Time{}) }()
	_, err := io.Copy(e.wire, r)
	return err
}

// CloseWire closes the editor's end of the connection, as a crashing
// editor would; the server sees the connection drop.
func (e *Editor) CloseWire() { _ = e.wire.Close() }

// rawPrefix marks the string ids of RawCall, whose responses the editor
// routes to the test instead of the connection.
const rawPrefix = "fakeeditor-raw-"

// RawCall sends a request under the string id rawPrefix+id, chosen by the
// test (so it can cancel it with CancelRequest(jsonrpc2.NewStringID(...))
// before the answer), and returns a channel that receives the response.
func (e *Editor) RawCall(id, method string, params any) (jsonrpc2.ID, <-chan *jsonrpc2.Response) {
	e.t.Helper()
	b, err := lsp.Codec.Marshal(params)
	if err != nil {
		e.t.Fatalf("fakeeditor: RawCall params: %v", err)
	}
	rid := jsonrpc2.NewStringID(rawPrefix + id)
	ch := make(chan *jsonrpc2.Response, 1)
	e.mu.Lock()
	if e.raw == nil {
		e.raw = map[string]chan *jsonrpc2.Response{}
	}
	e.raw[rawPrefix+id] = ch
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	if _, err := e.stream.Write(ctx, jsonrpc2.NewCall(rid, method, b)); err != nil {
		e.t.Fatalf("fakeeditor: RawCall: %v", err)
	}
	return rid, ch
}

// Await waits for a RawCall's response under the hang guard.
func (e *Editor) Await(ch <-chan *jsonrpc2.Response) *jsonrpc2.Response {
	e.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(e.timeout):
		e.t.Fatalf("fakeeditor: no response within %v", e.timeout)
		return nil
	}
}

// tapStream hands responses to RawCall ids to their waiters; everything
// else goes to the connection.
type tapStream struct {
	jsonrpc2.Stream
	e *Editor
}

func (s *tapStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := s.Stream.Read(ctx)
		if err != nil {
			return msg, n, err
		}
		if w := s.e.opts.Wire; w != nil {
			if data, err := jsonrpc2.EncodeMessage(msg); err == nil {
				_, _ = w.Write(append(data, '\n'))
			}
		}
		if resp, ok := msg.(*jsonrpc2.Response); ok {
			if id, ok := resp.ID().StringValue(); ok && strings.HasPrefix(id, rawPrefix) {
				s.e.mu.Lock()
				ch := s.e.raw[id]
				delete(s.e.raw, id)
				s.e.mu.Unlock()
				if ch != nil {
					ch <- resp
				}
				continue
			}
		}
		return msg, n, nil
	}
}

// CodeAction is a code action as the server sent it.
type CodeAction struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Edit is the action's WorkspaceEdit as sent (Pick applies it).
	Edit    json.RawMessage `json:"edit,omitzero"`
	Command *struct {
		Title     string            `json:"title"`
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
}

// CodeActions asks textDocument/codeAction for a range of a path.
func (e *Editor) CodeActions(path string, rng protocol.Range) ([]CodeAction, error) {
	var res []CodeAction
	err := e.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": e.URI(path)},
		"range":        rng,
		"context":      map[string]any{"diagnostics": []any{}},
	}, &res)
	return res, err
}

// ExecuteCommand sends workspace/executeCommand with one argument and
// returns the raw result and the request id (to cancel the command's work
// with $/cancelRequest).
func (e *Editor) ExecuteCommand(command string, arg any) (json.RawMessage, jsonrpc2.ID, error) {
	var res json.RawMessage
	params := map[string]any{"command": command}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	id, err := e.CallID("workspace/executeCommand", params, &res)
	return res, id, err
}

// CancelRequest sends $/cancelRequest for id (number or string as sent).
func (e *Editor) CancelRequest(id jsonrpc2.ID) error {
	if n, ok := id.Number(); ok {
		return e.Notify("$/cancelRequest", map[string]any{"id": n})
	}
	s, _ := id.StringValue()
	return e.Notify("$/cancelRequest", map[string]any{"id": s})
}

// Shutdown sends shutdown and exit and returns the server's exit status.
func (e *Editor) Shutdown() int {
	e.t.Helper()
	if err := e.Call("shutdown", nil, nil); err != nil {
		e.t.Errorf("fakeeditor: shutdown: %v", err)
	}
	return e.Exit()
}

// Exit sends exit and returns the server's exit status once Serve returned.
func (e *Editor) Exit() int {
	e.t.Helper()
	_ = e.Notify("exit", nil)
	return e.Wait()
}

// Wait waits for the server's Serve to return and gives its exit status.
func (e *Editor) Wait() int {
	e.t.Helper()
	select {
	case <-e.served:
	case <-time.After(e.timeout):
		e.t.Fatalf("fakeeditor: server did not stop within %v", e.timeout)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exitCode
}

// Done is closed when the server's Serve has returned.
func (e *Editor) Done() <-chan struct{} { return e.served }

func (e *Editor) cleanup() {
	e.mu.Lock()
	held := e.held
	e.held, e.holding = nil, false
	e.mu.Unlock()
	for _, h := range held {
		h.answer <- false
	}
	if v := e.server.ReadLoopViolations(); len(v) > 0 {
		e.t.Errorf("fakeeditor: the server called between lsp and the engine on its read loop: %v", v)
	}
	select {
	case <-e.served:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
		_, _ = e.conn.Call(ctx, "shutdown", nil, nil)
		_ = e.conn.Notify(ctx, "exit", nil)
		cancel()
		select {
		case <-e.served:
		case <-time.After(e.timeout):
			e.t.Errorf("fakeeditor: server did not exit within %v", e.timeout)
		}
	}
	_ = e.wire.Close()
	e.mu.Lock()
	e.closed = true
	e.changed.Broadcast()
	e.mu.Unlock()
}

// ---- documents ----

// Open opens a document with version 1 (didOpen). The language id is taken
// from the extension.
func (e *Editor) Open(path, text string) {
	e.t.Helper()
	u := e.URI(path)
	disk, _ := os.ReadFile(e.Abs(path))
	e.mu.Lock()
	e.docs[u] = &Doc{URI: u, Version: 1, Text: text, Modified: text != string(disk), Read: string(disk)}
	e.mu.Unlock()
	e.must(e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": languageID(path), "version": 1, "text": text,
	}}))
}

// Edit is one incremental change, its range in the negotiated encoding.
type Edit struct {
	Range protocol.Range
	Text  string
}

// Change applies incremental edits in order to the open document, bumps
// its version and sends didChange.
func (e *Editor) Change(path string, edits ...Edit) {
	e.t.Helper()
	u := e.URI(path)
	e.mu.Lock()
	doc, ok := e.docs[u]
	if !ok {
		e.mu.Unlock()
		e.t.Fatalf("fakeeditor: Change of %s, which is not open", path)
	}
	changes := make([]map[string]any, 0, len(edits))
	for _, ed := range edits {
		start := editapply.PosToOffset(doc.Text, pos(ed.Range.Start), e.enc)
		end := editapply.PosToOffset(doc.Text, pos(ed.Range.End), e.enc)
		doc.Text = doc.Text[:start] + ed.Text + doc.Text[end:]
		changes = append(changes, map[string]any{"range": ed.Range, "text": ed.Text})
	}
	doc.Version++
	doc.Modified = true
	version := doc.Version
	e.mu.Unlock()
	e.must(e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": changes,
	}))
}

// Replace sends a full-text didChange.
func (e *Editor) Replace(path, text string) {
	e.t.Helper()
	u := e.URI(path)
	version := e.setText(u, text)
	e.must(e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	}))
}

// Save writes the open document to disk and sends didSave.
func (e *Editor) Save(path string) {
	e.t.Helper()
	text, _, ok := e.Doc(path)
	if !ok {
		e.t.Fatalf("fakeeditor: Save of %s, which is not open", path)
	}
	e.must(os.WriteFile(e.Abs(path), []byte(text), 0o644))
	e.mu.Lock()
	if d := e.docs[e.URI(path)]; d != nil {
		d.Modified, d.Read = false, text
	}
	e.mu.Unlock()
	e.must(e.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": e.URI(path)}}))
}

// Reload is Helix's :reload and Neovim's autoread (:checktime): an open,
// unmodified buffer whose file changed on disk takes the file's content
// (a full-text didChange) and is unmodified. A modified buffer is left as
// it is; Reload reports whether the buffer now holds the file.
func (e *Editor) Reload(path string) bool {
	e.t.Helper()
	u := e.URI(path)
	b, err := os.ReadFile(e.Abs(path))
	if err != nil {
		return false
	}
	e.mu.Lock()
	d, ok := e.docs[u]
	if !ok || d.Modified {
		e.mu.Unlock()
		return false
	}
	if d.Text == string(b) {
		d.Read = d.Text
		e.mu.Unlock()
		return true
	}
	d.Text, d.Read = string(b), string(b)
	d.Version++
	version := d.Version
	e.mu.Unlock()
	e.must(e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": string(b)}},
	}))
	return true
}

// Modified reports the open buffer's "unsaved changes" mark (Doc.Modified):
// Helix's :qa refuses to quit while one is set.
func (e *Editor) Modified(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[e.URI(path)]
	return ok && d.Modified
}

// WriteWouldAsk reports whether writing the buffer would make Neovim ask
// "the file has been changed since editing started, really write?": the
// file on disk no longer holds what the buffer last read or wrote.
func (e *Editor) WriteWouldAsk(path string) bool {
	b, _ := os.ReadFile(e.Abs(path))
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[e.URI(path)]
	return ok && d.Read != string(b)
}

// Shown lists the window/showDocument requests the editor carried out.
func (e *Editor) Shown() []Shown {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Shown(nil), e.shown...)
}

// Close closes the document (didClose).
func (e *Editor) Close(path string) {
	e.t.Helper()
	u := e.URI(path)
	e.mu.Lock()
	delete(e.docs, u)
	e.mu.Unlock()
	e.must(e.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}}))
}

// Doc returns an open document's text and version.
func (e *Editor) Doc(path string) (text string, version int32, open bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[e.URI(path)]
	if !ok {
		return "", 0, false
	}
	return d.Text, d.Version, true
}

// Text returns the content the user sees: the open buffer, else the file
// on disk ("" when missing).
func (e *Editor) Text(path string) string {
	if text, _, ok := e.Doc(path); ok {
		return text
	}
	b, _ := os.ReadFile(e.Abs(path))
	return string(b)
}

// Range converts byte offsets of an open document (or file) into a range in
// the negotiated encoding.
func (e *Editor) Range(path string, start, end int) protocol.Range {
	text := e.Text(path)
	s := editapply.OffsetToPos(text, start, e.enc)
	t := editapply.OffsetToPos(text, end, e.enc)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(s.Line), Character: uint32(s.Char)},
		End:   protocol.Position{Line: uint32(t.Line), Character: uint32(t.Char)},
	}
}

func (e *Editor) setText(u, text string) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[u]
	if !ok {
		e.t.Errorf("fakeeditor: change of %s, which is not open", u)
		return 0
	}
	d.Text = text
	d.Version++
	d.Modified = true
	return d.Version
}

func (e *Editor) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("fakeeditor: %v", err)
	}
}

func pos(p protocol.Position) editapply.Pos {
	return editapply.Pos{Line: int(p.Line), Char: int(p.Character)}
}

// languageID is the LSP languageId an editor sends for a path, from the
// language table: "plaintext" without an extension, the extension itself
// for a language the table lacks.
func languageID(path string) string {
	if l, ok := treesitter.LangOf(path); ok {
		if l.ID != "" {
			return l.ID
		}
		return l.Name
	}
	if ext := strings.TrimPrefix(filepath.Ext(path), "."); ext != "" {
		return ext
	}
	return "plaintext"
}

// ---- what the server sent ----

// Messages returns every notification and request the server sent, in
// order of arrival.
func (e *Editor) Messages() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Message(nil), e.received...)
}

// Notifications returns the notifications of one method ("" for all).
func (e *Editor) Notifications(method string) []Message { return e.filter(method, false) }

// Requests returns the server→client requests of one method ("" for all).
func (e *Editor) Requests(method string) []Message { return e.filter(method, true) }

func (e *Editor) filter(method string, calls bool) []Message {
	var out []Message
	for _, m := range e.Messages() {
		if m.IsCall == calls && (method == "" || m.Method == method) {
			out = append(out, m)
		}
	}
	return out
}

// WaitNotification waits for a notification of method that matches (match
// nil accepts any), including ones that arrived before the call, and
// returns the first. It fails the test after the hang guard.
func (e *Editor) WaitNotification(method string, match func(Message) bool) Message {
	e.t.Helper()
	return e.wait(method, false, match)
}

// WaitRequest is WaitNotification for server→client requests.
func (e *Editor) WaitRequest(method string, match func(Message) bool) Message {
	e.t.Helper()
	return e.wait(method, true, match)
}

func (e *Editor) wait(method string, calls bool, match func(Message) bool) Message {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var found Message
	e.waitLocked(func() bool {
		for _, m := range e.received {
			if m.IsCall == calls && m.Method == method && (match == nil || match(m)) {
				found = m
				return true
			}
		}
		return false
	}, func() {
		kind := "notification"
		if calls {
			kind = "request"
		}
		e.t.Fatalf("fakeeditor: no matching %s %s within %v; received: %s", kind, method, e.timeout, summary(e.received))
	})
	return found
}

// waitLocked waits, with e.mu held, until ready holds; fail is called when
// the editor closes or e.timeout passes first (a hang guard, not a timing
// assertion).
func (e *Editor) waitLocked(ready func() bool, fail func()) {
	deadline := time.Now().Add(e.timeout)
	timer := time.AfterFunc(e.timeout, func() {
		e.mu.Lock()
		e.changed.Broadcast()
		e.mu.Unlock()
	})
	defer timer.Stop()
	for !ready() {
		if e.closed || time.Now().After(deadline) {
			fail()
			return
		}
		e.changed.Wait()
	}
}

func summary(ms []Message) string {
	count := map[string]int{}
	for _, m := range ms {
		count[m.Method]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s×%d ", k, count[k])
	}
	return b.String()
}

// ProgressKind matches a $/progress notification of a command whose
// value.kind is kind ("begin", "report", "end"); the server's background
// progress (the repository index, tokens "aide/bg/…") is BackgroundProgress's.
func ProgressKind(kind string) func(Message) bool {
	return func(m Message) bool {
		tok, k := progressOf(m)
		return k == kind && !strings.HasPrefix(tok, "aide/bg/")
	}
}

// BackgroundProgress matches the server's background $/progress (the
// repository index) whose value.kind is kind.
func BackgroundProgress(kind string) func(Message) bool {
	return func(m Message) bool {
		tok, k := progressOf(m)
		return k == kind && strings.HasPrefix(tok, "aide/bg/")
	}
}

// progressOf reads a $/progress notification's token (when a string) and
// value.kind.
func progressOf(m Message) (token, kind string) {
	var p struct {
		Token any `json:"token"`
		Value struct {
			Kind string `json:"kind"`
		} `json:"value"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return "", ""
	}
	token, _ = p.Token.(string)
	return token, p.Value.Kind
}

// ---- the server's requests ----

func (e *Editor) record(req *jsonrpc2.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.received = append(e.received, Message{
		Seq: len(e.received) + 1, Method: strings.Clone(req.Method()), IsCall: req.IsCall(), ID: req.ID(),
		Params: append(json.RawMessage(nil), req.Params()...),
	})
	e.changed.Broadcast()
}

// handle answers the server's requests like VS Code. Every message is
// recorded inline on the editor's read loop, so in wire order; a request is
// then answered concurrently (jsonrpc2.Async), as real clients answer: a
// request the editor holds (HoldApplyEdits) keeps nothing else waiting.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == "window/showDocument" && req.IsCall() {
		// Shown before it is recorded: a test that waited for the request
		// finds the document open, as the editor has it when it answers.
		var p struct {
			URI       string `json:"uri"`
			TakeFocus *bool  `json:"takeFocus"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			e.record(req)
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		e.showDocument(p.URI, p.TakeFocus)
		e.record(req)
		return map[string]any{"success": true}, nil
	}
	e.record(req)
	if !req.IsCall() {
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	switch req.Method() {
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability":
		return nil, nil
	case "window/showMessageRequest":
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if e.opts.Configuration != nil {
				out[i] = e.opts.Configuration(it.Section)
			}
		}
		return out, nil
	case "workspace/applyEdit":
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		if e.hold(p) {
			return protocol.ApplyWorkspaceEditResult{Applied: false}, nil
		}
		if e.opts.ApplyEdit != nil {
			return e.opts.ApplyEdit(e, p), nil
		}
		return e.ApplyWorkspaceEdit(p.Edit), nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fakeeditor: %s not supported", req.Method())
}

// HoldApplyEdits makes the editor hold every later workspace/applyEdit
// open until Release, as VS Code holds one while its Refactor Preview is
// shown. A held edit ignores $/cancelRequest, as VS Code's preview does.
func (e *Editor) HoldApplyEdits() {
	e.mu.Lock()
	e.holding = true
	e.mu.Unlock()
}

// WaitHeld waits until n applyEdits are held and returns them.
func (e *Editor) WaitHeld(n int) []*HeldEdit {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waitLocked(func() bool { return len(e.held) >= n }, func() {
		e.t.Fatalf("fakeeditor: %d held applyEdit(s) within %v, want %d", len(e.held), e.timeout, n)
	})
	return append([]*HeldEdit(nil), e.held...)
}

// Release answers a held applyEdit: apply (the user pressed Apply in the
// preview: the edit is applied the profile's way, didChange included, then
// answered) or discard (answered applied:false, nothing changed).
func (e *Editor) Release(h *HeldEdit, apply bool) {
	e.mu.Lock()
	for i, o := range e.held {
		if o == h {
			e.held = append(e.held[:i:i], e.held[i+1:]...)
			break
		}
	}
	e.mu.Unlock()
	h.answer <- apply
}

// hold keeps an applyEdit open while HoldApplyEdits is on; it reports
// true when the edit was discarded (or the editor closed), false when it
// is to be applied now.
func (e *Editor) hold(p protocol.ApplyWorkspaceEditParams) (discarded bool) {
	e.mu.Lock()
	if !e.holding {
		e.mu.Unlock()
		return false
	}
	h := &HeldEdit{Params: p, answer: make(chan bool, 1)}
	e.held = append(e.held, h)
	e.changed.Broadcast()
	e.mu.Unlock()
	select {
	case apply := <-h.answer:
		return !apply
	case <-e.served:
		return true
	}
}

// showDocument records a shown document; Neovim (0.9+), Helix and Emacs
// open it as their showDocument handlers do: a file that is not open is
// read from disk (didOpen), an open one is only brought to view, never
// re-read. Where it opens follows each one's reading of takeFocus (nil:
// the key was absent): Neovim takes an absent one as true, Helix 25.01
// splits unless it is true, Eglot takes any present one (false too) as
// true, and Helix 25.07 replaces the current view whatever it says. VS Code and Neovim 0.7 are
// left as they were (the extension shows the virtual plan document; Neovim
// 0.7 has no showDocument).
func (e *Editor) showDocument(u string, takeFocus *bool) {
	path := e.pathOf(u)
	sent := takeFocus != nil && *takeFocus
	sh := Shown{Path: path, TakeFocus: sent}
	opens := false
	switch {
	case e.opts.Profile == "helix-25.07":
		sh.Split, opens = false, true
	case strings.HasPrefix(e.opts.Profile, "helix"):
		sh.Split, opens = !sent, true
	case strings.HasPrefix(e.opts.Profile, "neovim") && e.opts.Profile != "neovim-0.7":
		sh.Split, opens = takeFocus != nil && !*takeFocus, true
	case strings.HasPrefix(e.opts.Profile, "emacs"):
		sh.Split, opens = takeFocus == nil, true
	}
	e.mu.Lock()
	e.shown = append(e.shown, sh)
	_, open := e.docs[u]
	e.mu.Unlock()
	if !opens || open || path == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	// Not e.Open: this runs on the connection's read loop, where t.Fatal
	// must not be called; the notification is queued like any other.
	e.mu.Lock()
	e.docs[u] = &Doc{URI: u, Version: 1, Text: string(b), Read: string(b)}
	e.mu.Unlock()
	_ = e.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": languageID(path), "version": 1, "text": string(b),
	}})
}

// ApplyWorkspaceEdit applies an edit the way the profile's editor does
// (docs/design.md, "What each editor supports"): Neovim skips a document whose
// version is stale and still answers applied:true; Helix applies document
// by document and stops at a stale one with applied:false, keeping the
// changes already made; VS Code (the default) is described below.
//
// VS Code: every versioned
// TextDocumentEdit is checked first, and if one names a version other than
// the open document's, nothing is applied and the answer is applied:false.
// Otherwise open documents change (with didChange sent to the server, as an
// editor does) and other files change on disk; create/rename/delete act on
// disk. Plain "changes" are applied too.
func (e *Editor) ApplyWorkspaceEdit(edit protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	switch {
	case strings.HasPrefix(e.opts.Profile, "neovim"):
		return e.applyLikeNeovim(edit)
	case strings.HasPrefix(e.opts.Profile, "helix"):
		return e.applyLikeHelix(edit)
	}
	return e.applyLikeVSCode(edit)
}

func (e *Editor) applyLikeVSCode(edit protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	fail := func(i int, format string, args ...any) protocol.ApplyWorkspaceEditResult {
		reason := fmt.Sprintf(format, args...)
		idx := uint32(i)
		return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason, FailedChange: &idx}
	}
	type plan struct {
		u     string
		edits []protocol.TextEdit
	}
	var ops []any // plan or resource operation, in order
	for i, ch := range edit.DocumentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentEdit:
			u := string(c.TextDocument.URI)
			if c.TextDocument.Version != nil {
				_, version, open := e.docByURI(u)
				if !open || version != *c.TextDocument.Version {
					return fail(i, "stale version %d of %s (editor has %d, open=%v)", *c.TextDocument.Version, u, version, open)
				}
			}
			p := plan{u: u}
			for _, el := range c.Edits {
				switch x := el.(type) {
				case *protocol.TextEdit:
					p.edits = append(p.edits, *x)
				case *protocol.AnnotatedTextEdit:
					p.edits = append(p.edits, x.TextEdit)
				default:
					return fail(i, "unsupported edit %T", el)
				}
			}
			ops = append(ops, p)
		default:
			ops = append(ops, ch)
		}
	}
	for u, edits := range edit.Changes {
		ops = append(ops, plan{u: string(u), edits: edits})
	}
	for i, op := range ops {
		var err error
		switch o := op.(type) {
		case plan:
			err = e.applyTextEdits(o.u, o.edits)
		case *protocol.CreateFile:
			err = e.createFile(string(o.URI))
		case *protocol.RenameFile:
			err = e.renameFile(string(o.OldURI), string(o.NewURI))
		case *protocol.DeleteFile:
			err = os.RemoveAll(e.pathOf(string(o.URI)))
		default:
			err = fmt.Errorf("unsupported document change %T", op)
		}
		if err != nil {
			return fail(i, "%v", err)
		}
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

func (e *Editor) docByURI(u string) (string, int32, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[u]
	if !ok {
		return "", 0, false
	}
	return d.Text, d.Version, true
}

func (e *Editor) pathOf(u string) string {
	parsed, err := uri.Parse(u)
	if err != nil {
		return ""
	}
	return parsed.FsPath()
}

// applyTextEdits applies edits (all against the same original text) to an
// open document, sending didChange, or to the file on disk.
func (e *Editor) applyTextEdits(u string, edits []protocol.TextEdit) error {
	text, _, open := e.docByURI(u)
	path := e.pathOf(u)
	if !open {
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		text = string(b)
	}
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, ed := range edits {
		spans = append(spans, span{
			editapply.PosToOffset(text, pos(ed.Range.Start), e.enc),
			editapply.PosToOffset(text, pos(ed.Range.End), e.enc), ed.NewText,
		})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	// Neovim reports an applied edit incrementally (one change per text
	// edit, the last first, so each range holds in the text before it);
	// VS Code's client and Helix here send the whole text.
	var changes []map[string]any
	for _, s := range spans {
		a, b := editapply.OffsetToPos(text, s.start, e.enc), editapply.OffsetToPos(text, s.end, e.enc)
		changes = append(changes, map[string]any{"range": protocol.Range{
			Start: protocol.Position{Line: uint32(a.Line), Character: uint32(a.Char)},
			End:   protocol.Position{Line: uint32(b.Line), Character: uint32(b.Char)},
		}, "text": s.text})
		text = text[:s.start] + s.text + text[s.end:]
	}
	if !open {
		return os.WriteFile(path, []byte(text), 0o644)
	}
	if !strings.HasPrefix(e.opts.Profile, "neovim") || len(changes) == 0 {
		changes = []map[string]any{{"text": text}}
	}
	version := e.setText(u, text)
	return e.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": changes,
	})
}

func (e *Editor) createFile(u string) error {
	path := e.pathOf(u)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func (e *Editor) renameFile(from, to string) error {
	dst := e.pathOf(to)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(e.pathOf(from), dst)
}
