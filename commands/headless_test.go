package commands_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// commentedGo holds the task as an AI comment above main.
const commentedGo = "package main\n\nimport \"fmt\"\n\n// AI: say hello to the world\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"

func greetPlanAndEdit() []modeltest.Reply {
	return []modeltest.Reply{
		{Text: plan("1. In `main.go`, print \"hello, world\".")},
		{ToolCalls: []model.ToolCall{editCall("main.go", `fmt.Println("hello")`, `fmt.Println("hello, world")`)}},
	}
}

func (e *env) headless(o commands.HeadlessOptions) (commands.HeadlessResult, error) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	e.headlessEngine(&o)
	return commands.RunHeadless(ctx, o)
}

// headlessEngine gives o an engine of its own on the env's workspace, with
// the headless client (app.Open wires the same in production).
func (e *env) headlessEngine(o *commands.HeadlessOptions) {
	e.t.Helper()
	o.Client = commands.NewHeadlessClient(e.ws, e.client)
	eng, err := commands.NewEngine(commands.Options{Workspace: e.ws, Config: e.cfg, Model: e.router, Client: o.Client})
	if err != nil {
		e.t.Fatal(err)
	}
	o.Engine = eng
}

func (e *env) read(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

func TestHeadlessAppliesAndRemovesTheAIComment(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": commentedGo, "util.go": "package main\n"},
		archReplies: greetPlanAndEdit()})
	// The comment's file is the second focus file: it is found there all the same.
	res, err := e.headless(commands.HeadlessOptions{Files: []string{"util.go", "main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" || !res.Proposed || !res.AIComment {
		t.Fatalf("problem %q, proposed %v, aiComment %v", res.Problem, res.Proposed, res.AIComment)
	}
	want := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"
	if got := e.read("main.go"); got != want {
		t.Fatalf("main.go after apply:\n%s\nwant:\n%s", got, want)
	}
	if res.View.Task != "say hello to the world" || strings.Join(res.Applied, ",") != "main.go" || res.View.State != commands.StateDone {
		t.Fatalf("task %q, applied %v, state %q", res.View.Task, res.Applied, res.View.State)
	}
	if !strings.Contains(res.View.Diff, "-// AI: say hello to the world\n") || !strings.Contains(res.View.Diff, "+\tfmt.Println(\"hello, world\")") {
		t.Fatalf("the diff lacks the comment's removal or the change:\n%s", res.View.Diff)
	}
	if len(res.View.Hunks) != 2 {
		t.Fatalf("hunks = %+v, want the change and the comment's removal", res.View.Hunks)
	}
	for _, h := range res.View.Hunks {
		if h.Status != "accepted" {
			t.Errorf("hunk %s (%s) is %s, want accepted", h.Hunk.ID, h.Hunk.Summary, h.Status)
		}
	}
	if !strings.Contains(res.View.Hunks[1].Hunk.Summary, "remove the AI comment") {
		t.Errorf("second hunk = %q, want the comment's removal", res.View.Hunks[1].Hunk.Summary)
	}
	var aiProposals int
	for _, ev := range e.client.eventsNamed("proposal") {
		if ev.Data.(commands.ProposalData).AIComment {
			aiProposals++
		}
	}
	if aiProposals != 1 {
		t.Fatalf("events %v: want one proposal event for the comment", e.client.names())
	}
	// The plan document shows the same diff the caller printed.
	if doc := res.View.PlanDoc.Text; !strings.Contains(doc, "-// AI: say hello to the world") {
		t.Errorf("the plan document's diff lacks the comment's removal:\n%s", doc)
	}
}

func TestHeadlessWithoutApplyProposesTheRemovalAndWritesNothing(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": commentedGo}, archReplies: greetPlanAndEdit()})
	res, err := e.headless(commands.HeadlessOptions{Files: []string{"main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" || !res.AIComment || len(res.Applied) != 0 || res.View.State != commands.StateProposed {
		t.Fatalf("problem %q, aiComment %v, applied %v, state %q", res.Problem, res.AIComment, res.Applied, res.View.State)
	}
	if !strings.Contains(res.View.Diff, "-// AI: say hello to the world\n") {
		t.Fatalf("the diff lacks the comment's removal:\n%s", res.View.Diff)
	}
	if got := e.read("main.go"); got != commentedGo {
		t.Fatalf("without Apply main.go changed:\n%s", got)
	}
}

func TestHeadlessKeepsTheCommentWhenTheEditTouchedIt(t *testing.T) {
	// The model rewrote the comment itself: no second hunk over the same lines.
	e := newEnv(t, envOpts{files: map[string]string{"main.go": commentedGo}, archReplies: []modeltest.Reply{
		{Text: plan("1. In `main.go`, print \"hello, world\" and document main.")},
		{ToolCalls: []model.ToolCall{editCall("main.go",
			"// AI: say hello to the world\nfunc main() {\n\tfmt.Println(\"hello\")",
			"// main greets the world.\nfunc main() {\n\tfmt.Println(\"hello, world\")")}},
	}})
	res, err := e.headless(commands.HeadlessOptions{Files: []string{"main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" || res.AIComment || len(res.View.Hunks) != 1 {
		t.Fatalf("problem %q, aiComment %v, hunks %+v", res.Problem, res.AIComment, res.View.Hunks)
	}
	want := "package main\n\nimport \"fmt\"\n\n// main greets the world.\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"
	if got := e.read("main.go"); got != want {
		t.Fatalf("main.go:\n%s\nwant:\n%s", got, want)
	}
}

func TestHeadlessGivenTaskLeavesAIComments(t *testing.T) {
	// The task was typed, not taken from the comment (even the same words):
	// the comment is the user's and stays.
	e := newEnv(t, envOpts{files: map[string]string{"main.go": commentedGo}, archReplies: greetPlanAndEdit()})
	res, err := e.headless(commands.HeadlessOptions{Task: "say hello to the world", Files: []string{"main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" || res.AIComment || !strings.Contains(e.read("main.go"), "// AI: say hello to the world\n") {
		t.Fatalf("problem %q, aiComment %v, main.go:\n%s", res.Problem, res.AIComment, e.read("main.go"))
	}
}

func TestHeadlessPlanOnly(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}, archReplies: greetPlanAndEdit()[:1]})
	res, err := e.headless(commands.HeadlessOptions{Task: "greet the world", Files: []string{"main.go"}, PlanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" || res.Proposed || !strings.Contains(res.View.Plan.Text, "hello, world") || len(e.arch.Requests()) != 1 {
		t.Fatalf("problem %q, proposed %v, plan %q, %d model calls", res.Problem, res.Proposed, res.View.Plan.Text, len(e.arch.Requests()))
	}
	if _, err := e.headless(commands.HeadlessOptions{Task: "x", PlanOnly: true, Apply: true}); !errors.Is(err, commands.ErrPlanOnlyApply) {
		t.Fatalf("plan-only with apply: err %v", err)
	}
}

func TestHeadlessProblems(t *testing.T) {
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo}})

	if _, err := e.headless(commands.HeadlessOptions{Files: []string{"main.go"}}); !errors.Is(err, commands.ErrNoTask) {
		t.Fatalf("no task and no AI comment: err %v", err)
	}
	if _, err := e.headless(commands.HeadlessOptions{Task: "x", Files: []string{"../outside.go"}}); err == nil {
		t.Fatal("a focus file outside the workspace was taken")
	}

	// The provider refuses the key: a failure the caller reports, nothing written.
	e.arch.Script(modeltest.Reply{Status: 401})
	res, err := e.headless(commands.HeadlessOptions{Task: "greet the world", Files: []string{"main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem == "" || res.Reason == "" || res.Proposed || res.View.State != commands.StateFailed {
		t.Fatalf("after a 401: problem %q, reason %q, state %q", res.Problem, res.Reason, res.View.State)
	}

	// A plan, then an editor that answers without a single edit.
	e.arch.Script(modeltest.Reply{Text: plan("1. Print hello, world.")}, modeltest.Reply{Text: "Nothing to change."})
	res, err = e.headless(commands.HeadlessOptions{Task: "greet the world", Files: []string{"main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Problem, "no usable edits: ") || len(res.Applied) != 0 {
		t.Fatalf("no edits: problem %q, applied %v", res.Problem, res.Applied)
	}
	if got := e.read("main.go"); got != mainGo {
		t.Fatalf("main.go changed:\n%s", got)
	}

	// Interrupted before it starts: nothing applied.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.arch.Script(greetPlanAndEdit()...)
	o := commands.HeadlessOptions{Task: "greet the world", Files: []string{"main.go"}, Apply: true}
	e.headlessEngine(&o)
	res, err = commands.RunHeadless(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Problem != "interrupted" || len(res.Applied) != 0 || e.read("main.go") != mainGo {
		t.Fatalf("cancelled: interrupted %v, problem %q, applied %v", res.Interrupted, res.Problem, res.Applied)
	}
}
