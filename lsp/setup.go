package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// SetupOptions tune NewSetup. The zero value is production.
type SetupOptions struct {
	// Env replaces os.Getenv for the environment layer of the configuration
	// and the model providers (tests inject base URLs and keys).
	Env func(string) string
	// RetryBaseDelay is the model Router's first backoff step; 0 is the
	// Router's default (tests set a millisecond).
	RetryBaseDelay time.Duration

	// onIndexBuild, when set, is called after each background index build
	// (tests count the builds).
	onIndexBuild func(treesitter.Stats)
	// onWarm, when set, is called with the root-relative path of each
	// opened document once the index has parsed it (tests).
	onWarm func(rel string)
}

// indexBuild is the one background build of a connection's index; the
// engine waits for it (commands.Options.IndexReady) instead of building the
// index again on its first architect pass.
type indexBuild struct {
	done    chan struct{} // closed when the build ended, built or not
	onBuild func(treesitter.Stats)
}

// wait returns when the build ended or ctx is done (the architect then goes
// on with whatever the index holds).
func (b *indexBuild) wait(ctx context.Context) {
	select {
	case <-b.done:
	case <-ctx.Done():
	}
}

// NewSetup returns the one function that wires a connection to the real
// engine (Options.Setup): the workspace from the roots of initialize, the
// configuration layers of contract §3 (defaults, environment,
// .aide/config.json, initializationOptions, then the "aide" section of
// workspace/configuration once the client is initialized and again on every
// workspace/didChangeConfiguration), the model Router, the tree-sitter index
// (built in the background, kept current from the file watcher) and
// commands.NewEngine with the server as its Client. `aide-lsp serve` and the
// end-to-end tests both use it.
func NewSetup(o SetupOptions) func(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error) {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	return func(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error) {
		s := in.Server
		if s == nil {
			return nil, nil, errors.New("setup needs the server")
		}
		if len(in.Roots) == 0 {
			return nil, nil, errors.New("no workspace folder: open a folder (aide-lsp edits files under the workspace root only)")
		}
		root := in.Roots[0]
		st := &configState{env: o.Env, root: root, initOptions: in.InitializationOptions}
		cfg, problems := st.layers(nil)

		ws, err := workspace.Open(in.Roots, cfg.Deny)
		if err != nil {
			return nil, nil, fmt.Errorf("the workspace %s cannot be opened: %w", root, err)
		}
		models := &swapModel{opts: o}
		models.set(cfg)
		index := treesitter.NewIndex(root, filepath.Join(root, ".aide", "cache"))
		built := &indexBuild{done: make(chan struct{}), onBuild: o.onIndexBuild}
		hist, herr := estimate.OpenDefault(o.Env, in.Roots...) // the user's state folder, never the workspace
		if herr != nil {
			s.log.Warn("no call history: estimates have no expected completion", "err", herr)
		}
		engine, err := commands.NewEngine(commands.Options{
			Workspace: ws, Config: cfg, Model: models, Index: index, Client: s,
			IndexReady: built.wait, History: hist,
		})
		if err != nil {
			return nil, nil, err
		}
		for _, p := range engine.LoadProblems {
			s.log.Warn("session file not loaded", "problem", p)
		}
		s.SetDelivery(cfg.Delivery)
		startIndex(s, ws, index, built, o.onWarm)

		// The configuration the client keeps is asked for once the client
		// is initialized (no request may precede the initialize reply), and
		// again on every didChangeConfiguration.
		first := true
		reload := func(ctx context.Context) {
			section, err := s.Configuration(ctx, "aide")
			if err != nil {
				s.log.Warn("workspace/configuration failed", "err", err)
			}
			cfg, more := st.layers(section)
			if first {
				more = append(problems, more...)
				first = false
			}
			if len(more) > 0 {
				lines := make([]string, len(more))
				for i, p := range more {
					lines[i] = p.String()
				}
				s.Message("warning", "aide-lsp configuration: "+strings.Join(lines, "; ")+" (these settings were skipped)")
			}
			engine.SetConfig(cfg)
			models.set(cfg)
			s.SetDelivery(cfg.Delivery)
		}
		// Reloads never overlap, and a burst of didChangeConfiguration
		// makes one more reload after the running one, not one per message.
		var mu sync.Mutex // guards running and again
		running, again := false, false
		s.OnConfiguration(func(ctx context.Context) {
			mu.Lock()
			if running {
				again = true
				mu.Unlock()
				return
			}
			running = true
			mu.Unlock()
			for {
				reload(ctx)
				mu.Lock()
				if !again || ctx.Err() != nil {
					running = false
					mu.Unlock()
					return
				}
				again = false
				mu.Unlock()
			}
		})
		return engine, ws, nil
	}
}

// configState holds the layers that do not change during a connection.
type configState struct {
	env         func(string) string
	root        string
	initOptions json.RawMessage
}

// layers merges the configuration sources of contract §3, lowest first;
// section is the client's "aide" section (nil before it is known).
func (c *configState) layers(section json.RawMessage) (config.Config, []config.Problem) {
	cfg := config.Defaults()
	var problems []config.Problem
	problems = append(problems, cfg.ApplyEnv(c.env)...)
	problems = append(problems, cfg.ApplyWorkspaceFile(c.root)...)
	problems = append(problems, cfg.Apply("initializationOptions", c.initOptions)...)
	problems = append(problems, cfg.Apply("workspace/configuration", section)...)
	return cfg.Effective(), problems
}

// swapModel is the engine's model client: a Router rebuilt whenever the
// configuration changes its providers or timeout, so a settings change
// applies to the next call without restarting the server.
type swapModel struct {
	opts   SetupOptions
	router atomic.Pointer[model.Router]
}

func (m *swapModel) set(cfg config.Config) {
	m.router.Store(model.NewRouter(cfg.Providers, model.Options{
		Timeout:        time.Duration(cfg.RequestTimeoutSeconds) * time.Second,
		Env:            m.opts.Env,
		RetryBaseDelay: m.opts.RetryBaseDelay,
	}))
}

// Chat implements model.Client.
func (m *swapModel) Chat(ctx context.Context, req model.Request, onDelta func(model.Delta)) (*model.Response, error) {
	return m.router.Load().Chat(ctx, req, onDelta)
}

// openedFile is a document the editor opened.
type openedFile struct{ abs, text string }

// startIndex builds the repository index in the background and keeps it
// current from the workspace watcher; both stop with the connection.
func startIndex(s *Server, ws *workspace.Workspace, index *treesitter.Index, built *indexBuild, onWarm func(string)) {
	s.Go(func(ctx context.Context) {
		defer close(built.done)
		files, err := ws.Files(ctx)
		if err != nil {
			s.log.Warn("the repository index was not built", "err", err)
			return
		}
		stats, err := index.Build(ctx, files)
		if err != nil && ctx.Err() == nil {
			// Build indexes what it can; its error is most often the tag
			// cache that could not be written (the next start re-parses).
			s.log.Warn("the repository index is incomplete or not cached", "err", err)
		}
		if built.onBuild != nil {
			built.onBuild(stats)
		}
	})
	// Files the editor opens are parsed once in the background (one at a
	// time, a few queued; more are skipped, as the first save then costs
	// a full parse, nothing worse), so the index's update on their first
	// save is an incremental parse (treesitter.Index.Warm).
	opened := make(chan openedFile, 8)
	s.setDocumentOpened(func(abs, text string) {
		select {
		case opened <- openedFile{abs, text}:
		default:
		}
	})
	s.Go(func(ctx context.Context) {
		for {
			select {
			case <-ctx.Done():
				return
			case f := <-opened:
				if _, rel, err := ws.Resolve(f.abs); err == nil {
					index.Warm(rel, []byte(f.text))
					if onWarm != nil {
						onWarm(rel)
					}
				}
			}
		}
	})
	s.Go(func(ctx context.Context) {
		w, err := ws.WatchWith(ctx, workspace.WatchOptions{Logf: func(format string, args ...any) {
			s.log.Info(fmt.Sprintf(format, args...))
		}})
		if err != nil {
			s.log.Warn("file watching is off: drift is seen only in open buffers", "err", err)
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
				s.FilesChanged(paths...) // live drift of waiting plans
				for _, ev := range batch {
					if ev.Op == "remove" || ev.Op == "rename" {
						if _, exists, _ := ws.Read(ev.Path); !exists {
							index.Remove(ev.Path)
							continue
						}
					}
					if text, exists, err := ws.Read(ev.Path); err == nil && exists {
						index.Update(ev.Path, []byte(text))
					}
				}
			}
		}
	})
}
