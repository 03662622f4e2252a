package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// fakeEngine registers every command of contract §4 and behaves per
// command: aide.architect runs work that blocks until cancelled,
// aide.cost panics in Execute, aide.sessions runs work that panics, the rest
// answer {"ok":true} with no work.
type fakeEngine struct {
	lsp.Engine             // the rest of the engine: nothing under review
	cancelled  chan string // command names whose work saw cancellation
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{Engine: lsp.UnavailableEngine("no engine"), cancelled: make(chan string, 16)}
}

func (f *fakeEngine) Commands() []string { return commands.AllCommands }

func (f *fakeEngine) Execute(ctx context.Context, cmd string, arg json.RawMessage) (any, func(context.Context, lsp.Progress) error, error) {
	switch cmd {
	case commands.CmdCost:
		panic("engine bug")
	case commands.CmdArchitect:
		return map[string]string{"session": "s1"}, func(ctx context.Context, p lsp.Progress) error {
			p.Report("architect: planning")
			<-ctx.Done()
			f.cancelled <- cmd
			return ctx.Err()
		}, nil
	case commands.CmdSessions:
		return map[string]any{}, func(context.Context, lsp.Progress) error { panic("work bug") }, nil
	case commands.CmdAccept:
		return nil, nil, errors.New("no pending hunks: run aide.architect first")
	}
	return map[string]bool{"ok": true}, nil, nil
}

// recv receives from ch under a generous hang guard (never an assertion on
// timing: a slow machine only makes the test slower).
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(fakeeditor.DefaultTimeout):
		t.Fatalf("nothing received within %v", fakeeditor.DefaultTimeout)
		var zero T
		return zero
	}
}

func start(t *testing.T, profile string, engine lsp.Engine) *fakeeditor.Editor {
	t.Helper()
	return fakeeditor.Start(t, fakeeditor.Options{
		Profile: profile,
		Server:  lsp.Options{Version: "1.2.3-test", Engine: engine},
	})
}

// barrier makes sure every notification sent before it was handled:
// notifications are handled inline, before the next request is dispatched.
func barrier(t *testing.T, ed *fakeeditor.Editor) {
	t.Helper()
	if _, err := ed.CodeActions("barrier.txt", protocol.Range{}); err != nil {
		t.Fatalf("codeAction: %v", err)
	}
}

func TestCapabilitiesAdvertised(t *testing.T) {
	for _, tc := range []struct{ profile, encoding string }{
		{"vscode-1.96", "utf-16"},
		{"neovim-0.7", "utf-16"},
		{"helix-25.1", "utf-8"}, // Helix offers utf-8 first
	} {
		t.Run(tc.profile, func(t *testing.T) {
			ed := start(t, tc.profile, newFakeEngine())
			res := ed.InitializeResult()
			caps := res["capabilities"].(map[string]any)
			if got := caps["positionEncoding"]; got != tc.encoding {
				t.Errorf("positionEncoding = %v, want %s", got, tc.encoding)
			}
			sync := caps["textDocumentSync"].(map[string]any)
			if sync["change"] != float64(2) || sync["openClose"] != true {
				t.Errorf("textDocumentSync = %v, want incremental with open/close", sync)
			}
			kinds := fmt.Sprint(caps["codeActionProvider"].(map[string]any)["codeActionKinds"])
			if kinds != "[refactor.rewrite.aide]" {
				t.Errorf("codeActionKinds = %s", kinds)
			}
			cmds := fmt.Sprint(caps["executeCommandProvider"].(map[string]any)["commands"])
			if cmds != fmt.Sprint(commands.AllCommands) {
				t.Errorf("executeCommandProvider.commands = %s, want %v", cmds, commands.AllCommands)
			}
			info := res["serverInfo"].(map[string]any)
			if info["name"] != "aide-lsp" || info["version"] != "1.2.3-test" {
				t.Errorf("serverInfo = %v", info)
			}
			if code := ed.Shutdown(); code != 0 {
				t.Errorf("exit status after shutdown = %d, want 0", code)
			}
		})
	}
}

func TestExitWithoutShutdownIsStatusOne(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	if code := ed.Exit(); code != 1 {
		t.Errorf("exit status without shutdown = %d, want 1", code)
	}
}

func TestRequestBeforeInitializeIsRefused(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{NoInitialize: true})
	_, err := ed.CodeActions("a.go", protocol.Range{})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 {
		t.Fatalf("codeAction before initialize: err = %v, want ServerNotInitialized (-32002)", err)
	}
	ed.Initialize()
	if _, err := ed.CodeActions("a.go", protocol.Range{}); err != nil {
		t.Fatalf("codeAction after initialize: %v", err)
	}
}

func TestMultiRootWorkspaceFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ed := fakeeditor.Start(t, fakeeditor.Options{Roots: []string{a, b}})
	if got := fmt.Sprint(ed.Server().Roots()); got != fmt.Sprint([]string{a, b}) {
		t.Errorf("roots = %s, want [%s %s]", got, a, b)
	}
}

func TestFiveThousandRapidChangesArriveInOrder(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	ed.Open("big.txt", "")
	var want strings.Builder
	for i := range 5000 {
		text, _, _ := ed.Doc("big.txt")
		line := fmt.Sprintf("line %d\n", i)
		// Insert at the end: each change only makes sense after the previous one.
		end := ed.Range("big.txt", len(text), len(text))
		ed.Change("big.txt", fakeeditor.Edit{Range: end, Text: line})
		want.WriteString(line)
	}
	barrier(t, ed)
	got, version, ok := ed.Server().Documents().Buffer(ed.Abs("big.txt"))
	if !ok || version != 5001 {
		t.Fatalf("server buffer: ok=%v version=%d, want version 5001", ok, version)
	}
	if got != want.String() {
		t.Fatalf("server buffer differs from the editor's after 5,000 changes (len %d vs %d)", len(got), want.Len())
	}
}

func TestIncrementalChangesOnEmojiCJKAndCRLF(t *testing.T) {
	const text = "a😀b\r\n漢字😀x\r\nend"
	for _, profile := range []string{"vscode-1.96", "helix-25.1"} {
		t.Run(profile, func(t *testing.T) {
			ed := start(t, profile, newFakeEngine())
			ed.Open("u.txt", text)
			// Replace "x" after the CJK and emoji on line 1, then the emoji on line 0.
			x := strings.Index(text, "x")
			ed.Change("u.txt", fakeeditor.Edit{Range: ed.Range("u.txt", x, x+1), Text: "Y"})
			e := strings.Index(text, "😀")
			ed.Change("u.txt", fakeeditor.Edit{Range: ed.Range("u.txt", e, e+len("😀")), Text: "🎉"})
			edited, _, _ := ed.Doc("u.txt")
			ed.Replace("u.txt", "full\r\n"+edited) // then a full-text change
			crlf := len("full\r\n") + strings.Index(text, "\r\n")
			ed.Change("u.txt", fakeeditor.Edit{Range: ed.Range("u.txt", crlf, crlf), Text: "!"})
			barrier(t, ed)
			want, _, _ := ed.Doc("u.txt")
			got, _, _ := ed.Server().Documents().Buffer(ed.Abs("u.txt"))
			if got != want {
				t.Errorf("server %q, editor %q", got, want)
			}
			if got != "full\r\na🎉b!\r\n漢字😀Y\r\nend" {
				t.Errorf("edits landed in the wrong place: %q", got)
			}
		})
	}
}

func TestDocumentLifecycle(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	ed.Open("c.go", "package c\n")
	ed.Save("c.go")
	barrier(t, ed)
	if _, v, ok := ed.Server().Documents().Buffer(ed.Abs("c.go")); !ok || v != 1 {
		t.Fatalf("after open+save: ok=%v version=%d", ok, v)
	}
	ed.Close("c.go")
	barrier(t, ed)
	if _, _, ok := ed.Server().Documents().Buffer(ed.Abs("c.go")); ok {
		t.Fatal("document still open after didClose")
	}
}

func TestCodeActionsAnswerWithBothCommands(t *testing.T) {
	ed := start(t, "helix-25.1", newFakeEngine())
	ed.Open("m.go", "package m\n\nfunc f() {}\n")
	rng := ed.Range("m.go", 11, 22)
	actions, err := ed.CodeActions("m.go", rng)
	if err != nil {
		t.Fatal(err)
	}
	if len(actions) != 2 {
		t.Fatalf("got %d actions, want 2", len(actions))
	}
	for i, want := range []struct{ title, cmd string }{
		{"AIDE: Architect → Editor", "aide.architect"},
		{"AIDE: Edit (one call)", "aide.edit"},
	} {
		a := actions[i]
		if a.Title != want.title || a.Kind != "refactor.rewrite.aide" || a.Command == nil || a.Command.Command != want.cmd {
			t.Errorf("action %d = %+v, want %q → %s", i, a, want.title, want.cmd)
			continue
		}
		var arg lsp.CommandArg
		if len(a.Command.Arguments) != 1 || json.Unmarshal(a.Command.Arguments[0], &arg) != nil {
			t.Fatalf("arguments = %s", a.Command.Arguments)
		}
		if arg.URI != ed.URI("m.go") || arg.Range != rng {
			t.Errorf("argument = %+v, want uri %s range %v", arg, ed.URI("m.go"), rng)
		}
	}
	// context.only that excludes refactors gets nothing.
	var none []fakeeditor.CodeAction
	err = ed.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": ed.URI("m.go")}, "range": rng,
		"context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}},
	}, &none)
	if err != nil || len(none) != 0 {
		t.Errorf("only quickfix: %v, %v", none, err)
	}
}

// runBlocking starts aide.architect and waits for its progress to begin.
func runBlocking(t *testing.T, ed *fakeeditor.Editor) (jsonrpc2.ID, json.RawMessage) {
	t.Helper()
	res, id, err := ed.ExecuteCommand(commands.CmdArchitect, map[string]any{"uri": ed.URI("a.go")})
	if err != nil {
		t.Fatalf("executeCommand: %v", err)
	}
	if string(res) != `{"session":"s1"}` {
		t.Errorf("result = %s", res)
	}
	begin := ed.WaitNotification("$/progress", fakeeditor.ProgressKind("begin"))
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	_ = json.Unmarshal(begin.Params, &p)
	return id, p.Token
}

func waitCancelled(t *testing.T, ed *fakeeditor.Editor, eng *fakeEngine) {
	t.Helper()
	end := ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))
	if !strings.Contains(string(end.Params), "cancelled") {
		t.Errorf("progress end = %s, want a cancelled message", end.Params)
	}
	if got := recv(t, eng.cancelled); got != commands.CmdArchitect {
		t.Errorf("cancelled %s", got)
	}
}

func TestNumericCancelRequestStopsBlockingCommand(t *testing.T) {
	eng := newFakeEngine()
	ed := start(t, "vscode-1.96", eng)
	id, _ := runBlocking(t, ed)
	if !id.IsNumber() {
		t.Fatalf("the editor sent a non-numeric id %v", id)
	}
	// The report made it through too.
	ed.WaitNotification("$/progress", fakeeditor.ProgressKind("report"))
	if err := ed.CancelRequest(id); err != nil {
		t.Fatal(err)
	}
	waitCancelled(t, ed, eng)
	if len(ed.Requests("window/workDoneProgress/create")) != 1 {
		t.Errorf("want one window/workDoneProgress/create (VS Code supports it)")
	}
}

func TestStringCancelRequestStopsBlockingCommand(t *testing.T) {
	eng := newFakeEngine()
	ed := start(t, "vscode-1.96", eng)
	id, resp := ed.RawCall("cmd-7", "workspace/executeCommand", map[string]any{
		"command": "aide.architect", "arguments": []any{map[string]any{}}})
	if r := ed.Await(resp); r.Err() != nil || string(r.Result()) != `{"session":"s1"}` {
		t.Fatalf("executeCommand: %s, %v", r.Result(), r.Err())
	}
	ed.WaitNotification("$/progress", fakeeditor.ProgressKind("begin"))
	if err := ed.CancelRequest(id); err != nil {
		t.Fatal(err)
	}
	waitCancelled(t, ed, eng)
}

func TestCancelledRequestAnswersRequestCancelled(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	entered := make(chan struct{})
	ed.Server().Handle("aide/slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(entered)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	id, resp := ed.RawCall("slow-1", "aide/slow", map[string]any{})
	recv(t, entered)
	// Requests run concurrently: the server still answers others meanwhile.
	barrier(t, ed)
	if err := ed.CancelRequest(id); err != nil {
		t.Fatal(err)
	}
	var rpcErr *jsonrpc2.Error
	if r := ed.Await(resp); !errors.As(r.Err(), &rpcErr) || rpcErr.Code != -32800 {
		t.Fatalf("cancelled request answered %v, want RequestCancelled (-32800)", r.Err())
	}
}

func TestWorkDoneProgressCancelStopsCommand(t *testing.T) {
	eng := newFakeEngine()
	ed := start(t, "vscode-1.96", eng)
	_, token := runBlocking(t, ed)
	if err := ed.Notify("window/workDoneProgress/cancel", map[string]any{"token": token}); err != nil {
		t.Fatal(err)
	}
	waitCancelled(t, ed, eng)
}

func TestShutdownCancelsWork(t *testing.T) {
	eng := newFakeEngine()
	ed := start(t, "vscode-1.96", eng)
	runBlocking(t, ed)
	if code := ed.Shutdown(); code != 0 {
		t.Errorf("exit status = %d", code)
	}
	if got := recv(t, eng.cancelled); got != commands.CmdArchitect {
		t.Errorf("cancelled %s", got)
	}
}

func TestDroppedConnectionCancelsWork(t *testing.T) {
	eng := newFakeEngine()
	ed := start(t, "neovim-0.7", eng)
	runBlocking(t, ed)
	closeWire(t, ed)
	if got := recv(t, eng.cancelled); got != commands.CmdArchitect {
		t.Errorf("cancelled %s", got)
	}
	if code := ed.Wait(); code != 1 {
		t.Errorf("exit status after a dropped connection = %d, want 1", code)
	}
}

// closeWire drops the connection the way a crashed editor does: a frame
// cut off mid-body, then end of stream.
func closeWire(t *testing.T, ed *fakeeditor.Editor) {
	t.Helper()
	if err := ed.WriteRaw([]byte("Content-Length: 100\r\n\r\n{\"jsonrpc\"")); err != nil {
		t.Fatal(err)
	}
	ed.CloseWire()
}

func TestProgressWithoutClientSupportStillRunsAndCancels(t *testing.T) {
	eng := newFakeEngine()
	ed := fakeeditor.Start(t, fakeeditor.Options{
		Capabilities: func(caps map[string]any) { delete(caps, "window") },
		Server:       lsp.Options{Engine: eng},
	})
	_, id, err := ed.ExecuteCommand(commands.CmdArchitect, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.CancelRequest(id); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, eng.cancelled); got != commands.CmdArchitect {
		t.Errorf("cancelled %s", got)
	}
	barrier(t, ed)
	if n := len(ed.Requests("window/workDoneProgress/create")) + len(ed.Notifications("$/progress")); n != 0 {
		t.Errorf("sent %d progress messages to a client without workDoneProgress", n)
	}
}

func TestCommandErrorsAndUnknownCommands(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	_, _, err := ed.ExecuteCommand(commands.CmdAccept, map[string]any{"session": "x"})
	if err == nil || !strings.Contains(err.Error(), "no pending hunks") {
		t.Errorf("engine error not passed on: %v", err)
	}
	_, _, err = ed.ExecuteCommand("aide.nope", nil)
	if err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("unknown command: %v", err)
	}
}

func TestPlaceholderEngineAnswersNotAvailable(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{}) // no engine configured
	_, _, err := ed.ExecuteCommand(commands.CmdArchitect, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "not available yet") {
		t.Errorf("placeholder engine: %v", err)
	}
}

func TestPanicsLeaveTheConnectionUsable(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	var boom sync.Once
	ed.Server().Handle("aide/boom", func(context.Context, json.RawMessage) (any, error) {
		boom.Do(func() {})
		panic("notification handler bug")
	})
	// A request handler panics: that request fails, nothing else does.
	_, _, err := ed.ExecuteCommand(commands.CmdCost, map[string]any{})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InternalError {
		t.Errorf("panicking request: err = %v, want InternalError", err)
	}
	// A notification handler panics.
	if err := ed.Notify("aide/boom", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// Background work panics: its progress still ends.
	if _, _, err := ed.ExecuteCommand(commands.CmdSessions, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	end := ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))
	if !strings.Contains(string(end.Params), "failed") {
		t.Errorf("progress end after a panic = %s", end.Params)
	}
	// The connection still works, in order.
	ed.Open("after.txt", "ok")
	barrier(t, ed)
	if text, _, ok := ed.Server().Documents().Buffer(ed.Abs("after.txt")); !ok || text != "ok" {
		t.Errorf("after panics: didOpen not applied (%q, %v)", text, ok)
	}
	ed.WaitNotification("window/logMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), "panicked")
	})
	if code := ed.Shutdown(); code != 0 {
		t.Errorf("exit status = %d", code)
	}
}

func TestCustomMethodWithNullParams(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	got := make(chan json.RawMessage, 1)
	ed.Server().Handle("aide/planDocument", func(_ context.Context, params json.RawMessage) (any, error) {
		got <- params
		return map[string]any{"uri": "aide-plan:/s.md", "version": 1, "text": "# plan"}, nil
	})
	var res map[string]any
	if err := ed.Call("aide/planDocument", jsonrpc2.RawMessage("null"), &res); err != nil {
		t.Fatalf("custom request with params null: %v", err)
	}
	if p := <-got; p != nil {
		t.Errorf("params = %s, want nil for null", p)
	}
	if res["text"] != "# plan" {
		t.Errorf("result = %v", res)
	}
	if err := ed.Call("aide/planDocument", map[string]string{"uri": "aide-plan:/s.md"}, &res); err != nil {
		t.Fatal(err)
	}
	if p := <-got; !strings.Contains(string(p), "aide-plan:/s.md") {
		t.Errorf("params = %s", p)
	}
	var rpcErr *jsonrpc2.Error
	if err := ed.Call("aide/unknown", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
}

func TestMalformedFramesDoNotEndTheConnection(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":`, // cut JSON
		`not json at all`,
		`{"foo":1}`, // JSON, not JSON-RPC
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":42}}`, // bad params
		`{"jsonrpc":"2.0","id":99,"method":"textDocument/codeAction","params":[1,2]}`,
	} {
		if err := ed.WriteRaw(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)); err != nil {
			t.Fatal(err)
		}
	}
	barrier(t, ed)
	ed.WaitNotification("window/logMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), "malformed")
	})
	if code := ed.Shutdown(); code != 0 {
		t.Errorf("exit status = %d", code)
	}
}

func TestOversizedFrameRefusedWithoutAllocating(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	const size = lsp.MaxFrameBytes + 32<<20 // 96 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := ed.WriteRaw(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", size)); err != nil {
		t.Fatal(err)
	}
	if err := ed.WriteFrom(io.LimitReader(spaces{}, size)); err != nil {
		t.Fatal(err)
	}
	barrier(t, ed) // the connection is still usable
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d MiB while refusing a %d MiB frame", grew>>20, size>>20)
	}
	ed.WaitNotification("window/logMessage", func(m fakeeditor.Message) bool {
		return strings.Contains(string(m.Params), "oversized")
	})
}

// spaces is an endless reader of JSON whitespace.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestUnreadableHeaderEndsConnectionCleanly(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	if err := ed.WriteRaw([]byte("Content-Length: banana\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	if code := ed.Wait(); code != 1 {
		t.Errorf("exit status = %d, want 1 (no shutdown)", code)
	}
}
