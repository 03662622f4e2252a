package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/bench"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const benchUsage = `Usage: aide-lsp bench [flags]

Runs a task suite through the same engine as 'aide-lsp run --apply', on a
fresh copy of each task per run, and decides each run with the task's check
command (its tests). Reports, per mode and model pair: pass rate, the share of
editor edits that applied at the first try, editor retries, fallbacks, tokens,
cost and time — counted from the session events. A line per task run goes to
stderr; the report to stdout (or --out).

Examples:
  aide-lsp bench --architect-model ollama/qwen2.5-coder:14b
  aide-lsp bench --architect-model openai/o3 --editor-model openai/gpt-4.1 --runs 3 --out bench.md
  aide-lsp bench --architect-model anthropic/claude-sonnet-4-5 --editor-model anthropic/claude-haiku-4-5 \
      --config prices.json --json --out bench.json
  aide-lsp bench --cassettes tests/bench/cassettes          (replay recorded calls: no model needed)
  aide-lsp bench --task go-fix-pagination --task py-fix-chunks --modes two-pass
  aide-lsp bench --architect-model openai/o3 --cassettes calls/ --record   (record the calls of a live bench)

  aide-lsp bench --history 20 --architect-model openai/o3 --editor-model openai/gpt-4.1 --explain
      (your own repository: its 20 most recent small commits as tasks, checked by your
      verify commands and --check, compared with what you committed; --html for a chart)
  aide-lsp bench --resume bench.json                      (go on after Ctrl-C)

Exit status: 0 the bench ran (whatever the pass rate); 1 it could not measure
(every run failed in the engine, or the report could not be written); 2 usage,
configuration, or a refused mix of cassettes and live calls.

Flags:
`

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// runBench is `aide-lsp bench` (docs/bench.md).
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", benchUsage)
	suiteDir := fs.String("suite", "tests/bench/tasks", "the task suite folder")
	archModel := fs.String("architect-model", "", "model id provider/model for the architect (and the one-call mode)")
	edModel := fs.String("editor-model", "", "model id provider/model for the editor (default: the architect's)")
	oneCallModel := fs.String("one-call-model", "", "model id for the one-call mode (default: the architect's)")
	modes := fs.String("modes", "one-call,two-pass", "modes to run: one-call, two-pass, or both")
	runs := fs.Int("runs", 1, "runs per task and mode")
	out := fs.String("out", "", "write the report to this file instead of stdout")
	jsonOut := fs.Bool("json", false, "write the report as JSON")
	var tasks listFlag
	fs.Var(&tasks, "task", "run only this task (repeatable, or a comma list)")
	cassettes := fs.String("cassettes", "", "replay the calls recorded in this folder instead of calling models (with --record: record them there)")
	var record recordFlag
	fs.Var(&record, "record", "with --cassettes DIR: record every model call of this live bench into DIR")
	history := fs.Int("history", 0, "bench the repository's N most recent plausible commits instead of the suite")
	dir := fs.String("dir", ".", "with --history: the git repository")
	explain := fs.Bool("explain", false, "with --history: list every commit skipped and why")
	var checks listFlag
	fs.Var(&checks, "check", "with --history: a check command run (by sh -c) on each result, like a verify command (repeatable)")
	htmlOut := fs.Bool("html", false, "with --history: write the report as one HTML page with a chart")
	resume := fs.String("resume", "", "with --history: go on from this JSON report of an interrupted run")
	maxFiles := fs.Int("max-files", bench.DefaultPickLimits.MaxFiles, "with --history: skip commits touching more files")
	maxLines := fs.Int("max-lines", bench.DefaultPickLimits.MaxLines, "with --history: skip commits changing more lines")
	minWords := fs.Int("min-words", bench.DefaultPickLimits.MinWords, "with --history: skip commits whose message has fewer words")
	configFile := fs.String("config", "", "a configuration file (the .aide/config.json format: providers, prices, requestTimeoutSeconds, ...)")
	keep := fs.Bool("keep", false, "keep each run's copy (with its .aide/sessions) and name it in the report")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := failer("bench", stderr)
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q: the tasks come from the suite (pick some with --task)", fs.Arg(0))
	}
	if *runs < 1 {
		return fail(exitUsage, "--runs %d: run each task at least once", *runs)
	}
	recordDir := record.dir(*cassettes)
	if record.to != "" && *cassettes != "" && record.to != *cassettes {
		return fail(exitUsage, "--cassettes replays recorded calls and --record=DIR records live ones: one report never mixes the two; pick one")
	}
	if record.set && recordDir == "" {
		return fail(exitUsage, "--record records into the cassette folder: name it with --cassettes DIR --record")
	}
	replayDir := *cassettes
	if recordDir != "" {
		replayDir = ""
	}
	if *history < 0 {
		return fail(exitUsage, "--history %d: pick at least one commit", *history)
	}
	if *history > 0 || *resume != "" {
		return runHistoryBench(historyArgs{fs: fs, n: *history, dir: *dir, explain: *explain, checks: checks, json: *jsonOut,
			html: *htmlOut, out: *out, resume: *resume, cassettes: replayDir, record: recordDir, configFile: *configFile,
			archModel: *archModel, edModel: *edModel, oneCallModel: *oneCallModel, modes: *modes, keep: *keep,
			limits: bench.PickLimits{MaxFiles: *maxFiles, MaxLines: *maxLines, MinWords: *minWords}}, stdout, stderr)
	}
	if *htmlOut || len(checks) > 0 || *explain {
		return fail(exitUsage, "--html, --check and --explain go with --history N")
	}
	modeList, err := bench.ParseModes(*modes)
	if err != nil {
		return fail(exitUsage, "--modes: %v", err)
	}
	modesSet := false
	fs.Visit(func(f *flag.Flag) { modesSet = modesSet || f.Name == "modes" })

	// The configuration: defaults, the environment, --config, then the flags.
	// The configuration: defaults, the user's file, --config (the user's
	// own, so routing keys apply), the environment, then the flags. No
	// workspace file: the tasks are copies, not the user's workspace.
	var extra []config.Layer
	if *configFile != "" {
		raw, err := workspace.ReadRegular(*configFile, workspace.MaxConfigBytes)
		if err != nil {
			return fail(exitUsage, "--config: %v", err)
		}
		extra = append(extra, config.Layer{Source: *configFile, Origin: config.FromUser, Raw: raw})
	}
	loaded := loadConfig("bench", "", *archModel, *edModel, extra, stderr)
	if fp := loaded.FlagProblems; len(fp) > 0 {
		return fail(exitUsage, "%s", fp[0])
	}
	cfg := loaded.Config

	suite, err := bench.LoadSuite(*suiteDir, tasks)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	opts := bench.Options{Suite: suite, Modes: modeList, Runs: *runs, Config: cfg, Version: version,
		Keep: *keep, Progress: stderr}
	if replayDir != "" {
		// A cassette run replays what was recorded: its models, and by
		// default its tasks and modes. Model flags must agree with it.
		m, err := bench.LoadManifest(*cassettes)
		if err != nil {
			return fail(exitUsage, "--cassettes: %v", err)
		}
		opts.CassetteDir = *cassettes
		fmt.Fprintf(stderr, "aide: REPLAY of the calls recorded in %s: no model is called\n", *cassettes)
		opts.ArchitectModel, opts.EditorModel, opts.OneCallModel = *archModel, *edModel, *oneCallModel
		if len(tasks) == 0 {
			var names []string
			for n := range m.Tasks {
				names = append(names, n)
			}
			if opts.Suite, err = bench.LoadSuite(*suiteDir, names); err != nil {
				return fail(exitUsage, "--cassettes: %v", err)
			}
		}
		if !modesSet {
			if opts.Modes, err = bench.ParseModes(strings.Join(m.Modes, ",")); err != nil {
				return fail(exitUsage, "--cassettes: %v", err)
			}
		}
		// Prices are not part of a recording: those of --config apply.
	} else {
		opts.ArchitectModel, opts.EditorModel, opts.OneCallModel = cfg.ArchitectModel, cfg.EditorModel, *oneCallModel
		router, ids, err := liveRouter(cfg, *oneCallModel)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		opts.Model = router
		opts.RecordDir = recordDir
		if recordDir != "" {
			opts.RecordNote = "recorded from live calls to " + strings.Join(ids, ", ")
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := bench.Run(ctx, opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fail(exitFailed, "--out: %v", err)
		}
		defer f.Close()
		w = f
	}
	if *jsonOut {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteMarkdown(w)
	}
	if err != nil {
		return fail(exitFailed, "writing the report: %v", err)
	}
	if *out != "" {
		fmt.Fprintf(stderr, "aide: report written to %s\n", *out)
	}
	if recordDir != "" {
		fmt.Fprintf(stderr, "aide: cassettes recorded in %s\n", recordDir)
	}
	errorsOnly := len(rep.Results) > 0
	for _, r := range rep.Results {
		errorsOnly = errorsOnly && r.EngineError
	}
	if errorsOnly {
		return fail(exitFailed, "every run failed in the engine (see the notes in the report): nothing was measured")
	}
	if rep.Interrupted {
		return fail(exitFailed, "interrupted: the report counts only the finished runs")
	}
	return exitOK
}

// recordFlag is --record: a switch that makes --cassettes DIR the folder
// to record into (the old spelling --record=DIR names it directly).
type recordFlag struct {
	set bool
	to  string
}

func (r *recordFlag) String() string   { return r.to }
func (r *recordFlag) IsBoolFlag() bool { return true }
func (r *recordFlag) Set(v string) error {
	switch v {
	case "true":
		r.set = true
	case "false":
		r.set = false
	default:
		r.set, r.to = true, v
	}
	return nil
}

// dir is the folder to record into, "" when not recording.
func (r recordFlag) dir(cassettes string) string {
	switch {
	case !r.set:
		return ""
	case r.to != "":
		return r.to
	}
	return cassettes
}

// liveRouter is the router of a live bench, with every model it will call
// resolved and its key present: a missing key is a usage error before
// anything runs, not a column of failed runs.
func liveRouter(cfg config.Config, oneCallModel string) (*model.Router, []string, error) {
	ropts := routerOptions(cfg)
	ropts.Timeout = time.Duration(cfg.RequestTimeoutSeconds) * time.Second
	router := model.NewRouter(cfg.Providers, ropts)
	ids := []string{cfg.ArchitectModel, cfg.EditorModel}
	if oneCallModel != "" {
		ids = append(ids, oneCallModel)
	}
	for _, id := range ids {
		res, err := router.Resolve(id)
		if err != nil {
			return nil, nil, err
		}
		if res.APIKeyEnv != "" && os.Getenv(res.APIKeyEnv) == "" {
			return nil, nil, fmt.Errorf("%s needs %s: export it, or pick another model with --architect-model/--editor-model", id, res.APIKeyEnv)
		}
	}
	return router, ids, nil
}
