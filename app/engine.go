package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/undo"
	"github.com/aide-lsp/aide-lsp/workspace"
	"github.com/aide-lsp/aide-lsp/written"
)

// Options open the real engine on workspace roots, for any front end (the
// language server per connection, ACP per session folder).
type Options struct {
	// Roots are the workspace folders; the first is the root whose
	// .aide/ holds the sessions, plans and index cache.
	Roots  []string
	Client commands.Client
	// ClientFor, when set, builds the client on the opened workspace,
	// in place of Client: a headless run's client writes accepted hunks
	// itself, through the workspace Open builds.
	ClientFor func(*workspace.Workspace) commands.Client
	// Config, when set, is the effective configuration the command line
	// already loaded (its flags and files in it, its problems told): Open
	// reads no configuration layer then, and Problems and Trust are empty.
	Config *config.Config
	// Model, when set, answers every model call in place of the Router
	// the configuration builds (a replay, the bench's cassettes and
	// recorder). Its answers are not the user's model calls: no call
	// history is kept for them.
	Model model.Client
	// StateDir is the state folder of the apply journal, the undo records
	// and what the server wrote; empty: the user's (config.StateDir). The
	// bench gives one inside its throwaway folder (docs/design.md), and
	// keeps no call history then: its runs are not the user's.
	StateDir string
	// Editor are the editor's configuration layers (the language
	// server's initializationOptions), above the others (contract §3).
	Editor []config.Layer
	// Env replaces os.Getenv (tests inject base URLs and keys).
	Env func(string) string
	// RetryBaseDelay is the model Router's first backoff step; 0: default.
	RetryBaseDelay time.Duration
	// WrapModel, when set, wraps the model client the engine calls (the
	// ACP adapter streams the architect's text from it).
	WrapModel func(model.Client) model.Client
	Logger    *slog.Logger // nil discards
	// OnIndexBuild, when set, is called after each background index build
	// (tests count the builds); BeforeIndexBuild before it starts (tests).
	OnIndexBuild     func(treesitter.Stats)
	BeforeIndexBuild func()
}

// Opened is an engine on a root, with what the front end tells the user
// about its configuration and what it runs in the background.
type Opened struct {
	Engine    *commands.Engine
	Workspace *workspace.Workspace
	Index     *treesitter.Index
	Config    config.Config
	// Problems are the configuration's problems (skipped settings).
	Problems []config.Problem
	// Trust is the workspace's .aide/config.json: when it asks for
	// trust-only keys, TrustMessage says how to trust it (contract §3).
	Trust config.WorkspaceFile

	models *swapModel
	built  *indexBuild
	log    *slog.Logger
}

// Open is the one wiring of the engine, for `serve`, `acp`, `run` and
// `bench` alike: the configuration layers and the trust rules of contract
// §3, the workspace with its apply journal in the user's state folder
// (contract §8), the model Router (rebuilt by Reconfigure), the repository
// index (built by BuildIndex, kept current by Watch), the call history,
// the undo records and what the server wrote, and commands.NewEngine. It
// starts nothing: the front end runs BuildIndex and Watch when its client
// is ready for what they say.
func Open(o Options) (*Opened, error) {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(o.Roots) == 0 {
		return nil, errors.New("no workspace folder: open a folder (aide-lsp edits files under the workspace root only)")
	}
	root := o.Roots[0]
	if !filepath.IsAbs(root) {
		return nil, errors.New("the workspace root must be an absolute folder")
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the workspace root %s is not a folder", root)
	}
	var loaded config.Loaded
	if o.Config != nil {
		loaded.Config = *o.Config
	} else {
		loaded = config.Load(config.LoadOptions{Getenv: o.Env, Root: root, Editor: o.Editor})
	}
	cfg := loaded.Config
	state := o.StateDir
	if state == "" {
		state = config.StateDir(o.Env)
	}
	ws, err := workspace.Open(o.Roots, cfg.Deny)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s cannot be opened: %w", root, err)
	}
	// The apply journal is the user's, in the state folder (contract §8).
	if err := ws.SetStateDir(state); err != nil {
		log.Warn("no apply journal", "err", err)
	}
	models := &swapModel{env: o.Env, retryBaseDelay: o.RetryBaseDelay}
	models.set(cfg)
	var client model.Client = models
	if o.Model != nil {
		client = o.Model
	}
	if o.WrapModel != nil {
		client = o.WrapModel(models)
	}
	// The index's cache is the user's, never the workspace's (contract §2);
	// a throwaway run (its own StateDir: the bench's copies) keeps none,
	// since each copy is indexed once.
	cacheDir := ""
	if o.StateDir == "" {
		var cerr error
		if cacheDir, cerr = treesitter.UserCacheDir(config.CacheDir(o.Env), root); cerr != nil {
			log.Warn("no tag cache: every start indexes the workspace cold", "err", cerr)
		}
	}
	index := treesitter.NewIndex(root, cacheDir)
	built := &indexBuild{index: index, done: make(chan struct{}), preloaded: make(chan struct{}), onBuild: o.OnIndexBuild, before: o.BeforeIndexBuild}
	var hist *estimate.Store
	if o.Model == nil && o.StateDir == "" {
		var herr error
		hist, herr = estimate.OpenDefault(o.Env, o.Roots...) // the user's state folder, never the workspace
		if herr != nil {
			log.Warn("no call history: estimates have no expected completion", "err", herr)
		}
	}
	undos, uerr := undo.Open(state, o.Roots...) // the user's state folder, never the workspace
	if uerr != nil {
		log.Warn("no undo records: accepted changes cannot be undone with aide.undo", "err", uerr)
	}
	// What the server wrote, so that a restart still knows its plan documents
	// from a repository's (contract §5): the user's state folder, never the workspace.
	wrote, werr := written.Open(state, root)
	if werr != nil {
		log.Warn("plan documents are not remembered across restarts", "err", werr)
	}
	if o.ClientFor != nil {
		o.Client = o.ClientFor(ws)
	}
	engine, err := commands.NewEngine(commands.Options{
		Workspace: ws, Config: cfg, Model: client, Index: index, Client: o.Client,
		IndexReady: built.wait, History: hist, Undo: undos, Written: wrote,
	})
	if err != nil {
		return nil, err
	}
	for _, p := range engine.LoadProblems {
		log.Warn("session file not loaded", "problem", p)
	}
	return &Opened{Engine: engine, Workspace: ws, Index: index, Config: cfg, Problems: loaded.Problems, Trust: loaded.Workspace,
		models: models, built: built, log: log}, nil
}

// Reconfigure applies a new configuration to the running engine: the deny
// list (and the index loses what it now covers), the engine's settings and
// the model Router. The error is a deny list that could not be applied.
func (o *Opened) Reconfigure(cfg config.Config) error {
	err := o.Workspace.SetDeny(cfg.Deny)
	pruneDenied(o.Workspace, o.Index)
	o.Engine.SetConfig(cfg)
	o.models.set(cfg)
	o.Config = cfg
	return err
}

// BuildIndex builds the repository index once, when ready is closed (the
// client's deny list is in force: a map taken while the index builds never
// holds a file the user denied) or at once when ready is nil; warn tells
// the user what hides files from it. The engine's first architect pass
// waits for it.
func (o *Opened) BuildIndex(ctx context.Context, ready <-chan struct{}, warn func(string)) {
	if ready != nil {
		select {
		case <-ready:
		case <-ctx.Done():
			close(o.built.done)
			return
		}
	}
	o.built.run(ctx, o.Workspace, o.log, warn)
}

// IndexBuilt is closed when BuildIndex ended, built or not.
func (o *Opened) IndexBuilt() <-chan struct{} { return o.built.done }

// WatchHooks are what Watch tells: Changed hears every batch of changed
// files beyond live drift, Polling the reason the watcher fell back to
// polling; Off says what is lost when it cannot start.
type WatchHooks struct {
	Changed func([]string)
	Polling func(why string)
	Off     string
}

// Watch keeps the index current and tells the engine of every batch of
// changed files (live drift of waiting plans) until ctx ends.
func (o *Opened) Watch(ctx context.Context, h WatchHooks) {
	changed := o.Engine.FilesChanged
	if h.Changed != nil {
		changed = h.Changed
	}
	watchRoot(ctx, o.Workspace, o.Index, watchHooks{changed: changed, depends: o.Engine.DependedOn, log: o.log, off: h.Off, polling: h.Polling})
}

// watchHooks are what watchRoot tells: changed hears every batch of
// changed files (live drift of waiting plans), polling the reason the
// watcher fell back to polling; off says what is lost when it cannot start.
type watchHooks struct {
	changed func([]string)
	depends func() []string // the files sessions depend on (WatchOptions.Depends)
	polling func(why string)
	log     *slog.Logger
	off     string
}

// watchRoot keeps the index current and tells h of every batch of changed
// files until ctx ends.
func watchRoot(ctx context.Context, ws *workspace.Workspace, index *treesitter.Index, h watchHooks) {
	w, err := ws.WatchWith(ctx, workspace.WatchOptions{Logf: func(format string, args ...any) {
		h.log.Info(fmt.Sprintf(format, args...))
	}, OnPolling: h.polling, Depends: h.depends})
	if err != nil {
		h.log.Warn("file watching is off: "+h.off, "err", err)
		return
	}
	defer w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case batch, ok := <-w.Events():
			if !ok {
				return
			}
			paths := make([]string, 0, len(batch))
			for _, ev := range batch {
				paths = append(paths, ev.Path)
			}
			h.changed(paths)
			for _, ev := range batch {
				watchedChange(ws, index, ev.Path)
			}
		}
	}
}
