package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

const runMainGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"

// runFolder makes a temp workspace and a user config (in a temporary
// XDG_CONFIG_HOME, where a careful user puts providers) pointing the models
// at a wire-level fake.
func runFolder(t *testing.T, replies ...modeltest.Reply) (string, *modeltest.Server) {
	t.Helper()
	t.Setenv("AIDE_ARCHITECT_MODEL", "")
	t.Setenv("AIDE_EDITOR_MODEL", "")
	srv := modeltest.NewOpenAI(t, replies...)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(runMainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	withUserConfig(t, map[string]any{
		"architectModel": "fake/big", "editorModel": "fake/small",
		"providers": map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": srv.BaseURL()}},
	})
	return dir, srv
}

// withUserConfig points XDG_CONFIG_HOME and XDG_STATE_HOME at fresh
// folders and writes cfg as the user's config.json; it returns the file.
func withUserConfig(t *testing.T, cfg any) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	p := filepath.Join(home, "config", "aide-lsp", "config.json")
	if cfg == nil {
		return p
	}
	raw, ok := cfg.(string)
	if !ok {
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func greetReplies() []modeltest.Reply {
	args, _ := json.Marshal(map[string]string{"path": "main.go", "old_text": "fmt.Println(\"hello\")", "new_text": "fmt.Println(\"hello, world\")"})
	return []modeltest.Reply{
		{Text: "## Plan\n1. In `main.go`, print \"hello, world\" instead of \"hello\".\n## End Plan\n"},
		{ToolCalls: []model.ToolCall{{ID: "c1", Name: "edit_file", Arguments: string(args)}}},
	}
}

func TestRunPrintsPlanAndDiff(t *testing.T) {
	dir, srv := runFolder(t, greetReplies()...)
	var out, errb bytes.Buffer
	code := runRun([]string{"--dir", dir, "--file", "main.go", "greet the world"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"## Plan", "hello, world", "--- a/main.go", "+++ b/main.go", "-\tfmt.Println(\"hello\")", "+\tfmt.Println(\"hello, world\")"} {
		if !strings.Contains(s, want) {
			t.Errorf("stdout lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(errb.String(), "aide: architect fake/big") {
		t.Errorf("no progress on stderr:\n%s", errb.String())
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("model calls = %d, want 2", n)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != runMainGo {
		t.Fatal("run without --apply changed the file")
	}
}

// TestRunRecordsTheEditorCall: the editor call of a run is kept in the
// user's call history, which the editor's estimates read ("no history
// yet" until some call is there).
func TestRunRecordsTheEditorCall(t *testing.T) {
	dir, _ := runFolder(t, greetReplies()...)
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "greet the world"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	hist, err := estimate.OpenDefault(os.Getenv, dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(hist.Calls("fake/small")); n != 1 {
		t.Errorf("history of the editor model has %d calls, want 1 (file %s)", n, hist.Path())
	}
	if n := len(hist.Calls("fake/big")); n != 0 {
		t.Errorf("the architect's call was recorded as an editor call (%d)", n)
	}
}

func TestRunJSONAndApply(t *testing.T) {
	dir, _ := runFolder(t, greetReplies()...)
	var out, errb bytes.Buffer
	code := runRun([]string{"--dir", dir, "--json", "--apply", "greet the world"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	var res struct {
		State     string
		Plan      string
		Proposals []struct{ ID, Path, Status string }
		Diff      string
		Usage     struct {
			Rows []model.CostRow
		}
		Events  []map[string]any
		Applied []string
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
	}
	if res.Plan == "" || len(res.Proposals) != 1 || res.Proposals[0].Status != "accepted" || !strings.Contains(res.Diff, "+++ b/main.go") {
		t.Fatalf("result = %+v", res)
	}
	if len(res.Usage.Rows) != 2 || res.State != "done" || len(res.Applied) != 1 {
		t.Fatalf("usage rows %d, state %q, applied %v", len(res.Usage.Rows), res.State, res.Applied)
	}
	var names []string
	for _, e := range res.Events {
		names = append(names, e["event"].(string))
	}
	if strings.Join(names, " ") != "architect_pass plan editor_pass proposal accepted done" {
		t.Errorf("events = %v", names)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.Contains(string(data), "fmt.Println(\"hello, world\")") {
		t.Fatalf("--apply did not write the edit:\n%s", data)
	}
}

func TestRunPlanOnlyAndErrors(t *testing.T) {
	dir, srv := runFolder(t, greetReplies()[0])
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "--plan-only", "greet the world"}, &out, &errb); code != exitOK {
		t.Fatalf("--plan-only exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "## Plan") || strings.Contains(out.String(), "+++") || len(srv.Requests()) != 1 {
		t.Fatalf("--plan-only printed %q after %d calls", out.String(), len(srv.Requests()))
	}

	out.Reset()
	errb.Reset()
	if code := runRun([]string{"--dir", dir}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "no task") {
		t.Fatalf("no task: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := runRun([]string{"--dir", dir, "--architect-model", "nomodel", "x"}, &out, &errb); code != exitUsage {
		t.Fatalf("bad model id: exit %d, stderr %q", code, errb.String())
	}

	// The provider refuses the key: the work fails, exit 1, one clear line.
	srv.Script(modeltest.Reply{Status: 401})
	errb.Reset()
	code := runRun([]string{"--dir", dir, "greet the world"}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	last := lines[len(lines)-1]
	if code != exitFailed || !strings.HasPrefix(last, "aide-lsp run: ") {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}

	out.Reset()
	if code := runRun([]string{"-h"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "Examples:") {
		t.Fatalf("-h: exit %d\n%s", code, out.String())
	}
}

// runCommentedGo is runMainGo with the task as an AI comment above main.
const runCommentedGo = "package main\n\nimport \"fmt\"\n\n// AI: greet the world\n//   and nobody else\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"

func TestRunApplyRemovesTheAIComment(t *testing.T) {
	dir, _ := runFolder(t, greetReplies()...)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(runCommentedGo), 0o644)
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "--file", "main.go", "--apply"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	// The whole comment block goes, as its own hunk in the printed diff.
	s := out.String()
	for _, want := range []string{"-// AI: greet the world\n", "-//   and nobody else\n", "+\tfmt.Println(\"hello, world\")"} {
		if !strings.Contains(s, want) {
			t.Errorf("stdout lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(errb.String(), "remove the AI comment") || !strings.Contains(errb.String(), "aide: wrote main.go") {
		t.Errorf("stderr:\n%s", errb.String())
	}
	want := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != want {
		t.Fatalf("main.go:\n%s\nwant:\n%s", data, want)
	}
}

func TestRunJSONApplyRemovesTheAIComment(t *testing.T) {
	dir, _ := runFolder(t, greetReplies()...)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(runCommentedGo), 0o644)
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "--file", "main.go", "--apply", "--json"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	var res struct {
		State     string
		Proposals []struct{ ID, Path, Summary, Status string }
		Diff      string
		Events    []map[string]any
		Applied   []string
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
	}
	if res.State != "done" || len(res.Proposals) != 2 || strings.Join(res.Applied, ",") != "main.go" {
		t.Fatalf("result = %+v", res)
	}
	if p := res.Proposals[1]; p.Path != "main.go" || p.Status != "accepted" || !strings.Contains(p.Summary, "remove the AI comment") {
		t.Fatalf("comment proposal = %+v", p)
	}
	if !strings.Contains(res.Diff, "-// AI: greet the world\n") {
		t.Fatalf("diff lacks the comment's removal:\n%s", res.Diff)
	}
	var names []string
	for _, e := range res.Events {
		names = append(names, e["event"].(string))
	}
	if strings.Join(names, " ") != "architect_pass plan editor_pass proposal proposal accepted done" {
		t.Errorf("events = %v", names)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); strings.Contains(string(data), "AI:") {
		t.Fatalf("the comment is still there:\n%s", data)
	}
}

func TestRunKeepsTheAICommentOfATypedTask(t *testing.T) {
	dir, _ := runFolder(t, greetReplies()...)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(runCommentedGo), 0o644)
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "--file", "main.go", "--apply", "greet the world"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	if strings.Contains(out.String(), "-// AI:") {
		t.Fatalf("a typed task removed the AI comment:\n%s", out.String())
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); !strings.Contains(string(data), "// AI: greet the world\n") {
		t.Fatalf("main.go:\n%s", data)
	}
}

// runFailingVerify is a folder whose user config has a verify command
// that always fails, and one editor pass (maxMistakes 1).
func runFailingVerify(t *testing.T) string {
	t.Helper()
	dir, srv := runFolder(t, greetReplies()...)
	withUserConfig(t, map[string]any{
		"architectModel": "fake/big", "editorModel": "fake/small", "maxMistakes": 1,
		"providers": map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": srv.BaseURL()}},
		"verify":    []map[string]any{{"name": "check", "run": []string{"sh", "-c", "echo 'main.go:6: not good' >&2; exit 1"}}},
	})
	trustFolder(t, dir)
	return dir
}

// trustFolder runs aide-lsp trust --dir dir: verification runs only in a
// trusted folder.
func trustFolder(t *testing.T, dir string) {
	t.Helper()
	var out bytes.Buffer
	if code := runTrust([]string{"--dir", dir}, &out, &out); code != exitOK {
		t.Fatalf("trust: exit %d: %s", code, out.String())
	}
}

// run --apply writes nothing when the last verification failed, unless
// --allow-failing; --no-verify skips the commands.
func TestRunApplyRefusesAFailedVerification(t *testing.T) {
	dir := runFailingVerify(t)
	var out, errb bytes.Buffer
	code := runRun([]string{"--dir", dir, "--apply", "greet the world"}, &out, &errb)
	if code != exitFailed || !strings.Contains(errb.String(), "the last verification failed (check: exit status 1): nothing was written") {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "aide: verify check: FAILED") || !strings.Contains(errb.String(), "main.go:6: not good") {
		t.Errorf("the failure is not told on stderr:\n%s", errb.String())
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != runMainGo {
		t.Fatal("--apply wrote a candidate that failed verification")
	}

	dir = runFailingVerify(t)
	out.Reset()
	errb.Reset()
	if code := runRun([]string{"--dir", dir, "--apply", "--allow-failing", "greet the world"}, &out, &errb); code != exitOK {
		t.Fatalf("--allow-failing: exit %d; stderr:\n%s", code, errb.String())
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); !strings.Contains(string(data), "hello, world") {
		t.Fatal("--allow-failing did not write")
	}

	dir = runFailingVerify(t)
	out.Reset()
	errb.Reset()
	if code := runRun([]string{"--dir", dir, "--apply", "--no-verify", "greet the world"}, &out, &errb); code != exitOK {
		t.Fatalf("--no-verify: exit %d; stderr:\n%s", code, errb.String())
	}
	if strings.Contains(errb.String(), "aide: verify") {
		t.Errorf("--no-verify ran the commands:\n%s", errb.String())
	}
}
