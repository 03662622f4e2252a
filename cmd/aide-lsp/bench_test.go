package main

import (
	"bytes"
	"encoding/json"
	"os"
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
