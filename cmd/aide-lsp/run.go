package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/undo"
	"github.com/aide-lsp/aide-lsp/verify"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const runUsage = `Usage: aide-lsp run [flags] TASK

Runs architect → editor headless on a folder: the architect writes a plan, the
editor turns it into edits, and the plan and a unified diff are printed.
Progress goes to stderr, the result to stdout. Nothing is written unless --apply;
--apply writes all the edits or none, and only files the plan, the task or --file
name (--allow-unplanned for others), sensitive files (CI workflows, Makefile,
*.sh, .vscode/tasks.json, package.json scripts, git hooks) only with
--allow-sensitive. The verify commands of your configuration run on a scratch
copy before anything is proposed (--no-verify skips them); --apply writes nothing
when the last verification failed, unless --allow-failing.

Examples:
  aide-lsp run --dir ~/src/app "add a --verbose flag to main.go"
  aide-lsp run --file server/retry.go "extract the retry loop into a helper"
  aide-lsp run --file server/retry.go          (the task is the file's "AI:" comment)
  aide-lsp run --architect-model anthropic/claude-sonnet-4-5 --editor-model ollama/qwen2.5-coder:14b "..."
  aide-lsp run --plan-only "how would you split this package?"
  aide-lsp run --json "rename Foo to Bar" | jq .diff
  aide-lsp run --apply "fix the typo in README.md"
  aide-lsp run --replay examples/cassettes/shop-total.json --dir examples/shop --file cart.go
                                (recorded answers: no model is called)

Exit status: 0 done; 1 the work failed (model unreachable, no usable edits);
2 usage or configuration error.

Flags:
`

type fileFlags []string

func (m *fileFlags) String() string     { return strings.Join(*m, ",") }
func (m *fileFlags) Set(v string) error { *m = append(*m, v); return nil }

// runRun is `aide-lsp run` (contract §2): the engine of the server, driven
// headless with a client that prints.
func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", runUsage)
	dir := fs.String("dir", ".", "workspace root")
	var files fileFlags
	fs.Var(&files, "file", "focus file (repeatable)")
	archModel := fs.String("architect-model", "", "model id provider/model for the architect")
	edModel := fs.String("editor-model", "", "model id provider/model for the editor")
	oneCall := fs.Bool("one-call", false, "skip the architect (single editor call)")
	apply := fs.Bool("apply", false, "write the edits to disk (default: only print)")
	jsonOut := fs.Bool("json", false, "print one JSON object: plan, proposals, diff, usage, events")
	planOnly := fs.Bool("plan-only", false, "stop after the architect's plan")
	allowUnplanned := fs.Bool("allow-unplanned", false, "with --apply: also write files the plan, the task and --file do not name")
	allowSensitive := fs.Bool("allow-sensitive", false, "with --apply: also write sensitive files (CI workflows, Makefile, *.sh, .vscode/tasks.json, package.json scripts, git hooks, ...)")
	noVerify := fs.Bool("no-verify", false, "propose without running the verify commands of your configuration")
	allowFailing := fs.Bool("allow-failing", false, "with --apply: write even when the last verification failed")
	replay := fs.String("replay", "", "answer every model call from this recorded cassette file (no model is called); also AIDE_REPLAY")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	// What the model wrote is printed: on a terminal it cannot carry
	// escape sequences (stderr always, stdout when it is a terminal).
	stderr = safeWriter{stderr}
	if !*jsonOut && isTerminal(stdout) {
		stdout = safeWriter{stdout}
	}
	fail := failer("run", stderr)
	if *planOnly && (*oneCall || *apply) {
		return fail(exitUsage, "--plan-only stops before any edit: drop --one-call and --apply")
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))

	root, err := workspaceDir(*dir)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}

	loaded := loadConfig("run", root, *archModel, *edModel, nil, stderr)
	if len(loaded.FlagProblems) > 0 {
		return fail(exitUsage, "%s", loaded.FlagProblems[0])
	}
	cfg := loaded.Config
	if *noVerify {
		cfg.Verify = nil
	}
	if len(cfg.Verify) > 0 {
		verify.Sweep() // scratch copies a killed run left behind
	}
	var client model.Client // nil: the configuration's Router (app.Open)
	if *replay == "" {
		*replay = os.Getenv("AIDE_REPLAY")
	}
	if *replay != "" {
		// A replay is the command line's own choice (never a config
		// file's), and it always says that no model answers.
		rp, err := model.LoadReplay(*replay)
		if err != nil {
			return fail(exitUsage, "--replay: %v", err)
		}
		name := "replay/" + strings.TrimSuffix(filepath.Base(*replay), filepath.Ext(*replay))
		if *archModel == "" {
			cfg.ArchitectModel = name
		}
		if *edModel == "" {
			cfg.EditorModel = name
		}
		fmt.Fprintf(stderr, "aide: REPLAY of %s: no model is called; every answer was recorded\n", *replay)
		client = rp // a replay's answers are not calls: no call history
	} else {
		router := model.NewRouter(cfg.Providers, routerOptions(cfg))
		for _, id := range []string{cfg.ArchitectModel, cfg.EditorModel} {
			if _, err := router.Resolve(id); err != nil {
				return fail(exitUsage, "%v", err)
			}
		}
	}

	// The engine of every front end (app.Open): the apply journal, the
	// undo records and the call history in the user's state folder.
	hl := &headless{stderr: stderr, quiet: false}
	var hc *commands.HeadlessClient
	opened, err := app.Open(app.Options{Roots: []string{root}, Config: &cfg, Model: client,
		ClientFor: func(ws *workspace.Workspace) commands.Client {
			hc = commands.NewHeadlessClient(ws, hl)
			return hc
		},
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	ws := opened.Workspace
	if msg := ws.Interrupted(); msg != "" {
		fmt.Fprintf(stderr, "aide-lsp run: warning: %s\n", msg)
	}
	killApplyAt(os.Getenv("AIDE_TEST_KILL_APPLY"))
	if msg := ws.IgnoreWarning(); msg != "" {
		fmt.Fprintf(stderr, "aide-lsp run: warning: %s\n", msg)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	stopProgress := indexProgress(opened.Index, "aide", stderr)
	go opened.BuildIndex(ctx, nil, func(string) {}) // its warning is told above
	res, err := commands.RunHeadless(ctx, commands.HeadlessOptions{
		Engine: opened.Engine, Client: hc,
		Task: task, Files: files,
		OneCall: *oneCall, PlanOnly: *planOnly, Progress: progressTo{stderr},
	})
	stopProgress()
	if errors.Is(err, commands.ErrNoTask) {
		return fail(exitUsage, "no task: give it as an argument (aide-lsp run \"add retries to fetch\"), or point --file at a file with an \"AI:\" comment")
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	view, applied, problem := res.View, res.Applied, res.Problem
	if *apply && res.Proposed && problem == "" && res.Unresolved > 0 {
		problem = commands.UnresolvedProblem(res.Unresolved)
	} else if *apply && res.Proposed && problem == "" && !*allowFailing && verifyFailed(view) != "" {
		// What failed its checks is shown, never written unasked
		// (contract §2 --allow-failing).
		problem = "the last verification failed (" + verifyFailed(view) + "): nothing was written; fix the plan or the configuration, or rerun with --allow-failing"
	} else if *apply && res.Proposed && problem == "" {
		applied, problem = applyRun(ctx, ws, res, files, applyPolicy{named: view.Task + "\n" + task + "\n" + view.Plan.Text,
			allowUnplanned: *allowUnplanned, allowSensitive: *allowSensitive}, stderr)
		view, _ = res.Engine.View(res.Session)
	}
	code := exitOK
	if problem != "" {
		code = exitFailed
	}

	if *jsonOut {
		writeJSONResult(stdout, res.Engine, view, hl, applied, problem, *replay)
	} else {
		if view.Plan.Text != "" {
			fmt.Fprintf(stdout, "## Plan\n\n%s\n\n## End Plan\n", view.Plan.Text)
			if view.Plan.Truncated {
				fmt.Fprintf(stdout, "(the plan was cut to its first %d characters)\n", 8192)
			}
		}
		if view.Diff != "" {
			if view.Plan.Text != "" {
				fmt.Fprintln(stdout)
			}
			fmt.Fprint(stdout, view.Diff)
			if !strings.HasSuffix(view.Diff, "\n") {
				fmt.Fprintln(stdout)
			}
		}
	}
	if len(applied) > 0 {
		fmt.Fprintf(stderr, "aide: wrote %s\n", strings.Join(applied, ", "))
	}
	if problem != "" {
		fmt.Fprintf(stderr, "aide-lsp run: %s\n", oneLine(problem))
	}
	return code
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// verifyFailed names the command of the last verification that failed,
// with why; "" when it passed or nothing was verified.
func verifyFailed(v commands.View) string {
	for _, r := range v.Verification {
		if !r.OK {
			if r.Err != "" {
				return r.Name + ": " + r.Err
			}
			return r.Name
		}
	}
	return ""
}

func writeJSONResult(w io.Writer, eng *commands.Engine, v commands.View, c *headless, applied []string, problem, replay string) {
	type proposal struct {
		ID      string `json:"id"`
		Path    string `json:"path"`
		Kind    string `json:"kind"`
		NewPath string `json:"newPath,omitempty"`
		Summary string `json:"summary"`
		Status  string `json:"status"`
	}
	out := struct {
		Session   string           `json:"session"`
		State     string           `json:"state"`
		Plan      string           `json:"plan"`
		Proposals []proposal       `json:"proposals"`
		Diff      string           `json:"diff"`
		Usage     any              `json:"usage"`
		Events    []commands.Event `json:"events"`
		Applied   []string         `json:"applied,omitempty"`
		Error     string           `json:"error,omitempty"`
		Replay    string           `json:"replay,omitempty"` // the cassette answered: no model was called
	}{Replay: replay, Session: v.Session, State: string(v.State), Plan: v.Plan.Text, Proposals: []proposal{}, Diff: v.Diff,
		Usage: eng.Cost(), Applied: applied, Error: problem}
	for _, h := range v.Hunks {
		out.Proposals = append(out.Proposals, proposal{ID: h.Hunk.ID, Path: h.Hunk.Path, Kind: string(h.Hunk.Kind),
			NewPath: h.Hunk.NewPath, Summary: h.Hunk.Summary, Status: string(h.Status)})
	}
	c.mu.Lock()
	out.Events = append([]commands.Event{}, c.events...)
	c.mu.Unlock()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

// headless is what the CLI hears of a run (commands.Observer): events are
// kept for --json and told on stderr as they happen.
type headless struct {
	stderr io.Writer
	quiet  bool

	mu     sync.Mutex
	events []commands.Event
}

func (h *headless) SessionEvent(ev commands.Event) {
	h.mu.Lock()
	h.events = append(h.events, ev)
	h.mu.Unlock()
	switch d := ev.Data.(type) {
	case commands.PassData: // architect_pass
		fmt.Fprintf(h.stderr, "aide: architect %s: %d prompt + %d completion tokens, %d ms\n", d.Model, d.PromptTokens, d.CompletionTokens, d.Ms)
	case commands.EditorPassData:
		fmt.Fprintf(h.stderr, "aide: editor %s: %d prompt + %d completion tokens, %d ms\n", d.Model, d.PromptTokens, d.CompletionTokens, d.Ms)
	case commands.PlanData:
		fmt.Fprintf(h.stderr, "aide: plan ready (cycle %d)\n", d.Cycle)
	case commands.FallbackData:
		fmt.Fprintf(h.stderr, "aide: fallback (%s): %s\n", d.Kind, d.Reason)
	case commands.DriftData:
		fmt.Fprintf(h.stderr, "aide: files changed since the plan\n")
	case commands.ProposalData:
		if d.AIComment {
			fmt.Fprintf(h.stderr, "aide: and 1 more: remove the AI comment the task came from\n")
		} else {
			fmt.Fprintf(h.stderr, "aide: %d edit(s) proposed\n", len(d.Hunks))
		}
	case commands.ErrorData:
		fmt.Fprintf(h.stderr, "aide: error: %s\n", d.Message)
	case commands.VerifyData:
		if d.OK {
			fmt.Fprintf(h.stderr, "aide: verify %s: ok (%d ms)\n", d.Name, d.Ms)
		} else {
			fmt.Fprintf(h.stderr, "aide: verify %s: FAILED (%d ms)\n%s\n", d.Name, d.Ms, d.Output)
		}
	}
}

func (h *headless) Message(level, text string) {
	fmt.Fprintf(h.stderr, "aide: %s: %s\n", level, text)
}

type progressTo struct{ w io.Writer }

func (p progressTo) Report(msg string) { fmt.Fprintf(p.w, "aide: %s\n", msg) }

// applyRun writes the session's pending hunks all or nothing (contract §2
// --apply): refused files (unplanned, sensitive) stop the whole apply and
// are listed with the flag that allows them; otherwise the hunks are
// accepted through aide.accept, the one accept path (its headless client
// writes them with workspace.ApplyAll).
func applyRun(ctx context.Context, ws *workspace.Workspace, res commands.HeadlessResult, files []string, pol applyPolicy, stderr io.Writer) ([]string, string) {
	for _, f := range files {
		if _, rel, err := ws.Resolve(f); err == nil {
			pol.focus = append(pol.focus, rel)
		}
	}
	pending := res.Engine.Pending(res.Session)
	_, refused, err := fileChanges(ws, pending, pol)
	if err != nil {
		return nil, "could not write the edits: " + err.Error() + "; nothing was written"
	}
	if len(refused) > 0 {
		fmt.Fprintf(stderr, "aide-lsp run: --apply refused %d file(s); nothing was written:\n%s", len(refused), refusalLines(refused))
		return nil, "refused to write the files listed above: nothing was written; check them in the diff, then rerun with the flag named"
	}
	store, rec := recordApply(ws, res.Session, res.View.Task, pending, stderr)
	written, err := res.Accept(ctx)
	if err != nil {
		if rec != nil && len(written) == 0 {
			_ = store.Remove(rec.Session)
		}
		return written, "could not write the edits: " + err.Error()
	}
	return written, ""
}

// recordApply keeps what --apply is about to write (the before and after of
// every hunk and file) in the user's state folder, so that `aide-lsp undo`
// can put it back. It is written before the files are: a crash midway still
// leaves the record. A record that cannot be kept is a warning, not a
// failure: the apply goes on, and says that it cannot be undone.
func recordApply(ws *workspace.Workspace, session, task string, hunks []editapply.Hunk, stderr io.Writer) (*undo.Store, *undo.Record) {
	store, err := undo.Open(config.StateDir(os.Getenv), ws.Roots()...)
	if err == nil {
		rec := store.New(session, task, undo.SourceRun)
		if err = rec.Add(hunks, ws.Read); err == nil {
			if err = store.Save(rec); err == nil {
				return store, rec
			}
		}
	}
	fmt.Fprintf(stderr, "aide-lsp run: warning: this apply cannot be undone with 'aide-lsp undo': %v\n", err)
	return nil, nil
}

// killApplyAt is the kill -9 test's hook (tests/abuse): with
// AIDE_TEST_KILL_APPLY set to "temp:N" or "rename:N", the process kills
// itself with SIGKILL right after --apply wrote its N-th temporary file or
// made its N-th rename, a real kill at a moment no timing could pick.
func killApplyAt(at string) {
	stage, n, ok := strings.Cut(at, ":")
	if !ok {
		return
	}
	workspace.SetApplyHook(func(s string, i int) {
		if s == stage && fmt.Sprint(i) == n {
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Kill()
				select {} // the kill lands
			}
		}
	})
}
