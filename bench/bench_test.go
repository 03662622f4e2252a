package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The scripted fake's model ids: named so that nobody mistakes them for a model.
const (
	fakeArchitect = "fake/scripted-architect"
	fakeEditor    = "fake/scripted-editor"
)

// scripted is one task's scripted answers, with the usage each one reports.
type scripted struct {
	replies []modeltest.Reply
}

// writeCalls are write_file tool calls carrying the reference solution.
func writeCalls(t *testing.T, task Task) []model.ToolCall {
	t.Helper()
	sol, err := task.Solution()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(sol))
	for n := range sol {
		names = append(names, n)
	}
	sort.Strings(names)
	var calls []model.ToolCall
	for i, n := range names {
		args, _ := json.Marshal(map[string]string{"path": n, "content": string(sol[n])})
		calls = append(calls, model.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: "write_file", Arguments: string(args)})
	}
	return calls
}

// script answers a task with its reference solution. With failFirst the
// editor's first answer is an edit whose old text is nowhere in the file,
// so the engine retries; with nothing the editor writes no edit at all.
func script(t *testing.T, task Task, mode Mode, failFirst, nothing bool, usage func() *model.Usage) []modeltest.Reply {
	var out []modeltest.Reply
	if mode == ModeTwoPass {
		plan := fmt.Sprintf("## Plan\n1. %s\n2. Change %s accordingly; leave the tests alone.\n## End Plan\n", task.Instruction, strings.Join(task.Files, " and "))
		out = append(out, modeltest.Reply{Text: plan, Usage: usage()})
	}
	switch {
	case nothing:
		out = append(out, modeltest.Reply{Text: "I see nothing to change.", Usage: usage()})
		return out
	case failFirst:
		args, _ := json.Marshal(map[string]string{"path": task.Files[0], "old_text": "this text is in no file of the task", "new_text": "x"})
		out = append(out, modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "call_bad", Name: "edit_file", Arguments: string(args)}}, Usage: usage()})
	}
	out = append(out, modeltest.Reply{ToolCalls: writeCalls(t, task), Usage: usage()})
	return out
}

type fakeRun struct {
	srv    *modeltest.Server
	report *Report
	usage  []model.Usage // every usage scripted, in order
}

// benchWithFake runs the harness on the named tasks of the repository suite
// against a wire-level OpenAI fake scripted with the reference solutions.
func benchWithFake(t *testing.T, tasks []string, modes []Mode, failFirst, nothing map[string]bool, opts func(*Options)) fakeRun {
	t.Helper()
	suite, err := LoadSuite(suiteDir, tasks)
	if err != nil {
		t.Fatal(err)
	}
	fr := fakeRun{}
	n := 0
	usage := func() *model.Usage {
		n++
		u := model.Usage{PromptTokens: 1000 + 7*n, CompletionTokens: 50 + 3*n}
		fr.usage = append(fr.usage, u)
		return &u
	}
	var replies []modeltest.Reply
	for _, m := range modes {
		for _, task := range suite.Tasks {
			replies = append(replies, script(t, task, m, failFirst[task.Name] && m == ModeTwoPass, nothing[task.Name], usage)...)
		}
	}
	fr.srv = modeltest.NewOpenAI(t, replies...)
	router := model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: "openai", BaseURL: fr.srv.BaseURL()}},
		model.Options{MaxRetries: -1, Timeout: 2 * time.Minute})
	cfg := config.Defaults()
	cfg.Prices = map[string]model.Price{fakeArchitect: {Input: 2, Output: 8}, fakeEditor: {Input: 0.5, Output: 1.5}}
	o := Options{Suite: suite, Modes: modes, Runs: 1, Config: cfg.Effective(), Model: router,
		ArchitectModel: fakeArchitect, EditorModel: fakeEditor, Version: "test", Keep: true, WorkDir: t.TempDir()}
	if opts != nil {
		opts(&o)
	}
	var progress bytes.Buffer
	o.Progress = &progress
	fr.report, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if left := fr.srv.Remaining(); left != 0 {
		t.Errorf("%d scripted replies were not asked for", left)
	}
	if got := strings.Count(progress.String(), "\n"); got != len(fr.report.Results) {
		t.Errorf("%d progress lines for %d runs:\n%s", got, len(fr.report.Results), progress.String())
	}
	return fr
}

// recount reads the session files of a kept copy with nothing but
// encoding/json: the events are counted a second way, apart from CountEvents.
func recount(t *testing.T, dir string) (passes, retries, prompt, completion int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, ".aide", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%s: %d session files, want 1", dir, len(files))
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var ev struct {
			Event            string `json:"event"`
			Kind             string `json:"kind"`
			PromptTokens     int    `json:"promptTokens"`
			CompletionTokens int    `json:"completionTokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(ev.Event, "_pass"):
			passes++
			prompt += ev.PromptTokens
			completion += ev.CompletionTokens
		case ev.Event == "fallback" && ev.Kind == "retry":
			retries++
		}
	}
	return
}

// The report's numbers add up: every row is the sum of its runs, every run
// is what its session file says, and the tokens are those the fake sent.
func TestReportNumbersAddUp(t *testing.T) {
	tasks := []string{"go-fix-pagination", "py-add-param-currency", "py-fix-chunks"}
	fr := benchWithFake(t, tasks, []Mode{ModeOneCall, ModeTwoPass},
		map[string]bool{"py-add-param-currency": true}, map[string]bool{"py-fix-chunks": true}, nil)
	rep := fr.report
	if rep.Source != SourceLive || len(rep.Results) != 6 || len(rep.Rows) != 2 {
		t.Fatalf("source %s, %d results, %d rows", rep.Source, len(rep.Results), len(rep.Rows))
	}

	// Each run against its own session file.
	var sumPrompt, sumCompletion, sumPasses int
	for _, r := range rep.Results {
		passes, retries, prompt, completion := recount(t, r.Workdir)
		c := r.Counts
		if passes != c.ArchitectPasses+c.EditorPasses || retries != c.Retries || prompt != c.PromptTokens || completion != c.CompletionTok {
			t.Errorf("%s %s: report says %d passes, %d retries, %d+%d tokens; the session file %d, %d, %d+%d",
				r.Mode, r.Task, c.ArchitectPasses+c.EditorPasses, c.Retries, c.PromptTokens, c.CompletionTok, passes, retries, prompt, completion)
		}
		sumPrompt += prompt
		sumCompletion += completion
		sumPasses += passes
		wantPass := r.Task != "py-fix-chunks" // the editor wrote nothing there
		if r.Passed != wantPass {
			t.Errorf("%s %s: passed=%v (%s), want %v", r.Mode, r.Task, r.Passed, r.Outcome(), wantPass)
		}
		if r.Task == "py-fix-chunks" && r.Outcome() != "no edits" {
			t.Errorf("py-fix-chunks %s: outcome %q, want no edits", r.Mode, r.Outcome())
		}
	}
	// ... against what the fake was asked and answered.
	var scriptedPrompt, scriptedCompletion int
	for _, u := range fr.usage {
		scriptedPrompt += u.PromptTokens
		scriptedCompletion += u.CompletionTokens
	}
	if sumPasses != len(fr.srv.Requests()) || sumPrompt != scriptedPrompt || sumCompletion != scriptedCompletion {
		t.Errorf("session files: %d passes, %d+%d tokens; the fake: %d requests, %d+%d tokens",
			sumPasses, sumPrompt, sumCompletion, len(fr.srv.Requests()), scriptedPrompt, scriptedCompletion)
	}

	// Rows against their runs.
	for _, row := range rep.Rows {
		var runs, passed, prompt, completion, retries, firstEdits, firstApplied int
		var cost float64
		for _, r := range rep.Results {
			if r.Mode != row.Mode {
				continue
			}
			runs++
			if r.Passed {
				passed++
			}
			prompt += r.Counts.PromptTokens
			completion += r.Counts.CompletionTok
			retries += r.Counts.Retries
			firstEdits += r.Counts.FirstTryEdits
			firstApplied += r.Counts.FirstTryApplied
			cost += r.CostUSD
		}
		if row.Runs != runs || row.Passed != passed || row.Counts.PromptTokens != prompt || row.Counts.CompletionTok != completion ||
			row.Counts.Retries != retries || row.Counts.FirstTryEdits != firstEdits || row.Counts.FirstTryApplied != firstApplied {
			t.Errorf("row %s does not add up: %+v", row.Mode, row)
		}
		if math.Abs(row.CostUSD-cost) > 1e-9 || !row.CostKnown {
			t.Errorf("row %s cost %v (known %v), runs sum to %v", row.Mode, row.CostUSD, row.CostKnown, cost)
		}
		if want := 100 * float64(passed) / float64(runs); math.Abs(row.PassRate-want) > 1e-9 {
			t.Errorf("row %s pass rate %v, want %v", row.Mode, row.PassRate, want)
		}
	}

	// What the script makes of each mode, by hand.
	one, two := rep.Rows[0], rep.Rows[1]
	if one.Mode != "one-call" || one.ArchitectModel != fakeArchitect || one.EditorModel != "" {
		t.Errorf("one-call row: %+v", one)
	}
	if two.Mode != "two-pass" || two.ArchitectModel != fakeArchitect || two.EditorModel != fakeEditor {
		t.Errorf("two-pass row: %+v", two)
	}
	if one.Passed != 2 || two.Passed != 2 {
		t.Errorf("passed %d and %d, want 2 and 2", one.Passed, two.Passed)
	}
	// Two-pass: 3 architect passes; editor passes 1 + 2 (retry) + 1.
	if two.Counts.ArchitectPasses != 3 || two.Counts.EditorPasses != 4 || two.Counts.Retries != 1 {
		t.Errorf("two-pass passes %d + %d, retries %d; want 3 + 4, 1", two.Counts.ArchitectPasses, two.Counts.EditorPasses, two.Counts.Retries)
	}
	// First tries: 1 write (pagination) + 1 failed edit (currency) of 2 edits written.
	if two.Counts.FirstTryEdits != 2 || two.Counts.FirstTryApplied != 1 || two.FirstTryRate != 50 {
		t.Errorf("two-pass first try %d/%d = %v%%, want 1/2", two.Counts.FirstTryApplied, two.Counts.FirstTryEdits, two.FirstTryRate)
	}
	if one.Counts.ArchitectPasses != 0 || one.Counts.EditorPasses != 3 || one.Counts.Retries != 0 || one.FirstTryRate != 100 {
		t.Errorf("one-call: %+v", one.Counts)
	}
	// The one-call mode runs the architect's model alone.
	for _, req := range fr.srv.Requests()[:3] {
		if req.Body["model"] != "scripted-architect" {
			t.Errorf("one-call request to %v, want the architect's model", req.Body["model"])
		}
	}
	// Prices by hand: architect 2/8, editor 0.5/1.5 USD per million.
	var wantCost float64
	i := 0
	for _, m := range []Mode{ModeOneCall, ModeTwoPass} {
		for _, task := range []string{"go-fix-pagination", "py-add-param-currency", "py-fix-chunks"} {
			calls := 1
			if task == "py-add-param-currency" && m == ModeTwoPass {
				calls = 2
			}
			if m == ModeTwoPass {
				u := fr.usage[i]
				wantCost += (float64(u.PromptTokens)*2 + float64(u.CompletionTokens)*8) / 1e6
				i++
			}
			for k := 0; k < calls; k++ {
				u := fr.usage[i]
				if m == ModeOneCall {
					wantCost += (float64(u.PromptTokens)*2 + float64(u.CompletionTokens)*8) / 1e6
				} else {
					wantCost += (float64(u.PromptTokens)*0.5 + float64(u.CompletionTokens)*1.5) / 1e6
				}
				i++
			}
		}
	}
	if got := one.CostUSD + two.CostUSD; math.Abs(got-wantCost) > 1e-9 {
		t.Errorf("cost %v, by hand %v", got, wantCost)
	}

	// The Markdown names what was measured and shows the rows.
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Source: live", "version `" + rep.Suite.Version + "`", fakeArchitect, fakeEditor,
		"| two-pass | fake/scripted-architect | fake/scripted-editor | 66.7% | 2/3 | 50.0% (1/2) | 1 |", "Runs:** 1 per task"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Rows) != 2 || back.Rows[1].Counts.Retries != 1 {
		t.Errorf("JSON report does not read back: %v", err)
	}
}

// A check that hangs (with a child holding its output open) is stopped, its
// whole process group killed, and the run counted as failed.
func TestHangingCheckIsStoppedAndFails(t *testing.T) {
	dir := t.TempDir()
	taskDir := filepath.Join(dir, "hang")
	if err := os.MkdirAll(filepath.Join(taskDir, "start"), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "grandchild.pid")
	task := map[string]any{"name": "hang", "language": "python", "kind": "fix", "instruction": "fix main.py",
		"files": []string{"main.py"}, "timeout": 1,
		"check": []string{"sh", "-c", "sleep 300 & echo $! > " + pidFile + "; wait"}}
	data, _ := json.Marshal(task)
	os.WriteFile(filepath.Join(taskDir, "task.json"), data, 0o644)
	os.WriteFile(filepath.Join(taskDir, "start", "main.py"), []byte("x = 1\n"), 0o644)
	os.WriteFile(filepath.Join(taskDir, "solution.txtar"), []byte("-- main.py --\nx = 2\n"), 0o644)
	suite, err := LoadSuite(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"path": "main.py", "content": "x = 2\n"})
	srv := modeltest.NewOpenAI(t, modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "c1", Name: "write_file", Arguments: string(args)}}})
	router := model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: "openai", BaseURL: srv.BaseURL()}}, model.Options{MaxRetries: -1})

	done := make(chan struct{})
	var rep *Report
	go func() {
		defer close(done)
		rep, err = Run(context.Background(), Options{Suite: suite, Modes: []Mode{ModeOneCall}, Runs: 1,
			Config: config.Defaults().Effective(), Model: router, ArchitectModel: fakeArchitect})
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // hang guard only
		t.Fatal("the bench did not stop the hanging check")
	}
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Passed || !r.CheckTimedOut || r.Outcome() != "timeout" || rep.Rows[0].Passed != 0 || rep.Rows[0].CheckTimeouts != 1 {
		t.Fatalf("a hanging check: passed=%v timedOut=%v outcome=%s row=%+v", r.Passed, r.CheckTimedOut, r.Outcome(), rep.Rows[0])
	}
	if !strings.Contains(r.CheckError, "did not finish in 1s") {
		t.Errorf("check error %q", r.CheckError)
	}
	// The background sleep was in the check's process group: it is gone too.
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(raw))
	deadline := time.Now().Add(30 * time.Second) // hang guard: the kill is immediate
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break // gone, or a zombie waiting for its reaper: not running
		}
		if time.Now().After(deadline) {
			t.Fatalf("the check's child %s still runs: %s", pid, stat)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A check whose program is missing would count every run as a failure of
// the model: the bench refuses to start instead, naming the program.
func TestMissingCheckToolIsRefused(t *testing.T) {
	dir := t.TempDir()
	taskDir := filepath.Join(dir, "needs-tool")
	os.MkdirAll(filepath.Join(taskDir, "start"), 0o755)
	data, _ := json.Marshal(map[string]any{"name": "needs-tool", "language": "typescript", "kind": "fix", "instruction": "fix it",
		"check": []string{"sh", "-c", "aide-no-such-compiler"}, "requires": []string{"aide-no-such-compiler"}})
	os.WriteFile(filepath.Join(taskDir, "task.json"), data, 0o644)
	os.WriteFile(filepath.Join(taskDir, "start", "a.ts"), []byte("export const a = 1;\n"), 0o644)
	suite, err := LoadSuite(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	router := model.NewRouter(nil, model.Options{})
	_, err = Run(context.Background(), Options{Suite: suite, Runs: 1, Config: config.Defaults().Effective(), Model: router, ArchitectModel: fakeArchitect})
	if err == nil || !strings.Contains(err.Error(), "aide-no-such-compiler, needed by needs-tool") {
		t.Fatalf("err %v", err)
	}
}

func TestLoadSuiteRefusesBadTasks(t *testing.T) {
	for name, body := range map[string]string{
		"escape":    `{"name":"escape","language":"go","kind":"fix","instruction":"i","files":["../x.go"],"check":["go"]}`,
		"wrongname": `{"name":"other","language":"go","kind":"fix","instruction":"i","check":["go"]}`,
		"nolang":    `{"name":"nolang","language":"rust","kind":"fix","instruction":"i","check":["cargo"]}`,
		"nocheck":   `{"name":"nocheck","language":"go","kind":"fix","instruction":"i","check":[]}`,
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, name, "start"), 0o755)
		os.WriteFile(filepath.Join(dir, name, "task.json"), []byte(body), 0o644)
		if _, err := LoadSuite(dir, nil); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestCheckEnvHasNoCredentials: a task's check runs the model's code, so its
// environment carries no provider key (by the configured variable, or by a
// secret's name) while the tools it needs stay reachable.
func TestCheckEnvHasNoCredentials(t *testing.T) {
	t.Setenv("MYCORP_LLM", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789")
	t.Setenv("OPENAI_API_KEY", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
	t.Setenv("PLAIN_SETTING", "kept")
	env := toolEnv(t.TempDir(), []string{"MYCORP_LLM"})
	seen := map[string]bool{}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		seen[name] = true
	}
	for _, gone := range []string{"MYCORP_LLM", "OPENAI_API_KEY"} {
		if seen[gone] {
			t.Errorf("%s reaches the check", gone)
		}
	}
	for _, kept := range []string{"PLAIN_SETTING", "PATH"} {
		if !seen[kept] {
			t.Errorf("%s does not reach the check", kept)
		}
	}
}
