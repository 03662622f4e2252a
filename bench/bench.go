package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
)

// Mode is how a task is run: one editor call, or architect then editor.
type Mode string

const (
	ModeOneCall Mode = "one-call"
	ModeTwoPass Mode = "two-pass"
)

// ParseModes reads a comma list of modes.
func ParseModes(s string) ([]Mode, error) {
	var out []Mode
	seen := map[Mode]bool{}
	for _, f := range strings.Split(s, ",") {
		m := Mode(strings.TrimSpace(f))
		if m != ModeOneCall && m != ModeTwoPass {
			return nil, fmt.Errorf("mode %q is not one-call or two-pass", m)
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out, nil
}

// Options configure a bench.
type Options struct {
	Suite *Suite
	Modes []Mode
	Runs  int

	// Config is the effective configuration the engine runs with (prices,
	// providers, limits); the models below override its models.
	Config         config.Config
	ArchitectModel string
	EditorModel    string
	// OneCallModel is the model of the one-call mode; empty: the architect's
	// model (Aider's "o3 alone" against "o3 + gpt-4.1 as editor").
	OneCallModel string

	// Model answers the calls of live runs (the Router). Exactly one of
	// Model and CassetteDir is set.
	Model       model.Client
	CassetteDir string // replay the cassettes recorded in this folder
	RecordDir   string // live runs: also record every call here
	RecordNote  string // the manifest's note on how the cassettes were recorded

	Version  string    // aide-lsp version, for the report
	Keep     bool      // keep the run copies (their paths are in the results)
	WorkDir  string    // where the copies go; "" = a new temp folder
	Progress io.Writer // a line per finished task run; nil: none
	Now      func() time.Time
}

// Run runs the bench and builds its report. It refuses, before running
// anything, what would make the report dishonest: mixing recorded and live
// calls, cassettes recorded for other tasks or models, missing tools.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Suite == nil || len(o.Suite.Tasks) == 0 {
		return nil, errors.New("no tasks to run")
	}
	if o.Runs < 1 {
		return nil, fmt.Errorf("--runs %d: run each task at least once", o.Runs)
	}
	if len(o.Modes) == 0 {
		o.Modes = []Mode{ModeOneCall, ModeTwoPass}
	}
	rep := &Report{Tool: "aide-lsp bench", Version: o.Version, Date: o.Now().UTC(), Source: SourceLive,
		Suite: SuiteInfo{Dir: o.Suite.Dir, Version: o.Suite.Version, Tasks: len(o.Suite.Tasks), Languages: map[string]int{}},
		Runs:  o.Runs, Prices: o.Config.Prices}
	for _, m := range o.Modes {
		rep.Modes = append(rep.Modes, string(m))
	}
	for _, t := range o.Suite.Tasks {
		rep.Suite.Languages[t.Language]++
	}
	var manifest Manifest
	if err := o.checkSource(); err != nil {
		return nil, err
	}
	switch {
	case o.CassetteDir != "":
		var err error
		if manifest, err = checkCassettes(o); err != nil {
			return nil, err
		}
		rep.Source = SourceCassette
		rep.Cassettes = &CassetteInfo{Dir: o.CassetteDir, Recorded: manifest.Recorded, Note: manifest.Note,
			SuiteVersion: manifest.SuiteVersion}
		o.ArchitectModel, o.EditorModel, o.OneCallModel = manifest.ArchitectModel, manifest.EditorModel, manifest.OneCallModel
	}
	if o.OneCallModel == "" {
		o.OneCallModel = o.ArchitectModel
	}
	if o.EditorModel == "" {
		o.EditorModel = o.ArchitectModel
	}
	env := toolEnv(o.Suite.Dir, o.Config.KeyVars())
	if err := checkTools(o.Suite, env); err != nil {
		return nil, err
	}

	work, cleanup, err := o.workFolder("aide-bench-*")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if o.Keep {
		rep.WorkDir = work
	}
	if o.RecordDir != "" {
		manifest = Manifest{Kind: ManifestKind, Recorded: rep.Date, Note: o.RecordNote,
			ArchitectModel: o.ArchitectModel, EditorModel: o.EditorModel, OneCallModel: o.OneCallModel,
			SuiteVersion: o.Suite.Version, Modes: rep.Modes, Runs: o.Runs, Tasks: map[string]string{}}
		if manifest.Note == "" {
			manifest.Note = "recorded from live model calls"
		}
		for _, t := range o.Suite.Tasks {
			manifest.Tasks[t.Name] = t.Hash
		}
		if err := writeManifest(o.RecordDir, manifest); err != nil {
			return nil, fmt.Errorf("--record %s: %v", o.RecordDir, err)
		}
	}

	total := len(o.Modes) * len(o.Suite.Tasks) * o.Runs
	n := 0
	for _, mode := range o.Modes {
		for _, t := range o.Suite.Tasks {
			for run := 1; run <= o.Runs; run++ {
				if ctx.Err() != nil {
					rep.Interrupted = true
					break
				}
				n++
				r, err := runOne(ctx, o, env, work, mode, t, run)
				if err != nil {
					return nil, err
				}
				if ctx.Err() != nil {
					rep.Interrupted = true
					break
				}
				rep.Results = append(rep.Results, r)
				if o.Progress != nil {
					fmt.Fprintf(o.Progress, "[%d/%d] %s\n", n, total, r.progressLine())
				}
			}
		}
	}
	rep.Rows = aggregate(rep.Results, o.Config.Prices)
	return rep, nil
}

// checkSource refuses a run that would mix recorded and live calls, or
// has neither.
func (o Options) checkSource() error {
	switch {
	case o.CassetteDir != "" && o.RecordDir != "":
		return errors.New("--cassettes DIR replays recorded calls and --cassettes DIR --record records live ones: one report never mixes the two; pick one")
	case o.CassetteDir != "" && o.Model != nil:
		return errors.New("a cassette run makes no live model calls: it was given both cassettes and a live model client")
	case o.CassetteDir == "" && o.Model == nil:
		return errors.New("no model client and no cassettes")
	}
	return nil
}

// checkCassettes refuses a cassette folder that does not cover the run asked
// for, was recorded for other tasks, or for other models.
func checkCassettes(o Options) (Manifest, error) {
	m, err := LoadManifest(o.CassetteDir)
	if err != nil {
		return m, err
	}
	for _, pair := range [][2]string{{o.ArchitectModel, m.ArchitectModel}, {o.EditorModel, m.EditorModel}, {o.OneCallModel, m.OneCallModel}} {
		if pair[0] != "" && pair[0] != pair[1] {
			return m, fmt.Errorf("the cassettes in %s were recorded with %s (architect), %s (editor), %s (one call), not %s: a cassette run replays the models it was recorded with; drop the model flags, or record again with --record",
				o.CassetteDir, m.ArchitectModel, m.EditorModel, m.OneCallModel, pair[0])
		}
	}
	if o.Runs > m.Runs {
		return m, fmt.Errorf("the cassettes in %s hold %d run(s) per task, not %d: lower --runs", o.CassetteDir, m.Runs, o.Runs)
	}
	for _, mode := range o.Modes {
		found := false
		for _, have := range m.Modes {
			found = found || have == string(mode)
		}
		if !found {
			return m, fmt.Errorf("the cassettes in %s hold no %s runs (they hold %s): pick those modes with --modes", o.CassetteDir, mode, strings.Join(m.Modes, ","))
		}
	}
	for _, t := range o.Suite.Tasks {
		h, ok := m.Tasks[t.Name]
		if !ok {
			return m, fmt.Errorf("the cassettes in %s hold no runs of task %s: pick recorded tasks with --task, or record it", o.CassetteDir, t.Name)
		}
		if h != t.Hash {
			return m, fmt.Errorf("task %s changed since its cassettes were recorded (%s then, %s now): record it again with --record", t.Name, h, t.Hash)
		}
		for _, mode := range o.Modes {
			for run := 1; run <= o.Runs; run++ {
				if _, err := os.Stat(cassettePath(o.CassetteDir, mode, t.Name, run)); err != nil {
					return m, fmt.Errorf("no cassette for task %s, %s, run %d in %s: record it with --record", t.Name, mode, run, o.CassetteDir)
				}
			}
		}
	}
	return m, nil
}

// checkTools refuses to start when a check's program is missing: that would
// count as a failed task and say something false about a model.
func checkTools(s *Suite, env []string) error {
	missing := map[string][]string{}
	var order []string
	for _, t := range s.Tasks {
		for _, tool := range append([]string{t.Check[0]}, t.Requires...) {
			if strings.Contains(tool, "/") || lookTool(tool, env) {
				continue
			}
			if _, seen := missing[tool]; !seen {
				order = append(order, tool)
			}
			missing[tool] = append(missing[tool], t.Name)
		}
	}
	if len(order) == 0 {
		return nil
	}
	var parts []string
	for _, tool := range order {
		hint := ""
		if tool == "tsc" {
			hint = fmt.Sprintf(" (install it with: npm ci --prefix %s)", s.Dir)
		}
		parts = append(parts, fmt.Sprintf("%s, needed by %s%s", tool, strings.Join(missing[tool], ", "), hint))
	}
	return fmt.Errorf("the checks need programs that are not on PATH: %s; install them, or leave those tasks out with --task", strings.Join(parts, "; "))
}

// runOne runs one task once in one mode on a fresh copy.
func runOne(ctx context.Context, o Options, env []string, work string, mode Mode, t Task, run int) (RunResult, error) {
	r := RunResult{Task: t.Name, Language: t.Language, Kind: t.Kind, Mode: string(mode), Run: run}
	if mode == ModeOneCall {
		r.ArchitectModel = o.OneCallModel
	} else {
		r.ArchitectModel, r.EditorModel = o.ArchitectModel, o.EditorModel
	}
	dir := filepath.Join(work, string(mode), t.Name, fmt.Sprintf("run-%d", run))
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	if err := t.CopyStart(dir); err != nil {
		return r, fmt.Errorf("%s: copying the starting files: %v", t.Name, err)
	}
	if o.Keep {
		r.Workdir = dir
	}

	if err := driveEngine(ctx, o, work, dir, mode, t, t.Name, run, &r); err != nil || ctx.Err() != nil {
		return r, err
	}

	if err := t.restoreTests(dir); err != nil {
		return r, err
	}
	chk := RunCheck(ctx, dir, t.Check, time.Duration(t.Timeout)*time.Second, env)
	r.CheckSeconds = chk.Took.Seconds()
	r.Passed, r.CheckTimedOut, r.CheckExit = chk.Passed, chk.TimedOut, chk.ExitCode
	if !chk.Passed {
		r.CheckOutput = chk.Output // why it failed; a pass needs no log
	}
	if chk.Err != "" {
		r.CheckError = chk.Err
	}
	if !o.Keep {
		_ = os.RemoveAll(dir)
	}
	return r, nil
}

// driveEngine runs task t in mode on the copy dir through the engine — with
// the live client, a recorder, or the cassette of (mode, name, run) — and
// fills r with what the session events say: state, applied files, counts
// and cost. Interrupted, it returns nil with ctx.Err() set: the caller
// drops the run.
func driveEngine(ctx context.Context, o Options, work, dir string, mode Mode, t Task, name string, run int, r *RunResult) error {
	var client model.Client = o.Model
	var replay *model.Replay
	switch {
	case o.CassetteDir != "":
		var err error
		if replay, err = model.LoadReplay(cassettePath(o.CassetteDir, mode, name, run)); err != nil {
			return err
		}
		client = replay
	case o.RecordDir != "":
		client = model.NewRecorder(o.Model, cassettePath(o.RecordDir, mode, name, run))
	}
	spec := EngineSpec{Dir: dir, Task: t, OneCall: mode == ModeOneCall, Config: o.Config, Model: client,
		StateDir:       filepath.Join(work, "state"), // records of copies go with them (docs/design.md)
		ArchitectModel: r.ArchitectModel, EditorModel: r.EditorModel}
	if mode == ModeOneCall {
		spec.EditorModel = o.OneCallModel
	}
	start := time.Now()
	er, err := RunEngine(ctx, spec)
	r.EngineSeconds = time.Since(start).Seconds()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		er.State, er.Reason = "failed", err.Error()
	}
	r.Session, r.SessionState, r.Applied = er.Session, er.State, er.Applied
	r.EngineError = er.sessionError()
	r.Note = er.Reason
	if replay != nil {
		if left := replay.Remaining(); left > 0 {
			r.Note = strings.TrimSpace(r.Note + fmt.Sprintf(" (the cassette still holds %d unplayed exchange(s): the engine took another path than when it was recorded)", left))
		}
	}
	counts, err := CountWorkspace(dir)
	if err != nil {
		return fmt.Errorf("%s: reading the session events: %v", name, err)
	}
	r.Counts = counts
	r.CostUSD, r.CostKnown = counts.Cost(o.Config.Prices)
	return nil
}

// workFolder is where a bench's copies go: Options.WorkDir, or a new
// temporary folder (pattern) that cleanup removes unless Keep is set; its
// real path, so the paths the engine reports compare equal.
func (o Options) workFolder(pattern string) (work string, cleanup func(), err error) {
	work, cleanup = o.WorkDir, func() {}
	if work == "" {
		if work, err = os.MkdirTemp("", pattern); err != nil {
			return "", nil, err
		}
		if !o.Keep {
			dir := work
			cleanup = func() { _ = os.RemoveAll(dir) }
		}
	}
	if w, err := filepath.EvalSymlinks(work); err == nil {
		work = w
	}
	return work, cleanup, nil
}
