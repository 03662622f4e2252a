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

// EngineOptions open the real engine on one workspace root for an adapter
// that is not the language server (ACP: the root is a session's cwd).
type EngineOptions struct {
	Root   string
	Client commands.Client
	// Env replaces os.Getenv (tests inject base URLs and keys).
	Env func(string) string
	// RetryBaseDelay is the model Router's first backoff step; 0: default.
	RetryBaseDelay time.Duration
	// WrapModel, when set, wraps the model client the engine calls (the
	// ACP adapter streams the architect's text from it).
	WrapModel func(model.Client) model.Client
	Logger    *slog.Logger // nil discards
}

// Opened is an engine on a root, with what the adapter tells the user
// about its configuration.
type Opened struct {
	Engine    *commands.Engine
	Workspace *workspace.Workspace
	Config    config.Config
	// Problems are the configuration's problems (skipped settings).
	Problems []config.Problem
	// Trust is the workspace's .aide/config.json: when it asks for
	// trust-only keys, TrustMessage says how to trust it (contract §3).
	Trust config.WorkspaceFile
}

// OpenEngine wires the engine on o.Root exactly as a language-server
// connection does (NewSetup), minus the editor's own layers: the
// configuration layers and the trust rules of contract §3, the model
// Router, the repository index built in the background and kept current
// from the file watcher, and live drift from that watcher. Everything it
// starts stops with ctx.
func OpenEngine(ctx context.Context, o EngineOptions) (*Opened, error) {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Root == "" || !filepath.IsAbs(o.Root) {
		return nil, errors.New("the workspace root must be an absolute folder")
	}
	if st, err := os.Stat(o.Root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the workspace root %s is not a folder", o.Root)
	}
	loaded := config.Load(config.LoadOptions{Getenv: o.Env, Root: o.Root})
	cfg := loaded.Config
	ws, err := workspace.Open([]string{o.Root}, cfg.Deny)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s cannot be opened: %w", o.Root, err)
	}
	models := &swapModel{opts: SetupOptions{Env: o.Env, RetryBaseDelay: o.RetryBaseDelay}}
	models.set(cfg)
	var client model.Client = models
	if o.WrapModel != nil {
		client = o.WrapModel(models)
	}
	// The index's cache is the user's, never the workspace's (contract §2).
	cacheDir, cerr := treesitter.UserCacheDir(config.CacheDir(o.Env), o.Root)
	if cerr != nil {
		log.Warn("no tag cache: every start indexes the workspace cold", "err", cerr)
	}
	index := treesitter.NewIndex(o.Root, cacheDir)
	built := &indexBuild{index: index, done: make(chan struct{}), preloaded: make(chan struct{})}
	hist, herr := estimate.OpenDefault(o.Env, o.Root)
	if herr != nil {
		log.Warn("no call history: estimates have no expected completion", "err", herr)
	}
	undos, uerr := undo.Open(config.StateDir(o.Env), o.Root) // the user's state folder, never the workspace
	if uerr != nil {
		log.Warn("no undo records: accepted changes cannot be undone with aide.undo", "err", uerr)
	}
	// What the server wrote, so that a restart still knows its plan documents
	// from a repository's (contract §5): the user's state folder, never the workspace.
	wrote, werr := written.Open(config.StateDir(o.Env), o.Root)
	if werr != nil {
		log.Warn("plan documents are not remembered across restarts", "err", werr)
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
	go built.run(ctx, ws, log, func(msg string) { log.Warn(msg) })
	go watchRoot(ctx, ws, index, watchHooks{changed: engine.FilesChanged, depends: engine.DependedOn, log: log, off: "drift is seen only when a file is read",
		polling: func(why string) {
			log.Warn(why + "; the workspace is polled instead: raise fs.inotify.max_user_watches")
		}})
	return &Opened{Engine: engine, Workspace: ws, Config: cfg, Problems: loaded.Problems, Trust: loaded.Workspace}, nil
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
