package commands_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

func editCallStep(path, old, new string, step any) model.ToolCall {
	args, _ := json.Marshal(map[string]any{"path": path, "old_text": old, "new_text": new, "step": step})
	return model.ToolCall{ID: "call_" + old, Name: "edit_file", Arguments: string(args)}
}

func TestEachHunkNamesItsPlanStep(t *testing.T) {
	planReply := modeltest.Reply{Text: plan("1. Make a return 10.\n2. Make b return 20.\n3. Make c return 30.")}
	edits := modeltest.Reply{ToolCalls: []model.ToolCall{
		editCallStep("m.go", "return 1 }", "return 10 }", 1),
		editCallStep("./m.go", "return 3 }", "return 30 }", "step 3"),
		editCall("m.go", "package main\n", "// Package main is bigger.\npackage main\n"),
	}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": threeFuncs}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{planReply, edits}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger"})
	reqs := e.arch.Requests()
	if len(reqs) != 2 || !strings.Contains(mustJSON(reqs[1].Body["tools"]), `"step"`) {
		t.Fatalf("the editor's tools do not ask for the step: %s", mustJSON(reqs[1].Body["tools"]))
	}
	props := e.client.eventsNamed("proposal")
	if len(props) != 1 {
		t.Fatalf("proposal events %+v", props)
	}
	pd := props[0].Data.(commands.ProposalData)
	steps := map[string]string{}
	for _, h := range pd.Hunks {
		switch {
		case h.Step != nil:
			steps[h.Summary] = "step " + mustJSON(*h.Step)
		case h.NotInPlan:
			steps[h.Summary] = "not in the plan"
		}
	}
	want := map[string]string{"m.go:1 replace 1 line with 2": "not in the plan", "m.go:3 change 1 line": "step 1", "m.go:7 change 1 line": "step 3"}
	if mustJSON(steps) != mustJSON(want) {
		t.Errorf("hunk steps %v, want %v", steps, want)
	}
	if mustJSON(pd.StepsWithoutHunks) != "[2]" {
		t.Errorf("stepsWithoutHunks %v, want [2]", pd.StepsWithoutHunks)
	}
	// On the wire every hunk carries step, null when none.
	if line := mustJSON(props[0]); strings.Count(line, `"step":`) != 3 || !strings.Contains(line, `"step":null`) {
		t.Errorf("proposal event %s", line)
	}
	doc := e.planDoc(id)
	for _, w := range []string{"m.go:3 change 1 line — step 1 — pending", "— not in the plan — pending", "**Step with no change:** 2"} {
		if !strings.Contains(doc, w) {
			t.Errorf("plan document lacks %q:\n%s", w, doc)
		}
	}
	if p := e.client.proposals; len(p) != 1 || len(p[0].Labels) != 3 {
		t.Errorf("proposal labels %+v", p)
	}
}

// An editor that names no step at all: nothing is flagged.
func TestNoStepsNamedFlagsNothing(t *testing.T) {
	planReply := modeltest.Reply{Text: plan("1. Make a return 10.\n2. Make b return 20.")}
	edits := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }")}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": threeFuncs}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{planReply, edits}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger"})
	pd := e.client.eventsNamed("proposal")[0].Data.(commands.ProposalData)
	if pd.Hunks[0].NotInPlan || pd.Hunks[0].Step != nil || len(pd.StepsWithoutHunks) != 0 {
		t.Errorf("proposal %+v", pd)
	}
	if doc := e.planDoc(id); strings.Contains(doc, "not in the plan") || strings.Contains(doc, "with no change") {
		t.Errorf("untraced proposal flagged:\n%s", doc)
	}
}
