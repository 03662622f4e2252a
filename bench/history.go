package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/verify"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// The history bench (docs/bench.md "Your own history"): the recent commits
// of the user's repository as tasks. A commit's message is the task, its
// parent's tracked files the starting copy (unpacked outside the tree),
// the files it touched the focus, its diff one right answer. The engine is
// the one of `run --apply` (driveEngine); the checks are the user's
// `verify` commands and --check, run by the verify package, never here.

// HistoryOptions configure a history bench. Of the embedded Options, the
// suite and runs are unused: each commit runs once per mode.
type HistoryOptions struct {
	Options
	Dir    string // the repository's top folder (absolute)
	N      int    // commits to pick
	Limits PickLimits
	// Checks are the user's verify commands (only those the configuration
	// grants: the user's file, a trusted workspace file) and --check.
	Checks []verify.Command
	// Resume is the report of an interrupted run to go on from.
	Resume *HistoryReport
}

// HistoryKind marks a history report (and a state to resume).
const HistoryKind = "aide-lsp bench --history"

// RunHistory picks the commits, runs every one in every mode, and reports.
// Interrupted (ctx), it returns the report of what finished, marked so.
func RunHistory(ctx context.Context, o HistoryOptions) (*HistoryReport, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := o.checkSource(); err != nil {
		return nil, err
	}
	if len(o.Modes) == 0 {
		o.Modes = []Mode{ModeOneCall, ModeTwoPass}
	}
	rep := &HistoryReport{Source: SourceLive, Kind: HistoryKind, Version: o.Version, Date: o.Now().UTC(), Repo: o.Dir,
		Limits: o.Limits, Prices: o.Config.Prices}
	for _, m := range o.Modes {
		rep.Modes = append(rep.Modes, string(m))
	}
	for _, c := range o.Checks {
		rep.Checks = append(rep.Checks, c.Name+": "+c.String())
	}
	done := map[string]HistoryResult{}
	if r := o.Resume; r != nil {
		if r.Kind != HistoryKind {
			return nil, fmt.Errorf("--resume: not a history report (kind %q)", r.Kind)
		}
		if strings.Join(r.Modes, ",") != strings.Join(rep.Modes, ",") {
			return nil, fmt.Errorf("--resume: that run measured the modes %s, not %s", strings.Join(r.Modes, ","), strings.Join(rep.Modes, ","))
		}
		if strings.Join(r.Checks, "\n") != strings.Join(rep.Checks, "\n") {
			return nil, fmt.Errorf("--resume: that run checked with %q, not %q: give the same --check (and verify commands)", r.Checks, rep.Checks)
		}
		rep.Picked, rep.Skipped, rep.Limits = r.Picked, r.Skipped, r.Limits
		for _, res := range r.Results {
			done[res.Commit+" "+res.Mode] = res
		}
	} else {
		ws, err := workspace.Open([]string{o.Dir}, o.Config.Deny)
		if err != nil {
			return nil, err
		}
		if rep.Picked, rep.Skipped, err = PickCommits(ctx, o.Dir, o.N, o.Limits, ws); err != nil {
			return nil, err
		}
	}
	if len(rep.Picked) == 0 {
		return nil, fmt.Errorf("no commit of %s could be a task (of %d looked at): see why with --explain, or widen the limits", o.Dir, len(rep.Skipped))
	}
	if err := o.historySource(rep); err != nil {
		return nil, err
	}
	if o.OneCallModel == "" {
		o.OneCallModel = o.ArchitectModel
	}
	if o.EditorModel == "" {
		o.EditorModel = o.ArchitectModel
	}
	if r := o.Resume; r != nil {
		for _, res := range r.Results {
			if want := pairOf(o.Options, Mode(res.Mode)); res.ArchitectModel != want[0] || res.EditorModel != want[1] {
				return nil, fmt.Errorf("--resume: that run used %s → %s for %s, not %s → %s", res.ArchitectModel, res.EditorModel, res.Mode, want[0], want[1])
			}
		}
	}

	work, cleanup, err := o.Options.workFolder("aide-bench-history-*")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if o.Keep {
		rep.WorkDir = work
	}

	total := len(rep.Picked) * len(o.Modes)
	todo := total - len(done)
	start, ran := time.Now(), 0
	g := gitRepo{dir: o.Dir}
	for i, c := range rep.Picked {
		if ctx.Err() != nil {
			break
		}
		var pending []Mode
		for _, m := range o.Modes {
			if res, ok := done[c.Hash+" "+string(m)]; ok {
				rep.Results = append(rep.Results, res)
			} else {
				pending = append(pending, m)
			}
		}
		if len(pending) == 0 {
			continue
		}
		base := filepath.Join(work, c.Short(), "base")
		if err := os.MkdirAll(base, 0o755); err != nil {
			return nil, err
		}
		if err := g.archive(ctx, c.Parent, base); err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, fmt.Errorf("%s: copying the parent's files: %v", c.Short(), err)
		}
		want := map[string]lineChange{}
		for _, f := range c.Files {
			if ch := changeOf(g.blob(ctx, c.Parent, f), g.blob(ctx, c.Hash, f)); ch.size() > 0 {
				want[f] = ch
			}
		}
		for _, mode := range pending {
			if ctx.Err() != nil {
				break
			}
			res, err := o.runCommit(ctx, work, base, c, mode, want)
			if err != nil {
				return nil, err
			}
			if ctx.Err() != nil {
				break // interrupted mid-run: that run is dropped
			}
			rep.Results = append(rep.Results, res)
			ran++
			if o.Progress != nil {
				elapsed := time.Since(start)
				left := time.Duration(float64(elapsed) / float64(ran) * float64(todo-ran))
				fmt.Fprintf(o.Progress, "%s commit %d/%d · %s · %s %s: %s · elapsed %s, about %s left\n",
					progressBar(len(done)+ran, total), i+1, len(rep.Picked), mode, c.Short(), termLine(c.Subject, 50),
					strings.ToUpper(res.Outcome()), elapsed.Round(time.Second), left.Round(time.Second))
			}
		}
		if !o.Keep {
			_ = os.RemoveAll(filepath.Join(work, c.Short()))
		}
	}
	rep.Interrupted = len(rep.Results) < total
	rep.sortResults()
	rep.aggregate()
	return rep, nil
}

// historySource sets the report's source and refuses cassettes that do not
// hold every picked commit in every mode; with --record it writes the
// manifest.
func (o *HistoryOptions) historySource(rep *HistoryReport) error {
	switch {
	case o.CassetteDir != "":
		m, err := LoadManifest(o.CassetteDir)
		if err != nil {
			return err
		}
		for _, pair := range [][2]string{{o.ArchitectModel, m.ArchitectModel}, {o.EditorModel, m.EditorModel}, {o.OneCallModel, m.OneCallModel}} {
			if pair[0] != "" && pair[0] != pair[1] {
				return fmt.Errorf("the cassettes in %s were recorded with %s (architect), %s (editor), %s (one call), not %s: a replay replays the models it was recorded with; drop the model flags",
					o.CassetteDir, m.ArchitectModel, m.EditorModel, m.OneCallModel, pair[0])
			}
		}
		for _, c := range rep.Picked {
			for _, mode := range o.Modes {
				if m.Tasks[c.Hash] != c.Hash {
					return fmt.Errorf("the cassettes in %s hold no runs of commit %s (%s): replay the --history N they were recorded with, on the repository they were recorded on", o.CassetteDir, c.Short(), c.Subject)
				}
				if _, err := os.Stat(cassettePath(o.CassetteDir, mode, c.Hash, 1)); err != nil {
					return fmt.Errorf("no cassette for commit %s in %s mode in %s", c.Short(), mode, o.CassetteDir)
				}
			}
		}
		rep.Source = SourceCassette
		rep.Cassettes = &CassetteInfo{Dir: o.CassetteDir, Recorded: m.Recorded, Note: m.Note, SuiteVersion: m.SuiteVersion}
		o.ArchitectModel, o.EditorModel, o.OneCallModel = m.ArchitectModel, m.EditorModel, m.OneCallModel
	case o.RecordDir != "":
		m := Manifest{Kind: ManifestKind, Recorded: rep.Date, Note: o.RecordNote, ArchitectModel: o.ArchitectModel,
			EditorModel: o.EditorModel, OneCallModel: o.OneCallModel, SuiteVersion: "history", Modes: rep.Modes, Runs: 1,
			Tasks: map[string]string{}}
		if m.OneCallModel == "" {
			m.OneCallModel = m.ArchitectModel
		}
		if m.EditorModel == "" {
			m.EditorModel = m.ArchitectModel
		}
		if m.Note == "" {
			m.Note = "recorded from live model calls"
		}
		for _, c := range rep.Picked {
			m.Tasks[c.Hash] = c.Hash
		}
		if err := writeManifest(o.RecordDir, m); err != nil {
			return fmt.Errorf("--record %s: %v", o.RecordDir, err)
		}
	}
	return nil
}

// pairOf is the architect and editor of a mode ("" editor in one call).
func pairOf(o Options, mode Mode) [2]string {
	if mode == ModeOneCall {
		return [2]string{o.OneCallModel, ""}
	}
	return [2]string{o.ArchitectModel, o.EditorModel}
}

// runCommit runs one commit in one mode on a fresh copy of base.
func (o *HistoryOptions) runCommit(ctx context.Context, work, base string, c Commit, mode Mode, want map[string]lineChange) (HistoryResult, error) {
	pair := pairOf(o.Options, mode)
	res := HistoryResult{Commit: c.Hash, Subject: c.Subject, RunResult: RunResult{Task: c.Short(), Language: c.Language,
		Kind: "commit", Mode: string(mode), Run: 1, ArchitectModel: pair[0], EditorModel: pair[1]}}
	dir := filepath.Join(work, c.Short(), string(mode))
	if err := os.RemoveAll(dir); err != nil {
		return res, err
	}
	if err := copyTree(base, dir); err != nil {
		return res, fmt.Errorf("%s: copying the parent's files: %v", c.Short(), err)
	}
	if o.Keep {
		res.Workdir = dir
	}
	task := Task{Name: c.Hash, Instruction: c.Task(), Files: c.Focus}
	if err := driveEngine(ctx, o.Options, work, dir, mode, task, c.Hash, 1, &res.RunResult); err != nil || ctx.Err() != nil {
		return res, err
	}
	got, files, err := treeChange(base, dir)
	if err != nil {
		return res, fmt.Errorf("%s: reading the result: %v", c.Short(), err)
	}
	res.Closeness = closeness(want, got)
	res.Refused = !res.EngineError && res.Counts.Proposed == 0
	// A run that changed nothing passes nothing: the parent's tree
	// passes its own checks, and that says nothing of the model.
	res.Checked = len(o.Checks) > 0
	if res.Checked && len(got) > 0 {
		start := time.Now()
		vr, err := verify.Run(ctx, verify.Options{Root: dir, Files: files, Commands: o.Checks, KeyVars: o.Config.KeyVars()})
		res.CheckSeconds = time.Since(start).Seconds()
		if ctx.Err() != nil {
			return res, nil
		}
		res.CheckExit = 0
		switch f := vr.Failed(); {
		case err != nil:
			res.CheckError = "the checks could not run: " + err.Error()
			res.CheckExit = -1
		case f != nil:
			res.CheckExit, res.CheckTimedOut, res.CheckError = 1, f.TimedOut, f.Summary()
			res.CheckOutput = verify.Tail(f.Output, 40)
		default:
			res.Passed = true
		}
	}
	if !o.Keep {
		_ = os.RemoveAll(dir)
	}
	return res, nil
}

// treeChange compares the copy after the edits with the parent's files:
// the change per file, and every file of the copy (for the checks). What
// the engine itself wrote under .aide/ (sessions, plans, cache) is neither
// the result nor part of the project, unless the project tracks it.
func treeChange(base, dir string) (map[string]lineChange, []string, error) {
	baseFiles, err := listFiles(base)
	if err != nil {
		return nil, nil, err
	}
	inBase := map[string]bool{}
	for _, f := range baseFiles {
		inBase[f] = true
	}
	dirFiles, err := listFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range dirFiles {
		if strings.HasPrefix(f, ".aide/") && !inBase[f] {
			continue
		}
		files = append(files, f)
		seen[f] = true
	}
	out := map[string]lineChange{}
	for _, f := range append(append([]string(nil), files...), baseFiles...) {
		old, _ := os.ReadFile(filepath.Join(base, filepath.FromSlash(f)))
		var now []byte
		if seen[f] {
			now, _ = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		}
		if _, done := out[f]; done || string(old) == string(now) {
			continue
		}
		if ch := changeOf(old, now); ch.size() > 0 {
			out[f] = ch
		}
	}
	return out, files, nil
}

// listFiles lists the regular files under dir, slash-separated, sorted.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// progressBar draws done of total as a bar of 20 cells.
func progressBar(done, total int) string {
	n := 0
	if total > 0 {
		n = 20 * done / total
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", 20-n) + "]"
}

// termLine is s on one line, at most n runes.
func termLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// RepoTop is the top folder of the git repository holding dir.
func RepoTop(ctx context.Context, dir string) (string, error) {
	out, err := gitRepo{dir: dir}.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s: %v (bench --history reads a repository's commits: pass one with --dir)", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}
