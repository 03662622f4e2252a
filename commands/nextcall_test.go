package commands_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

func TestTheNextCallIsPricedAndCanGoToAnotherModel(t *testing.T) {
	planReply := modeltest.Reply{Text: plan("1. In m.go make a return 10.")}
	edit := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }")}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": threeFuncs}, separateEd: true,
		config:      `{"prices": {"arch/big": {"input": 3, "output": 15}, "ed/small": {"input": 1, "output": 2}}}`,
		archReplies: []modeltest.Reply{planReply, edit, planReply}, edReplies: []modeltest.Reply{edit}})
	hist, err := estimate.Open(filepath.Join(t.TempDir(), "state", "history.json"), e.root)
	if err != nil {
		t.Fatal(err)
	}
	e.eng, err = commands.NewEngine(commands.Options{Workspace: e.ws, Config: e.cfg, Model: e.router, Meter: e.meter, Client: e.client, History: hist})
	if err != nil {
		t.Fatal(err)
	}
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger"})
	doc := e.planDoc(id)
	for _, want := range []string{
		"**Editor call (estimate):** `ed/small`: ~",
		"prompt tokens (estimated), completion and time: no history yet for this model, ≥ $0.",
		"- `arch/big`: ~",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the waiting plan document lacks %q:\n%s", want, doc)
		}
	}
	if v, _ := e.eng.View(id); len(v.ApproveWith) != 1 || v.ApproveWith[0] != "arch/big" {
		t.Errorf("ApproveWith = %v, want [arch/big]", v.ApproveWith)
	}
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id, "editorModel": "not a model"}); err == nil {
		t.Error("approve with a malformed model id was accepted")
	}
	// Approve with the architect's model: the editor call goes to it.
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id, "editorModel": "arch/big"}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.arch.Requests()); n != 2 || len(e.ed.Requests()) != 0 {
		t.Fatalf("architect fake %d calls, editor fake %d; want the editor call on arch/big", n, len(e.ed.Requests()))
	}
	doc = e.planDoc(id)
	if strings.Contains(doc, "(estimate):") {
		t.Error("the estimate is still shown after approval")
	}
	if !strings.Contains(doc, "Editor call arch/big: estimated ~") || !strings.Contains(doc, "; actual ") {
		t.Errorf("the cost section does not show the estimate against the actual use:\n%s", doc)
	}
	if calls := hist.Calls("arch/big"); len(calls) != 1 || calls[0].CompletionTokens == 0 {
		t.Errorf("history of arch/big: %+v", calls)
	}
	// The next plan's estimate for that model comes from the history.
	id2 := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger", "editorModel": "arch/big"})
	if doc := e.planDoc(id2); !strings.Contains(doc, "(median of 1 past call), ~$") {
		t.Errorf("the second estimate does not use the history:\n%s", doc)
	}
}
