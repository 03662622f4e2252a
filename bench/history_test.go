package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/verify"
)

// The history fixture: examples/history/make-repo.sh builds it with git
// commands, fixed authors and dates (the demo replays cassettes recorded
// on it, so its hashes must not change).
const (
	makeHistoryRepo   = "../examples/history/make-repo.sh"
	historyCassettes  = "../examples/history/cassettes"
	historyRecordNote = "recorded from model/modeltest wire-level fakes scripted per commit (one right answer, one that does not build, one refusal, one edit of the wrong file): a check of the instrument, not a measurement of any model"
)

// The four task commits and what the fakes answer for each.
const (
	subjRound   = "Round the cart total to cents"                     // the commit's own files: right
	subjPercent = "Add a Percent helper for the discount banner"      // calls a function nowhere defined: does not build
	subjClamp   = "Clamp negative quantities to zero in report lines" // a refusal
	subjHeader  = "Print the report header in upper case"             // edits cart.go instead of report.py
)

// historyCheck builds the Go package and compiles the Python script.
var historyCheck = verify.Command{Name: "build", Run: []string{"sh", "-c", "go build ./... && python3 -m py_compile report.py"}}

func buildHistoryRepo(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"git", "sh", "go", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := filepath.Join(t.TempDir(), "repo")
	out, err := exec.Command("sh", makeHistoryRepo, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("make-repo.sh: %v\n%s", err, out)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hashTreeAll hashes every file under dir, .git included, with its mode.
func hashTreeAll(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v %d\n", rel, info.Mode(), info.ModTime().UnixNano())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// historyScript is what the fakes answer for each commit and mode, with the
// usage of every reply, so the test can price them.
type historyScript struct {
	replies map[string][]modeltest.Reply // commit hash + " " + mode → replies
	usage   map[string][]model.Usage     // same key → usage of each reply, in order
	model   map[string][]string          // same key → the model of each reply
}

func scriptHistory(t *testing.T, repo string) (historyScript, map[string]string) {
	t.Helper()
	hashes := map[string]string{}
	for _, line := range strings.Split(gitOut(t, repo, "log", "--format=%H %s"), "\n") {
		h, s, _ := strings.Cut(line, " ")
		hashes[s] = h
	}
	write := func(path, content string) model.ToolCall {
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		return model.ToolCall{ID: "call_1", Name: "write_file", Arguments: string(args)}
	}
	edits := map[string]modeltest.Reply{
		subjRound:   {ToolCalls: []model.ToolCall{write("cart.go", gitOut(t, repo, "show", hashes[subjRound]+":cart.go")+"\n")}},
		subjPercent: {ToolCalls: []model.ToolCall{write("percent.go", "package shop\n\n// Percent is part of whole in percent.\nfunc Percent(part, whole float64) float64 {\n\treturn ratio(part, whole) * 100\n}\n")}},
		subjClamp:   {Text: "I can't help with that request."},
		subjHeader: {ToolCalls: []model.ToolCall{write("cart.go", strings.Replace(gitOut(t, repo, "show", hashes[subjRound]+"~1:cart.go")+"\n",
			"// Total is what the cart costs.", "// Total is what the cart costs.\n// The report prints its header in upper case.", 1))}},
	}
	s := historyScript{replies: map[string][]modeltest.Reply{}, usage: map[string][]model.Usage{}, model: map[string][]string{}}
	n := 0
	for subj, edit := range edits {
		for _, mode := range []Mode{ModeOneCall, ModeTwoPass} {
			key := hashes[subj] + " " + string(mode)
			add := func(r modeltest.Reply, m string) {
				n++
				u := model.Usage{PromptTokens: 900 + 11*n, CompletionTokens: 40 + 5*n}
				r.Usage = &u
				s.replies[key] = append(s.replies[key], r)
				s.usage[key] = append(s.usage[key], u)
				s.model[key] = append(s.model[key], m)
			}
			if mode == ModeTwoPass {
				add(modeltest.Reply{Text: "## Plan\n1. " + subj + ".\n## End Plan\n"}, fakeArchitect)
				add(edit, fakeEditor)
			} else {
				add(edit, fakeArchitect)
			}
		}
	}
	return s, hashes
}

var historyPrices = map[string]model.Price{fakeArchitect: {Input: 3, Output: 15}, fakeEditor: {Input: 0.25, Output: 1.25}}

// fakeFor is a wire-level fake scripted for the runs of keys, in order.
func (s historyScript) fakeFor(t *testing.T, keys []string) model.Client {
	var replies []modeltest.Reply
	for _, k := range keys {
		replies = append(replies, s.replies[k]...)
	}
	srv := modeltest.NewOpenAI(t, replies...)
	return model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: "openai", BaseURL: srv.BaseURL()}},
		model.Options{MaxRetries: -1, Timeout: 2 * time.Minute})
}

func historyOptions(repo string, client model.Client) HistoryOptions {
	cfg := config.Defaults()
	cfg.Prices = historyPrices
	return HistoryOptions{Options: Options{Modes: []Mode{ModeOneCall, ModeTwoPass}, Config: cfg.Effective(), Model: client,
		ArchitectModel: fakeArchitect, EditorModel: fakeEditor, Version: "test"},
		Dir: repo, N: 4, Limits: DefaultPickLimits, Checks: []verify.Command{historyCheck}}
}

// runKeys are the (commit, mode) runs in the order the bench makes them.
func runKeys(picked []Commit) []string {
	var keys []string
	for _, c := range picked {
		keys = append(keys, c.Hash+" "+string(ModeOneCall), c.Hash+" "+string(ModeTwoPass))
	}
	return keys
}

func TestHistoryBench(t *testing.T) {
	repo := buildHistoryRepo(t)
	before := hashTreeAll(t, repo)
	script, hashes := scriptHistory(t, repo)
	picked, skipped, err := PickCommits(context.Background(), repo, 4, DefaultPickLimits, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The commits picked, newest first, and those skipped, with reasons.
	var got []string
	for _, c := range picked {
		got = append(got, c.Subject+" ["+c.Language+"]")
	}
	want := []string{subjHeader + " [python]", subjClamp + " [python]", subjPercent + " [go]", subjRound + " [go]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("picked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reasons := map[string]string{}
	for _, c := range skipped {
		reasons[c.Subject] = c.Skipped
	}
	for subj, why := range map[string]string{
		"wip": "message too short",
		"Add the table of exchange rates for every currency": "too big",
		"Merge branch side into main":                        "a merge",
		"Regenerate the version constant for the release":    "only generated",
		"Vendor the slug helper from upstream":               "only vendored",
	} {
		if !strings.Contains(reasons[subj], why) {
			t.Errorf("%q skipped for %q, want %q", subj, reasons[subj], why)
		}
	}
	if len(skipped) != 5 {
		t.Errorf("%d skipped, want 5: %v", len(skipped), reasons)
	}

	// An uninterrupted run.
	o := historyOptions(repo, script.fakeFor(t, runKeys(picked)))
	full, err := RunHistory(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if full.Interrupted || len(full.Results) != 8 {
		t.Fatalf("interrupted %v, %d results", full.Interrupted, len(full.Results))
	}
	outcome := map[string]string{
		subjRound: "pass", subjPercent: "fail", subjClamp: "refused", subjHeader: "pass",
	}
	for _, r := range full.Results {
		if got := r.Outcome(); got != outcome[r.Subject] {
			t.Errorf("%s %s: %s (%s; %s), want %s", r.Mode, r.Subject, got, r.Note, r.CheckError, outcome[r.Subject])
		}
		switch r.Subject {
		case subjRound:
			if r.Closeness.Score != 1 || r.Closeness.Files != 1 {
				t.Errorf("%s right answer: closeness %+v, want 1", r.Mode, r.Closeness)
			}
		case subjHeader:
			if r.Closeness.Score >= 0.5 || strings.Join(r.Closeness.WrongFiles, ",") != "cart.go" {
				t.Errorf("%s wrong file: closeness %+v, want < 0.5 naming cart.go", r.Mode, r.Closeness)
			}
		case subjClamp:
			if !r.Refused || r.Passed {
				t.Errorf("%s refusal: refused %v passed %v", r.Mode, r.Refused, r.Passed)
			}
		case subjPercent:
			if !strings.Contains(r.CheckOutput, "ratio") {
				t.Errorf("%s: the failed build's output does not name the missing function:\n%s", r.Mode, r.CheckOutput)
			}
		}
		// Cost from the prices and the usage the fake sent.
		key := r.Commit + " " + r.Mode
		var wantCost float64
		for i, u := range script.usage[key] {
			wantCost += historyPrices[script.model[key][i]].Cost(u.PromptTokens, u.CompletionTokens)
		}
		if !r.CostKnown || math.Abs(r.CostUSD-wantCost) > 1e-12 {
			t.Errorf("%s %s: cost %v (known %v), want %v", r.Mode, r.Subject, r.CostUSD, r.CostKnown, wantCost)
		}
	}
	for _, row := range full.Rows {
		if row.Passed != 2 || row.Checked != 4 || row.Refusals != 1 || row.WrongFileRuns != 1 {
			t.Errorf("row %s: passed %d/%d, refusals %d, wrong-file runs %d", row.Mode, row.Passed, row.Checked, row.Refusals, row.WrongFileRuns)
		}
		if math.Abs(row.CostPerPass*2-row.CostUSD) > 1e-12 || math.Abs(row.CostPerTask*4-row.CostUSD) > 1e-12 {
			t.Errorf("row %s: cost %v, per task %v, per pass %v", row.Mode, row.CostUSD, row.CostPerTask, row.CostPerPass)
		}
	}

	// Ctrl-C after three runs, then --resume from the JSON report.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o = historyOptions(repo, script.fakeFor(t, runKeys(picked)))
	o.Progress = &cancelAfter{n: 3, cancel: cancel}
	part, err := RunHistory(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !part.Interrupted || len(part.Results) != 3 {
		t.Fatalf("interrupted %v with %d results, want 3", part.Interrupted, len(part.Results))
	}
	var state bytes.Buffer
	if err := part.WriteJSON(&state); err != nil {
		t.Fatal(err)
	}
	saved, err := ParseHistoryReport(state.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	o = historyOptions(repo, script.fakeFor(t, runKeys(picked)[3:]))
	o.Resume = saved
	resumed, err := RunHistory(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reportText(t, full), reportText(t, resumed); a != b {
		t.Errorf("the resumed report differs from the uninterrupted one:\n%s\n---\n%s", a, b)
	}

	// --json and --html.
	var js, page bytes.Buffer
	if err := full.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if back, err := ParseHistoryReport(js.Bytes()); err != nil || len(back.Results) != 8 {
		t.Fatalf("the JSON report does not read back: %v", err)
	}
	if err := full.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "<circle", subjHeader, "wrong file: cart.go"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(page.String(), "<script") {
		t.Error("the HTML report has a script")
	}

	// The user's tree, index and .git: byte for byte as before.
	if after := hashTreeAll(t, repo); after != before {
		t.Error("the repository changed during the bench")
	}
	_ = hashes
}

// cancelAfter is a progress writer that presses Ctrl-C after n lines.
type cancelAfter struct {
	n      int
	cancel func()
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.n -= bytes.Count(p, []byte("\n"))
	if c.n <= 0 {
		c.cancel()
	}
	return len(p), nil
}

var timesRE = regexp.MustCompile(`\d+\.\d s|Date: [^\n]*`)

// reportText is the Markdown report with its times and date blanked.
func reportText(t *testing.T, r *HistoryReport) string {
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	return timesRE.ReplaceAllString(b.String(), "#")
}

// A hostile HTML report: every string from the repository or a model is
// escaped.
func TestHistoryHTMLEscapes(t *testing.T) {
	evil := `<img src=x onerror=alert(1)>`
	r := &HistoryReport{Source: SourceLive, Kind: HistoryKind, Modes: []string{"one-call"},
		Picked: []Commit{{Hash: "0123456789abcdef", Subject: evil}}, Skipped: []Commit{{Hash: "abcdef0123456789", Subject: evil, Skipped: evil}},
		Results: []HistoryResult{{Commit: "0123456789abcdef", Subject: evil, RunResult: RunResult{Mode: "one-call", ArchitectModel: "x/" + evil},
			Closeness: Closeness{WrongFiles: []string{evil}}}}}
	r.aggregate()
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<img") {
		t.Errorf("unescaped markup in the HTML report:\n%s", b.String())
	}
}

// TestRecordHistoryCassettes rewrites examples/history/cassettes, which the
// demo replays. It runs only when asked:
// AIDE_BENCH_RECORD=1 go test ./bench -run TestRecordHistoryCassettes
func TestRecordHistoryCassettes(t *testing.T) {
	if os.Getenv(recordEnvName) != "1" {
		t.Skipf("set %s=1 to record the history cassettes again", recordEnvName)
	}
	repo := buildHistoryRepo(t)
	script, _ := scriptHistory(t, repo)
	picked, _, err := PickCommits(context.Background(), repo, 4, DefaultPickLimits, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(historyCassettes); err != nil {
		t.Fatal(err)
	}
	o := historyOptions(repo, script.fakeFor(t, runKeys(picked)))
	o.RecordDir, o.RecordNote = historyCassettes, historyRecordNote
	o.Now = func() time.Time { return time.Date(2026, 1, 11, 12, 0, 0, 0, time.UTC) }
	if _, err := RunHistory(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

func TestClosenessMeasure(t *testing.T) {
	old := []byte("a\nb\nc\n")
	commit := map[string]lineChange{"f": changeOf(old, []byte("a\nB\nc\n"))}
	cases := []struct {
		name   string
		result map[string]lineChange
		score  float64
	}{
		{"same", map[string]lineChange{"f": changeOf(old, []byte("a\nB\nc\n"))}, 1},
		{"nothing", map[string]lineChange{}, 0},
		{"wrong file", map[string]lineChange{"g": changeOf(old, []byte("a\nB\nc\n"))}, 0},
		// Removed b as asked, added X instead of B: half the lines.
		{"half", map[string]lineChange{"f": changeOf(old, []byte("a\nX\nc\n"))}, 0.5},
		// Right, plus an unasked line: precision 2/3, recall 1.
		{"extra", map[string]lineChange{"f": changeOf(old, []byte("a\nB\nc\nZ\n"))}, 0.8},
	}
	for _, c := range cases {
		if got := closeness(commit, c.result).Score; math.Abs(got-c.score) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.score)
		}
	}
}
