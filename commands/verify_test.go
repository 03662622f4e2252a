package commands_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

const goMod = "module example.com/hello\n\ngo 1.21\n"

const buildConfig = `{"reviewPlan": false, "verify": [{"name": "build", "run": ["go", "build", "./..."]}]}`

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
}

// myScratchCopies lists this process's scratch folders still on disk.
func myScratchCopies(t *testing.T) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "aide-verify-*"))
	var mine []string
	for _, d := range m {
		if b, err := os.ReadFile(filepath.Join(d, "owner")); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
			mine = append(mine, d)
		}
	}
	return mine
}

// The editor's first answer does not compile (a real go build in the
// scratch copy of a tiny module); the compiler's message naming the line
// reaches its second call; the second answer compiles, and the user is
// offered only that one, marked as built.
func TestVerifyFeedsTheBuildErrorBackToTheEditor(t *testing.T) {
	needGo(t)
	e := newEnv(t, envOpts{
		files:       map[string]string{"go.mod": goMod, "main.go": mainGo},
		config:      buildConfig,
		separateEd:  true,
		archReplies: []modeltest.Reply{{Text: plan("1. In main.go, print \"hello, world\" instead of \"hello\".")}},
		edReplies: []modeltest.Reply{
			{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(greeting)")}},
			{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(\"hello, world\")")}},
		},
	})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})

	reqs := e.ed.Requests()
	if len(reqs) != 2 {
		t.Fatalf("editor calls = %d, want 2 (the broken answer, then the fixed one)", len(reqs))
	}
	first, second := userText(reqs[0]), userText(reqs[1])
	if strings.Contains(first, "broke the build") {
		t.Errorf("the first call already speaks of a failure:\n%s", first)
	}
	for _, want := range []string{"Your last answer broke the build", "NOT applied", "go build ./...", "main.go:6:", "undefined: greeting"} {
		if !strings.Contains(second, want) {
			t.Errorf("the second editor call lacks %q:\n%s", want, second)
		}
	}
	// Against the files as they are: the broken text was never applied.
	if !strings.Contains(second, "fmt.Println(\"hello\")") || strings.Contains(second, "Redo only these edits") {
		t.Errorf("the second call is not against the files as they are:\n%s", second)
	}

	if n := e.client.proposalCount(); n != 1 {
		t.Fatalf("proposals = %d, want only the one that builds", n)
	}
	p := e.client.proposals[0]
	if len(p.Hunks) != 1 || !strings.Contains(p.Hunks[0].NewText, "hello, world") || p.Hunks[0].ID != "h1" {
		t.Fatalf("proposed %+v, want the second answer alone as h1", p.Hunks)
	}
	if l := p.Labels[p.Hunks[0].ID]; !strings.Contains(l, "builds") {
		t.Errorf("the hunk is not marked as built: label %q", l)
	}
	vs := e.client.eventsNamed(commands.EvVerify)
	if len(vs) != 2 {
		t.Fatalf("verify events = %d, want 2", len(vs))
	}
	v1, v2 := vs[0].Data.(commands.VerifyData), vs[1].Data.(commands.VerifyData)
	if v1.OK || v1.Name != "build" || !strings.Contains(v1.Output, "main.go:6:") || !v2.OK {
		t.Errorf("verify events: %+v then %+v", v1, v2)
	}
	names := e.client.names()
	if indexOf(names, commands.EvVerify) > indexOf(names, commands.EvProposal) {
		t.Errorf("verify after the proposal: %v", names)
	}
	if len(e.client.eventsNamed(commands.EvFallback)) == 0 {
		t.Errorf("no fallback event says the candidate was discarded: %v", names)
	}
	doc, _ := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	for _, want := range []string{"## Verification", "- `build` (`go build ./...`): ok", "Passed after feedback"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the plan document lacks %q:\n%s", want, doc)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(e.root, "main.go")); string(got) != mainGo {
		t.Errorf("the user's file was written: %q", got)
	}
	if d := myScratchCopies(t); len(d) != 0 {
		t.Errorf("scratch copies outlived the session: %v", d)
	}
}

// When every answer fails, the budget (maxMistakes) ends the turn and the
// last candidate goes to the user with the failure attached.
func TestVerifyBudgetSpentProposesWithTheFailure(t *testing.T) {
	needGo(t)
	broken := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(greeting)")}}
	e := newEnv(t, envOpts{
		files:       map[string]string{"go.mod": goMod, "main.go": mainGo},
		config:      `{"reviewPlan": false, "maxMistakes": 2, "verify": [{"name": "build", "run": ["go", "build", "./..."]}]}`,
		separateEd:  true,
		archReplies: []modeltest.Reply{{Text: plan("1. In main.go, print a greeting.")}},
		edReplies:   []modeltest.Reply{broken, broken, broken},
	})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	if n := len(e.ed.Requests()); n != 2 {
		t.Fatalf("editor calls = %d, want maxMistakes = 2", n)
	}
	if e.client.proposalCount() != 1 {
		t.Fatalf("proposals = %d, want the last candidate", e.client.proposalCount())
	}
	p := e.client.proposals[0]
	if l := p.Labels[p.Hunks[0].ID]; !strings.Contains(l, "build failed") {
		t.Errorf("the hunk is not marked as failing: %q", l)
	}
	doc, _ := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	for _, want := range []string{"## Verification", "`build` (`go build ./...`): failed (exit status 1)", "Failed: the editor's answers failed verification 2 time(s)"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the plan document lacks %q:\n%s", want, doc)
		}
	}
	// The output is text the model's code wrote: never in the workspace's
	// files (the plan document, the session file).
	sessionFile, _ := os.ReadFile(filepath.Join(e.root, ".aide", "sessions", id+".jsonl"))
	for what, text := range map[string]string{"plan document": string(doc), "session file": string(sessionFile)} {
		if strings.Contains(text, "undefined: greeting") {
			t.Errorf("the %s holds the verification's output:\n%s", what, text)
		}
	}
}

type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progressLog) Report(m string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, m)
}

func (p *progressLog) has(m string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range p.msgs {
		if x == m {
			return true
		}
	}
	return false
}

// aide.cancel stops a verification command (the sandbox kills all it
// started) and the session ends cancelled, nothing proposed, no scratch
// copy left.
func TestCancelStopsVerification(t *testing.T) {
	cfg, _ := json.Marshal(map[string]any{"reviewPlan": false, "verify": []map[string]any{
		{"name": "hang", "run": []string{"sh", "-c", "sleep 300"}}}})
	e := newEnv(t, envOpts{
		files:       map[string]string{"main.go": mainGo},
		config:      string(cfg),
		archReplies: []modeltest.Reply{{Text: plan("1. Print hello, world.")}, {ToolCalls: []model.ToolCall{editCall("main.go", "fmt.Println(\"hello\")", "fmt.Println(\"hello, world\")")}}},
	})
	raw, _ := json.Marshal(map[string]any{"uri": e.uri("main.go"), "task": "greet"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	res, work, err := e.eng.Execute(ctx, commands.CmdArchitect, raw)
	if err != nil {
		t.Fatal(err)
	}
	id := sessionOf(t, res)
	prog := &progressLog{}
	done := make(chan error, 1)
	go func() { done <- work(ctx, prog) }()
	for {
		if prog.has("verifying: hang") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the verification command never started")
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
	if e.state(id) != commands.StateCancelled || e.client.proposalCount() != 0 {
		t.Fatalf("state %q, proposals %d", e.state(id), e.client.proposalCount())
	}
	if d := myScratchCopies(t); len(d) != 0 {
		t.Errorf("scratch copies outlived the cancel: %v", d)
	}
}
