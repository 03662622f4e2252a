package lsp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

func TestSessionEventAndMessage(t *testing.T) {
	ed := start(t, "vscode-1.96", newFakeEngine())
	ed.Server().SessionEvent(commands.Event{Session: "s1", Event: "plan", Time: time.Unix(0, 0),
		Data: commands.PlanData{Model: "m"}})
	ev := ed.WaitNotification("aide/sessionEvent", nil)
	var got map[string]any
	if err := json.Unmarshal(ev.Params, &got); err != nil || got["session"] != "s1" || got["event"] != "plan" || got["model"] != "m" {
		t.Errorf("aide/sessionEvent = %s (%v)", ev.Params, err)
	}
	ed.Server().Message("error", "model unreachable: set OPENAI_API_KEY")
	msg := ed.WaitNotification("window/showMessage", nil)
	if !strings.Contains(string(msg.Params), `"type":1`) || !strings.Contains(string(msg.Params), "OPENAI_API_KEY") {
		t.Errorf("showMessage = %s", msg.Params)
	}
}

func TestShowPlanPerClient(t *testing.T) {
	doc := commands.PlanDoc{Session: "s9", Path: "/work/.aide/plans/s9.md", Version: 1, Text: "# plan"}

	t.Run("vscode showDocument", func(t *testing.T) {
		ed := start(t, "vscode-1.96", newFakeEngine())
		ed.Server().ShowPlan(doc)
		req := ed.WaitRequest("window/showDocument", nil)
		if !strings.Contains(string(req.Params), "file:///work/.aide/plans/s9.md") {
			t.Errorf("showDocument = %s", req.Params)
		}
	})
	t.Run("helix by name", func(t *testing.T) {
		ed := start(t, "helix-25.1", newFakeEngine())
		ed.Server().ShowPlan(doc)
		ed.WaitRequest("window/showDocument", nil)
	})
	t.Run("neovim 0.7 message", func(t *testing.T) {
		ed := start(t, "neovim-0.7", newFakeEngine())
		ed.Server().ShowPlan(doc)
		msg := ed.WaitNotification("window/showMessage", nil)
		if !strings.Contains(string(msg.Params), doc.Path) {
			t.Errorf("showMessage = %s", msg.Params)
		}
		if n := len(ed.Requests("window/showDocument")); n != 0 {
			t.Errorf("sent showDocument to a client that does not support it")
		}
	})
	t.Run("virtual plan document", func(t *testing.T) {
		ed := fakeeditor.Start(t, fakeeditor.Options{
			Capabilities: func(c map[string]any) { c["experimental"] = map[string]any{"aidePlanDocument": true} },
		})
		ed.Server().ShowPlan(doc)
		doc.Version = 2
		ed.Server().PlanChanged(doc)
		n := ed.WaitNotification("aide/planDocumentChanged", func(m fakeeditor.Message) bool {
			return strings.Contains(string(m.Params), `"version":2`)
		})
		if !strings.Contains(string(n.Params), `"uri":"aide-plan:/s9.md"`) {
			t.Errorf("planDocumentChanged = %s", n.Params)
		}
		if len(ed.Requests("window/showDocument")) != 0 {
			t.Errorf("virtual-form client also got showDocument")
		}
	})
}

// proposal replaces "world" in a.go's open buffer.
func proposal(text string) commands.Proposal {
	start := strings.Index(text, "world")
	return commands.Proposal{Session: "s1", Task: "greet", Hunks: []editapply.Hunk{{
		ID: "h1", Path: "a.go", Kind: editapply.KindEdit, Start: start, End: start + len("world"),
		OldText: "world", NewText: "gophers", Summary: "a.go:1 replace 1 line",
	}}}
}

func TestProposeAppliesAnnotatedVersionedEdit(t *testing.T) {
	type outcome struct {
		res protocol.ApplyWorkspaceEditResult
		err error
	}
	results := make(chan outcome, 1)
	ed := fakeeditor.Start(t, fakeeditor.Options{Server: lsp.Options{
		OnApplyResult: func(_ commands.Proposal, res protocol.ApplyWorkspaceEditResult, err error) {
			results <- outcome{res, err}
		},
	}})
	const text = "package a // hello world\n"
	ed.Open("a.go", text)
	barrier(t, ed)
	ed.Server().Propose(context.Background(), proposal(text))
	if o := recv(t, results); o.err != nil || !o.res.Applied {
		t.Fatalf("applyEdit: %+v", o)
	}
	req := ed.WaitRequest("workspace/applyEdit", nil)
	var p protocol.ApplyWorkspaceEditParams
	if err := req.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.Label == nil || *p.Label != "AIDE: greet" || len(p.Edit.DocumentChanges) != 1 {
		t.Fatalf("applyEdit params = %s", req.Params)
	}
	tde, ok := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if !ok || tde.TextDocument.Version == nil || *tde.TextDocument.Version != 1 {
		t.Fatalf("want a TextDocumentEdit at version 1, got %s", req.Params)
	}
	if _, ok := tde.Edits[0].(*protocol.AnnotatedTextEdit); !ok {
		t.Errorf("VS Code gets AnnotatedTextEdits, got %T", tde.Edits[0])
	}
	if got := ed.Text("a.go"); got != "package a // hello gophers\n" {
		t.Errorf("editor text = %q", got)
	}
	barrier(t, ed)
	if got, v, _ := ed.Server().Documents().Buffer(ed.Abs("a.go")); got != "package a // hello gophers\n" || v != 2 {
		t.Errorf("server buffer = %q v%d, want the applied text at version 2", got, v)
	}
}

// TestReadLoopGuard: a Client method called while a notification is
// handled inline on the read loop is recorded (and the fake editor's
// cleanup fails every test that makes one); from a request it is not.
func TestReadLoopGuard(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{Server: lsp.Options{Engine: newFakeEngine()}})
	srv := ed.Server()
	ev := commands.Event{Session: "s1", Event: "plan", Time: time.Unix(0, 0), Data: commands.PlanData{}}
	srv.Handle("test/fromRequest", func(context.Context, json.RawMessage) (any, error) {
		srv.SessionEvent(ev)
		return true, nil
	})
	if err := ed.Call("test/fromRequest", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if v := srv.ReadLoopViolations(); len(v) != 0 {
		t.Fatalf("a request handler is off the read loop, got violations %v", v)
	}
	srv.Handle("test/onReadLoop", func(context.Context, json.RawMessage) (any, error) {
		srv.SessionEvent(ev)
		return nil, nil
	})
	if err := ed.Notify("test/onReadLoop", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	barrier(t, ed)
	v := srv.ReadLoopViolations()
	if len(v) != 1 || v[0] != "SessionEvent" {
		t.Fatalf("violations %v, want SessionEvent", v)
	}
	srv.ClearReadLoopViolations() // this one was made on purpose
}
