package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `aide-lsp bench --cassettes` end to end through its flags: the recorded
// runs replay, pass, and the report says they were a cassette run.
func TestBenchCassettesCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "report.json")
	code := runBench([]string{"--suite", "../../tests/bench/tasks", "--cassettes", "../../tests/bench/cassettes", "--json", "--out", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Source string
		Rows   []struct {
			Mode     string
			PassRate float64
			Runs     int
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Source != "cassette" || len(rep.Rows) != 2 || rep.Rows[0].PassRate != 100 || rep.Rows[1].PassRate != 100 {
		t.Fatalf("report: %s", raw)
	}
	if n := strings.Count(stderr.String(), "\n["); n+1 < rep.Rows[0].Runs+rep.Rows[1].Runs {
		t.Errorf("one progress line per task run expected:\n%s", stderr.String())
	}
}

func TestBenchRefusals(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--cassettes", "x", "--record=y"}, "never mixes"},
		{[]string{"--record"}, "--cassettes DIR --record"},
		{[]string{"--html"}, "go with --history"},
		{[]string{"--history", "-1"}, "at least one commit"},
		{[]string{"--history", "3", "--dir", "/"}, "not a git repository"},
		{[]string{"--history", "3", "--json", "--html"}, "pick one format"},
		{[]string{"--modes", "three-pass"}, "not one-call or two-pass"},
		{[]string{"--runs", "0"}, "at least once"},
		{[]string{"--suite", "../../tests/bench/tasks", "--task", "no-such-task"}, `no task "no-such-task"`},
		{[]string{"--suite", "../../tests/bench/tasks", "--cassettes", "../../tests/bench/cassettes", "--architect-model", "openai/o3"}, "replays the models it was recorded with"},
		{[]string{"--suite", "../../tests/bench/tasks", "--architect-model", "nosuch/model"}, "unknown provider"},
		{[]string{"stray"}, "unexpected argument"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		t.Setenv("OPENAI_API_KEY", "")
		code := runBench(c.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// `aide-lsp bench --history` end to end through its flags, replaying the
// bundled cassettes on the bundled repository: the report says it is a
// replay on its first line, and --json and --html are written.
func TestBenchHistoryReplayCommand(t *testing.T) {
	for _, tool := range []string{"git", "sh", "go", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("sh", "../../examples/history/make-repo.sh", repo).CombinedOutput(); err != nil {
		t.Fatalf("make-repo.sh: %v\n%s", err, out)
	}
	tmp := t.TempDir()
	args := []string{"--history", "4", "--dir", repo, "--cassettes", "../../examples/history/cassettes",
		"--check", "go build ./... && python3 -m py_compile report.py", "--explain"}
	var stdout, stderr bytes.Buffer
	if code := runBench(append(args, "--json", "--out", filepath.Join(tmp, "r.json")), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{"skipped da9c29d57e wip: message too short", "a merge", "touches only vendored files", "commit 4/4 · two-pass"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	raw, err := os.ReadFile(filepath.Join(tmp, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "{\n  \"source\": \"cassette\"") {
		t.Errorf("the JSON report does not say first that it is a replay:\n%.200s", raw)
	}
	stderr.Reset()
	if code := runBench(append(args, "--html", "--out", filepath.Join(tmp, "r.html")), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(tmp, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "REPLAY") {
		t.Errorf("the HTML report lacks its chart or its replay notice")
	}
	stdout.Reset()
	if code := runBench(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	first, _, _ := strings.Cut(stdout.String(), "\n")
	if !strings.Contains(first, "REPLAY") {
		t.Errorf("the Markdown report's first line does not say it is a replay: %q", first)
	}
}
