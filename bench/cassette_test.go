package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
)

// The CI cassettes: recorded by running this harness against wire-level
// fakes scripted with the reference solutions' edits. They check the
// instrument end to end; they say nothing about any model.
const (
	ciCassettes   = "../tests/bench/cassettes"
	ciRecordNote  = "recorded from model/modeltest wire-level fakes scripted with the reference solutions' edits (one failed first edit on py-add-param-currency, two-pass): a check of the instrument, not a measurement of any model"
	recordEnvName = "AIDE_BENCH_RECORD"
)

var ciTasks = []string{"go-fix-pagination", "go-new-file-reverse", "py-add-param-currency", "py-rename-function"}

// TestRecordCICassettes rewrites tests/bench/cassettes. It runs only when
// asked: AIDE_BENCH_RECORD=1 go test ./bench -run TestRecordCICassettes
func TestRecordCICassettes(t *testing.T) {
	if os.Getenv(recordEnvName) != "1" {
		t.Skipf("set %s=1 to record the CI cassettes again", recordEnvName)
	}
	if err := os.RemoveAll(ciCassettes); err != nil {
		t.Fatal(err)
	}
	fr := benchWithFake(t, ciTasks, []Mode{ModeOneCall, ModeTwoPass}, map[string]bool{"py-add-param-currency": true}, nil,
		func(o *Options) { o.RecordDir = ciCassettes; o.RecordNote = ciRecordNote })
	for _, r := range fr.report.Results {
		if !r.Passed {
			t.Errorf("%s %s did not pass while recording: %s", r.Mode, r.Task, r.Note)
		}
	}
}

// CI runs the harness end to end on the recorded cassettes: every task's
// edits are replayed through the engine, applied to a fresh copy, and
// checked; the report says it is a cassette run and names the recording.
func TestCassetteReplayEndToEnd(t *testing.T) {
	m, err := LoadManifest(ciCassettes)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range m.Tasks {
		names = append(names, n)
	}
	suite, err := LoadSuite(suiteDir, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(suite.Tasks) < 3 {
		t.Fatalf("%d recorded tasks, want 3 or more", len(suite.Tasks))
	}
	modes, _ := ParseModes(strings.Join(m.Modes, ","))
	var progress bytes.Buffer
	rep, err := Run(context.Background(), Options{Suite: suite, Modes: modes, Runs: 1, Config: config.Defaults().Effective(),
		CassetteDir: ciCassettes, Progress: &progress, Keep: true, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Source != SourceCassette || rep.Cassettes == nil || rep.Cassettes.Note != m.Note {
		t.Fatalf("source %q, cassettes %+v", rep.Source, rep.Cassettes)
	}
	for _, r := range rep.Results {
		if !r.Passed || strings.Contains(r.Note, "unplayed") {
			t.Errorf("%s %s: %s (%s)\n%s", r.Mode, r.Task, r.Outcome(), r.Note, r.CheckOutput)
		}
		passes, _, prompt, _ := recount(t, r.Workdir)
		if passes != r.Counts.ArchitectPasses+r.Counts.EditorPasses || prompt != r.Counts.PromptTokens {
			t.Errorf("%s %s: counts differ from the session file", r.Mode, r.Task)
		}
	}
	if len(rep.Rows) != len(modes) {
		t.Fatalf("%d rows for %d modes", len(rep.Rows), len(modes))
	}
	for _, row := range rep.Rows {
		if row.PassRate != 100 {
			t.Errorf("%s: pass rate %v", row.Mode, row.PassRate)
		}
	}
	var md bytes.Buffer
	rep.WriteMarkdown(&md)
	for _, want := range []string{"Source: cassette replay.", m.Note, m.ArchitectModel, "not model latency"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "Source: live") {
		t.Error("a cassette report calls itself live")
	}
}

// A report never mixes recorded and live calls, and a cassette folder that
// does not fit the run asked for is refused before anything runs.
func TestCassetteRefusals(t *testing.T) {
	suite, err := LoadSuite(suiteDir, ciTasks)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults().Effective()
	router := model.NewRouter(nil, model.Options{})
	base := Options{Suite: suite, Modes: []Mode{ModeOneCall, ModeTwoPass}, Runs: 1, Config: cfg, CassetteDir: ciCassettes}

	// A copy of the cassettes whose manifest remembers another task hash.
	changed := t.TempDir()
	copyDir(t, ciCassettes, changed)
	var m Manifest
	raw, _ := os.ReadFile(filepath.Join(changed, "manifest.json"))
	json.Unmarshal(raw, &m)
	m.Tasks["go-fix-pagination"] = "0000000000000000"
	writeManifest(changed, m)

	other, _ := LoadSuite(suiteDir, []string{"ts-fix-clamp"})
	cases := []struct {
		name string
		mod  func(o *Options)
		want string
	}{
		{"record and replay", func(o *Options) { o.RecordDir = t.TempDir() }, "never mixes"},
		{"live client too", func(o *Options) { o.Model = router }, "no live model calls"},
		{"other models", func(o *Options) { o.ArchitectModel = "openai/o3" }, "replays the models it was recorded with"},
		{"more runs", func(o *Options) { o.Runs = 2 }, "lower --runs"},
		{"unrecorded task", func(o *Options) { o.Suite = other }, "no runs of task ts-fix-clamp"},
		{"changed task", func(o *Options) { o.CassetteDir = changed }, "changed since its cassettes were recorded"},
		{"not a cassette folder", func(o *Options) { o.CassetteDir = t.TempDir() }, "not a cassette folder"},
	}
	for _, c := range cases {
		o := base
		c.mod(&o)
		_, err := Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
}
