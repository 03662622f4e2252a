package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/bench"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/verify"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// historyArgs are the flags of `aide-lsp bench --history N`.
type historyArgs struct {
	fs                                      *flag.FlagSet
	n                                       int
	dir                                     string
	explain                                 bool
	checks                                  []string
	json, html                              bool
	out, resume                             string
	cassettes, record                       string
	configFile                              string
	archModel, edModel, oneCallModel, modes string
	keep                                    bool
	limits                                  bench.PickLimits
}

// maxResumeBytes bounds the report --resume reads.
const maxResumeBytes = 64 << 20

// runHistoryBench is `aide-lsp bench --history N` (docs/bench.md "Your own
// history"): the repository's recent commits as tasks.
func runHistoryBench(a historyArgs, stdout, stderr io.Writer) int {
	fail := failer("bench", stderr)
	switch {
	case a.fs.NArg() > 0:
		return fail(exitUsage, "unexpected argument %q", a.fs.Arg(0))
	case a.json && a.html:
		return fail(exitUsage, "--json and --html: pick one format")
	case a.limits.MaxFiles < 1 || a.limits.MaxLines < 1 || a.limits.MinWords < 0:
		return fail(exitUsage, "--max-files and --max-lines must be at least 1, --min-words at least 0")
	}
	modeList, err := bench.ParseModes(a.modes)
	if err != nil {
		return fail(exitUsage, "--modes: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var resume *bench.HistoryReport
	if a.resume != "" {
		raw, err := workspace.ReadRegular(a.resume, maxResumeBytes)
		if err != nil {
			return fail(exitUsage, "--resume: %v", err)
		}
		if resume, err = bench.ParseHistoryReport(raw); err != nil {
			return fail(exitUsage, "--resume %s: %v", a.resume, err)
		}
		a.dir = resume.Repo
		if modeList, err = bench.ParseModes(strings.Join(resume.Modes, ",")); err != nil {
			return fail(exitUsage, "--resume %s: %v", a.resume, err)
		}
		if a.archModel == "" && a.edModel == "" && a.oneCallModel == "" {
			// The models go on as they were, unless the flags say otherwise
			// (then a different pair is refused, not mixed in).
			for _, r := range resume.Results {
				if r.Mode == string(bench.ModeTwoPass) {
					a.archModel, a.edModel = r.ArchitectModel, r.EditorModel
				} else {
					a.oneCallModel = r.ArchitectModel
				}
			}
		}
		if a.cassettes == "" && a.record == "" && resume.Cassettes != nil {
			a.cassettes = resume.Cassettes.Dir // a replay goes on replaying
		}
	}
	abs, err := filepath.Abs(a.dir)
	if err != nil {
		return fail(exitUsage, "--dir: %v", err)
	}
	top, err := bench.RepoTop(ctx, abs)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}

	// The repository's own .aide/config.json counts with its trust (its
	// verify commands only once trusted, contract §3), below the user's.
	var extra []config.Layer
	if a.configFile != "" {
		raw, err := workspace.ReadRegular(a.configFile, workspace.MaxConfigBytes)
		if err != nil {
			return fail(exitUsage, "--config: %v", err)
		}
		extra = append(extra, config.Layer{Source: a.configFile, Origin: config.FromUser, Raw: raw})
	}
	loaded := loadConfig("bench", top, a.archModel, a.edModel, extra, stderr)
	if fp := loaded.FlagProblems; len(fp) > 0 {
		return fail(exitUsage, "%s", fp[0])
	}
	cfg := loaded.Config
	checks := append([]verify.Command(nil), cfg.Verify...)
	for i, c := range a.checks {
		checks = append(checks, verify.Command{Name: fmt.Sprintf("check %d", i+1), Run: []string{"sh", "-c", c}})
	}

	opts := bench.HistoryOptions{Options: bench.Options{Modes: modeList, Config: cfg, Version: version, Keep: a.keep, Progress: stderr},
		Dir: top, N: a.n, Limits: a.limits, Checks: checks, Resume: resume}
	if a.cassettes != "" {
		opts.CassetteDir = a.cassettes
		opts.ArchitectModel, opts.EditorModel, opts.OneCallModel = a.archModel, a.edModel, a.oneCallModel
		fmt.Fprintf(stderr, "aide: REPLAY of the calls recorded in %s: no model is called\n", a.cassettes)
	} else {
		router, ids, err := liveRouter(cfg, a.oneCallModel)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		opts.Model = router
		opts.ArchitectModel, opts.EditorModel, opts.OneCallModel = cfg.ArchitectModel, cfg.EditorModel, a.oneCallModel
		opts.RecordDir = a.record
		if a.record != "" {
			opts.RecordNote = "recorded from live calls to " + strings.Join(ids, ", ")
		}
	}
	rep, err := bench.RunHistory(ctx, opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	fmt.Fprintf(stderr, "aide: %d commit(s) picked, %d skipped", len(rep.Picked), len(rep.Skipped))
	if !a.explain && len(rep.Skipped) > 0 {
		fmt.Fprintf(stderr, " (--explain says why)")
	}
	fmt.Fprintln(stderr)
	if a.explain {
		for _, c := range rep.Picked {
			fmt.Fprintf(stderr, "  picked  %s %s (%d file(s), %d line(s))\n", c.Short(), termSafe(c.Subject), len(c.Files), c.Lines)
		}
		for _, c := range rep.Skipped {
			fmt.Fprintf(stderr, "  skipped %s %s: %s\n", c.Short(), termSafe(c.Subject), termSafe(c.Skipped))
		}
	}
	if code := writeHistoryReport(rep, a, stdout, stderr); code != exitOK {
		return code
	}
	if rep.Interrupted {
		return fail(exitFailed, "interrupted: the report counts only the finished runs")
	}
	return exitOK
}

// writeHistoryReport writes the report in its format to --out or stdout.
// An interrupted run's JSON is also its state: when the report is in
// another format, the JSON goes beside it (or to the temporary folder) for
// --resume.
func writeHistoryReport(rep *bench.HistoryReport, a historyArgs, stdout, stderr io.Writer) int {
	fail := failer("bench", stderr)
	write := func(w io.Writer, json bool) error {
		switch {
		case json:
			return rep.WriteJSON(w)
		case a.html:
			return rep.WriteHTML(w)
		}
		return rep.WriteMarkdown(w)
	}
	toFile := func(path string, json bool) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := write(f, json); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if a.out == "" {
		if err := write(stdout, a.json); err != nil {
			return fail(exitFailed, "writing the report: %v", err)
		}
	} else {
		if err := toFile(a.out, a.json); err != nil {
			return fail(exitFailed, "--out: %v", err)
		}
		fmt.Fprintf(stderr, "aide: report written to %s\n", a.out)
	}
	if a.record != "" {
		fmt.Fprintf(stderr, "aide: cassettes recorded in %s\n", a.record)
	}
	if !rep.Interrupted {
		return exitOK
	}
	state := a.out
	if !a.json || state == "" {
		if a.out != "" {
			state = a.out + ".resume.json"
		} else {
			state = filepath.Join(os.TempDir(), fmt.Sprintf("aide-bench-history-%s.json", time.Now().UTC().Format("20060102-150405")))
		}
		if err := toFile(state, true); err != nil {
			return fail(exitFailed, "writing the state to resume from: %v", err)
		}
	}
	fmt.Fprintf(stderr, "aide: go on with: aide-lsp bench --resume %s", state)
	if a.out != "" {
		fmt.Fprintf(stderr, " --out %s", a.out)
	}
	fmt.Fprintln(stderr)
	return exitOK
}
