package e2e

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestHelixWorkspaceCommandWithoutArguments: Helix's :lsp-workspace-command
// sends workspace/executeCommand with no "arguments". aide.sessions and
// aide.cost answer; every other command refuses with a message naming the
// argument it needs, and the server keeps serving.
func TestHelixWorkspaceCommandWithoutArguments(t *testing.T) {
	const profile = "helix-25.1"
	e := start(t, profile, envOptions{})
	for _, command := range commands.AllCommands {
		res, _, err := e.ed.ExecuteCommand(command, nil) // nil: no "arguments" member
		switch command {
		case commands.CmdSessions:
			var r struct {
				Sessions *[]json.RawMessage `json:"sessions"`
			}
			if err != nil || json.Unmarshal(res, &r) != nil || r.Sessions == nil {
				t.Errorf("%s without arguments: %s, %v; want {sessions: []}", command, res, err)
			}
		case commands.CmdCost:
			var r struct {
				Rows *[]json.RawMessage `json:"rows"`
			}
			if err != nil || json.Unmarshal(res, &r) != nil || r.Rows == nil {
				t.Errorf("%s without arguments: %s, %v; want {rows: [], total}", command, res, err)
			}
		default:
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) {
				t.Errorf("%s without arguments: got %s, %v; want a refusal", command, res, err)
				continue
			}
			want := "{session"
			if command == commands.CmdArchitect || command == commands.CmdEdit {
				want = "{uri"
			}
			if !strings.Contains(rpcErr.Message, command+" needs one argument") || !strings.Contains(rpcErr.Message, want) {
				t.Errorf("%s without arguments: refusal %q does not say it needs %s", command, rpcErr.Message, want)
			}
		}
	}
	// Still serving after the refusals.
	if _, _, err := e.ed.ExecuteCommand(commands.CmdSessions, nil); err != nil {
		t.Errorf("aide.sessions after the refusals: %v", err)
	}
}

// hellòGo has a non-ASCII line before the hunk and non-ASCII text before
// the hunk on its own line: a column counted in UTF-16 or runes instead of
// bytes lands elsewhere in Helix, which negotiates utf-8.
const hellòGo = "package main\n\n// Grüße, 世界 — the greeting.\nfunc hola() string { return \"¡olé! \" + \"hi\" }\n"

// utf8Slice is the text a range covers, its columns read as UTF-8 bytes.
func utf8Slice(t *testing.T, text string, r protocol.Range) string {
	t.Helper()
	offset := func(p protocol.Position) int {
		lines := strings.SplitAfter(text, "\n")
		if int(p.Line) >= len(lines) {
			return len(text)
		}
		n := 0
		for _, l := range lines[:p.Line] {
			n += len(l)
		}
		if int(p.Character) > len(lines[p.Line]) {
			t.Fatalf("column %d is past line %d (%q)", p.Character, p.Line, lines[p.Line])
		}
		return n + int(p.Character)
	}
	return text[offset(r.Start):offset(r.End)]
}

// TestHelixReplay replays Helix 25.x against the real server and checks
// what Helix depends on: utf-8 positions, versioned accept edits that Helix
// refuses when stale (nothing applied, the hunk offered again), actions
// that need no resolve, no showMessageRequest (MethodNotFound in Helix), a
// prompt executeCommand reply, a null configuration answer taken quietly,
// and the plan shown by file:// URI.
func TestHelixReplay(t *testing.T) {
	const profile = "helix-25.1"
	const want = "package main\n\n// Grüße, 世界 — the greeting.\nfunc hola() string { return \"¡olé! \" + \"hello\" }\n"
	e := start(t, profile, envOptions{replies: replies(editCall("hola.go", "\"hi\" }", "\"hello\" }"))})
	write(t, filepath.Join(e.root, "hola.go"), hellòGo)
	e.ed.Open("hola.go", hellòGo)

	caps, _ := e.ed.InitializeResult()["capabilities"].(map[string]any)
	if enc := caps["positionEncoding"]; enc != "utf-8" {
		t.Errorf("positionEncoding %v, want utf-8 (Helix offers it first)", enc)
	}
	if cap, ok := caps["codeActionProvider"].(map[string]any); ok && cap["resolveProvider"] != false {
		t.Errorf("codeActionProvider.resolveProvider = %v, want false (every action is complete)", cap["resolveProvider"])
	}

	// The configuration answer [null] (the fake answers null for every
	// section) is taken without a failure or a problem message.
	e.ed.WaitRequest("workspace/configuration", nil)

	session := e.toPlan(profile)
	show := e.ed.Requests("window/showDocument")
	var shown struct {
		URI string `json:"uri"`
	}
	if len(show) == 0 || show[0].Decode(&shown) != nil || shown.URI != e.ed.URI(e.planPath(session)) {
		t.Errorf("showDocument %v, want the file:// URI %s", show, e.ed.URI(e.planPath(session)))
	}
	e.approveInPlanFile(session, nil)

	var diags []fakeeditor.Diagnostic
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if diags = e.ed.Diagnostics("hola.go"); len(diags) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hola.go diagnostics %+v, want the one proposal", diags)
		}
	}
	if got := utf8Slice(t, hellòGo, diags[0].Range); !strings.Contains(got, `"hi"`) || strings.Contains(got, "¡") {
		t.Errorf("the proposal diagnostic covers %q in utf-8 columns, want the hunk after the non-ASCII text", got)
	}
	hunk := hunkOf(diags[0])
	actions, err := e.ed.CodeActions("hola.go", diags[0].Range)
	if err != nil {
		t.Fatal(err)
	}
	checkComplete(t, actions)
	accept, ok := fakeeditor.FindAction(actions, "AIDE: Accept "+hunk)
	if !ok {
		t.Fatalf("no accept action for %s among %v", hunk, titles(actions))
	}
	_, openVersion, _ := e.ed.Doc("hola.go")
	edit := acceptEdit(t, accept)
	if edit.TextDocument.Version == nil || *edit.TextDocument.Version != openVersion {
		t.Errorf("the accept edit names version %v, want the open version %d", edit.TextDocument.Version, openVersion)
	}
	// The edit's columns, read as UTF-8 bytes, fall inside `"hi" }`.
	hiStart := strings.Index(hellòGo, `"hi" }`)
	for _, el := range edit.Edits {
		te, ok := el.(*protocol.TextEdit)
		if !ok {
			t.Fatalf("the accept edit holds %T, want plain TextEdits", el)
		}
		got := utf8Slice(t, hellòGo, te.Range)
		start := strings.Index(hellòGo[hiStart:], got)
		if te.Range.Start.Line != 3 || start < 0 || start+len(got) > len(`"hi" }`) {
			t.Errorf("the accept edit replaces %q at %+v, which is not inside %q in utf-8 columns", got, te.Range, `"hi" }`)
		}
	}

	// The user types elsewhere; the action's edit is now stale. Helix
	// refuses a stale versioned edit: nothing is applied.
	e.ed.Change("hola.go", fakeeditor.Edit{Range: e.ed.Range("hola.go", 0, 0), Text: "// typed\n"})
	typed := "// typed\n" + hellòGo
	var we protocol.WorkspaceEdit
	if err := protocol.Unmarshal(accept.Edit, &we); err != nil {
		t.Fatal(err)
	}
	if res := e.ed.ApplyWorkspaceEdit(we); res.Applied {
		t.Errorf("Helix applied an edit of a stale version")
	}
	if got := e.ed.Text("hola.go"); got != typed {
		t.Errorf("after the stale edit hola.go is:\n%s\nwant only the user's typing:\n%s", got, typed)
	}
	// The hunk is offered again, at the new version and line.
	var again fakeeditor.CodeAction
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		d := e.ed.Diagnostics("hola.go")
		if len(d) == 1 && hunkOf(d[0]) == hunk && d[0].Range.Start.Line == diags[0].Range.Start.Line+1 {
			actions, err := e.ed.CodeActions("hola.go", d[0].Range)
			if err != nil {
				t.Fatal(err)
			}
			checkComplete(t, actions)
			if again, ok = fakeeditor.FindAction(actions, "AIDE: Accept "+hunk); ok {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hunk %s was not offered again; diagnostics %+v", hunk, d)
		}
	}
	_, openVersion, _ = e.ed.Doc("hola.go")
	if v := acceptEdit(t, again).TextDocument.Version; v == nil || *v != openVersion {
		t.Errorf("the re-offered accept edit names version %v, want %d", v, openVersion)
	}
	if _, err := e.ed.Pick(again); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(hangGuard); !slices.Contains(e.hunksOf(session, "accepted"), hunk); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("hunk %s was not accepted; events %v", hunk, eventNames(e.events(session)))
		}
	}
	if got := e.ed.Text("hola.go"); got != "// typed\n"+want {
		t.Errorf("hola.go after accepting:\n%s\nwant:\n%s", got, "// typed\n"+want)
	}

	// A command replies at once although the model stalls.
	e.model.Script(modeltest.Reply{Text: planText, Stall: 10 * time.Minute})
	res, _, err := e.ed.ExecuteCommand(commands.CmdArchitect, map[string]any{"uri": e.ed.URI("main.go"), "task": "anything"})
	if err != nil {
		t.Fatalf("aide.architect while the model stalls: %v", err)
	}
	var stalled struct{ Session string }
	if json.Unmarshal(res, &stalled) != nil || stalled.Session == "" {
		t.Fatalf("aide.architect answered %s", res)
	}
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if v := e.sessionState(stalled.Session); v == string(commands.StatePlanning) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the stalled session is %q, want it still planning after the reply", v)
		}
	}
	if _, _, err := e.ed.ExecuteCommand(commands.CmdCancel, map[string]any{"session": stalled.Session}); err != nil {
		t.Errorf("aide.cancel: %v", err)
	}
	e.waitEvent(stalled.Session, "cancelled")

	if n := len(e.ed.Requests("window/showMessageRequest")); n != 0 {
		t.Errorf("Helix was sent %d window/showMessageRequest (MethodNotFound there)", n)
	}
	for _, m := range e.ed.Notifications("window/showMessage") {
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		_ = m.Decode(&p)
		if p.Type <= 2 || strings.Contains(p.Message, "configuration") {
			t.Errorf("Helix was shown a problem: %q", p.Message)
		}
	}
}

// checkComplete: every action carries a command or an edit, so Helix
// needs no codeAction/resolve.
func checkComplete(t *testing.T, actions []fakeeditor.CodeAction) {
	t.Helper()
	for _, a := range actions {
		if a.Command == nil && (len(a.Edit) == 0 || string(a.Edit) == "null") {
			t.Errorf("action %q has neither a command nor an edit", a.Title)
		}
	}
}

// acceptEdit is the one versioned TextDocumentEdit of an accept action.
func acceptEdit(t *testing.T, a fakeeditor.CodeAction) protocol.TextDocumentEdit {
	t.Helper()
	var we protocol.WorkspaceEdit
	if err := protocol.Unmarshal(a.Edit, &we); err != nil {
		t.Fatalf("the edit of %q: %v", a.Title, err)
	}
	if len(we.Changes) != 0 || len(we.DocumentChanges) != 1 {
		t.Fatalf("the edit of %q is not one versioned documentChange: %s", a.Title, a.Edit)
	}
	te, ok := we.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if !ok {
		t.Fatalf("the edit of %q is not a TextDocumentEdit: %s", a.Title, a.Edit)
	}
	return *te
}

// sessionState is a session's state as aide.sessions lists it.
func (e *env) sessionState(session string) string {
	e.t.Helper()
	res, _, err := e.ed.ExecuteCommand(commands.CmdSessions, nil)
	if err != nil {
		e.t.Fatalf("aide.sessions: %v", err)
	}
	var r struct {
		Sessions []struct{ Session, State string }
	}
	if err := json.Unmarshal(res, &r); err != nil {
		e.t.Fatalf("aide.sessions answered %s: %v", res, err)
	}
	for _, s := range r.Sessions {
		if s.Session == session {
			return s.State
		}
	}
	return ""
}
