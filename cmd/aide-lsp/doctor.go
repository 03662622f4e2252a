package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/sandbox"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// doctorProviderTimeout bounds each provider check: a reachable server lists
// its models in well under a second; five seconds rides out a slow start
// without making doctor hang on a black-holed address.
const doctorProviderTimeout = 5 * time.Second

// doctorReport collects check lines; fails counts the ones that stop
// aide-lsp from working (exit 1).
type doctorReport struct {
	w     io.Writer
	fails int
	warns int
}

func (r *doctorReport) ok(format string, a ...any) { fmt.Fprintf(r.w, "ok    "+format+"\n", a...) }
func (r *doctorReport) warn(format string, a ...any) {
	r.warns++
	fmt.Fprintf(r.w, "warn  "+format+"\n", a...)
}
func (r *doctorReport) fail(format string, a ...any) {
	r.fails++
	fmt.Fprintf(r.w, "FAIL  "+format+"\n", a...)
}

const doctorUsage = `Usage: aide-lsp doctor [--dir DIR]

Checks what aide-lsp needs, one line per check (ok, warn, FAIL) with the fix:
the configuration layers (environment, DIR/.aide/config.json), the verification
commands that would run before proposing (and whether each program is found),
each provider in use (reachable, model known where the API lists models, its key variable),
the tree-sitter languages, the inotify limits against the workspace's folders,
and whether .aide/ is git-ignored. Exit status 1 when a check FAILs.

Examples:
  aide-lsp doctor
  AIDE_ARCHITECT_MODEL=openai/gpt-4.1 aide-lsp doctor --dir ~/src/app

Flags:
`

func runDoctor(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("doctor", doctorUsage)
	dir := fl.String("dir", ".", "workspace root to check")
	if code, done := parseFlags(fl, args, stdout, stderr); done {
		return code
	}
	root, err := workspaceDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "aide-lsp doctor: %v\n", err)
		return exitUsage
	}
	r := &doctorReport{w: stdout}
	fmt.Fprintf(stdout, "aide-lsp %s doctor on %s\n\n", buildVersion(), root)

	cfg := doctorConfig(r, root)
	doctorVerify(r, cfg)
	doctorProviders(r, cfg)
	doctorLanguages(r)
	doctorInotify(r, root)
	doctorGitignore(r, root)

	fmt.Fprintf(stdout, "\n%d failed, %d warnings\n", r.fails, r.warns)
	if r.fails > 0 {
		return exitFailed
	}
	return exitOK
}

func doctorConfig(r *doctorReport, root string) config.Config {
	l := config.Load(config.LoadOptions{Getenv: os.Getenv, Root: root})
	for _, p := range l.Problems {
		r.warn("config %s", model.Redact(p.String()))
	}
	switch {
	case l.UserFile == "":
		r.warn("user config: neither XDG_CONFIG_HOME nor HOME is set: providers and keys can come only from the environment")
	case l.UserFileRead:
		r.ok("user config: %s", l.UserFile)
	default:
		r.ok("user config: none at %s (your providers, base URLs and key variables go there)", l.UserFile)
	}
	doctorTrust(r, root, l.Workspace)
	if len(l.Problems) == 0 {
		r.ok("configuration: read without problems")
	}
	r.ok("models: architect %s, editor %s", l.Config.ArchitectModel, l.Config.EditorModel)
	return l.Config
}

// doctorTrust explains the trust state of the workspace's config file.
func doctorTrust(r *doctorReport, root string, wf config.WorkspaceFile) {
	switch {
	case !wf.Exists:
		r.ok("%s: none", config.WorkspaceFileName)
	case wf.Err != nil:
		r.warn("%s: %v", config.WorkspaceFileName, wf.Err)
	case wf.Trusted:
		r.ok("%s: trusted (this content, sha256 %s…); undo: aide-lsp trust --revoke --dir %s", config.WorkspaceFileName, wf.SHA256[:12], root)
	case len(wf.Wants) > 0:
		r.warn("%s", model.Redact(wf.TrustMessage(root)))
	default:
		r.ok("%s: not trusted; it sets only keys a workspace may set (models, limits, deny), so nothing is ignored", config.WorkspaceFileName)
	}
}

// doctorVerify lists what would run on a scratch copy before proposals are
// offered (contract §3 `verify`), and warns about a program not found.
// Commands an untrusted workspace file names are in doctorTrust's report:
// they never run.
func doctorVerify(r *doctorReport, cfg config.Config) {
	if len(cfg.Verify) == 0 {
		r.ok("verify: no commands: proposals are offered without a build (add \"verify\" to your config file to check them first)")
		return
	}
	if cfg.UntrustedRoot != "" {
		r.warn("verify: %s", config.VerifyTrustMessage(cfg.UntrustedRoot))
	}
	where := "inside the sandbox"
	noSandbox := sandbox.Available()
	if noSandbox == nil {
		r.ok("sandbox: available: verification commands run confined (no network, no home folder, only the scratch copy writable)")
	} else {
		r.warn("sandbox: %v: verification does not run, except the commands your config file lists in \"verifyUnconfined\"", noSandbox)
	}
	for _, c := range cfg.Verify {
		if _, err := exec.LookPath(c.Run[0]); err != nil {
			r.warn("verify: %s would run %s, but %s is not found on PATH: every verification would fail", c.Name, c.String(), c.Run[0])
			continue
		}
		if noSandbox != nil {
			if !slices.Contains(cfg.VerifyUnconfined, "*") && !slices.Contains(cfg.VerifyUnconfined, c.Name) {
				r.warn("verify: %s (%s) will not run: no sandbox here, and it is not in \"verifyUnconfined\"", c.Name, c.String())
				continue
			}
			where = "WITHOUT the sandbox (verifyUnconfined), unless a change touches a file that runs code"
		}
		r.ok("verify: %s would run %s (timeout %s) on a scratch copy, %s", c.Name, c.String(), c.Limit(), where)
	}
}

// doctorProviders checks the providers of the two models in use, then any
// other configured provider (reachability only).
func doctorProviders(r *doctorReport, cfg config.Config) {
	opts := routerOptions(cfg)
	opts.Timeout, opts.MaxRetries = doctorProviderTimeout, -1
	router := model.NewRouter(cfg.Providers, opts)
	checked := map[string]bool{}
	check := func(id string, mustWork bool) {
		res, err := router.Resolve(id)
		if err != nil {
			r.fail("%v", err)
			return
		}
		if checked[id] {
			return
		}
		checked[id] = true
		checked[res.Provider] = true
		if res.APIKeyEnv != "" {
			if os.Getenv(res.APIKeyEnv) == "" {
				r.fail("%s: %s is not set: export it, or pick another provider", res.Provider, res.APIKeyEnv)
				return
			}
			r.ok("%s: %s is set", res.Provider, res.APIKeyEnv)
		}
		if res.Kind == "replay" {
			if _, err := os.Stat(res.BaseURL); err != nil {
				r.fail("%s: cassette %s: %v", res.Provider, res.BaseURL, err)
			} else {
				r.ok("%s: recorded cassette %s (replays, no model is called)", res.Provider, res.BaseURL)
			}
			return
		}
		names, err := router.ListModels(context.Background(), id)
		switch {
		case err != nil && mustWork:
			r.fail("%v", err)
		case err != nil:
			r.warn("%v", err)
		case res.Model != "" && len(names) > 0 && !model.KnownModel(names, res.Model):
			sort.Strings(names)
			if len(names) > 8 {
				names = append(names[:8], "…")
			}
			r.fail("%s: answers at %s but does not list model %q (it lists %s): fix the model id, or pull it (ollama pull %s)",
				res.Provider, res.BaseURL, res.Model, strings.Join(names, ", "), res.Model)
		default:
			r.ok("%s: reachable at %s, model %s available", res.Provider, res.BaseURL, res.Model)
		}
	}
	check(cfg.ArchitectModel, true)
	check(cfg.EditorModel, true)
	names := make([]string, 0, len(cfg.Providers))
	for name := range cfg.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !checked[name] {
			check(name+"/", false)
		}
	}
}

// doctorLanguages parses a one-line program in each language, which proves
// the grammar compiled in and its tags query loads.
func doctorLanguages(r *doctorReport) {
	samples := map[string][2]string{
		"bash": {"x.sh", "f() { echo hi; }\n"}, "c": {"x.c", "int f(void) { return 1; }\n"},
		"cpp": {"x.cpp", "int f() { return 1; }\n"}, "go": {"x.go", "package x\nfunc F() {}\n"},
		"java": {"X.java", "class X { void f() {} }\n"}, "javascript": {"x.js", "function f() {}\n"},
		"python": {"x.py", "def f():\n    pass\n"}, "ruby": {"x.rb", "def f\nend\n"},
		"rust": {"x.rs", "fn f() {}\n"}, "tsx": {"x.tsx", "function F() { return <div/>; }\n"},
		"typescript": {"x.ts", "function f(): number { return 1; }\n"},
	}
	var okLangs, bad []string
	for _, lang := range treesitter.Languages {
		s, known := samples[lang]
		if !known {
			okLangs = append(okLangs, lang+" (unchecked)")
			continue
		}
		tags, err := treesitter.Tags(s[0], []byte(s[1]))
		if err != nil || len(tags) == 0 {
			bad = append(bad, fmt.Sprintf("%s (%v)", lang, err))
			continue
		}
		okLangs = append(okLangs, lang)
	}
	if len(bad) > 0 {
		r.fail("tree-sitter: %s do not parse: the repository map will miss those files (rebuild with cgo enabled)", strings.Join(bad, ", "))
	}
	if len(okLangs) > 0 {
		r.ok("tree-sitter: %s", strings.Join(okLangs, ", "))
	}
}

// doctorInotify compares the inotify watch limit with the folders the
// watcher would watch (one watch per folder).
func doctorInotify(r *doctorReport, root string) {
	limit, err := readProcInt("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		r.warn("inotify: cannot read the watch limit (%v): the watcher falls back to polling if watches run out", err)
		return
	}
	dirs := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", ".aide":
				if p != root {
					return filepath.SkipDir
				}
			}
			dirs++
		}
		return nil
	})
	if dirs > limit/2 {
		r.warn("inotify: %d folders against a limit of %d watches shared by every program: raise it (sudo sysctl fs.inotify.max_user_watches=524288), or aide-lsp polls", dirs, limit)
		return
	}
	r.ok("inotify: %d folders to watch, limit %d", dirs, limit)
}

func readProcInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// doctorGitignore warns when .aide/ (plans, session logs) would be
// committed by accident.
func doctorGitignore(r *doctorReport, root string) {
	if _, err := exec.LookPath("git"); err != nil {
		r.warn("git not found: cannot check that .aide/ is git-ignored")
		return
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		r.ok(".aide/: not a git repository, nothing to ignore")
		return
	}
	err := exec.Command("git", "-C", root, "check-ignore", "-q", ".aide/sessions/x.jsonl").Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		r.ok(".aide/ is git-ignored")
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		r.warn(".aide/ is not git-ignored: add a line `.aide/` to .gitignore so plans and session logs stay out of commits")
	default:
		r.warn("git check-ignore failed: %v", err)
	}
}
