package lsp

// The language server's wiring of the engine (NewSetup): app.Open, the one
// wiring every front end uses, plus what only an editor connection has: the
// "aide" configuration section asked for and reloaded, the trust question,
// the index build's progress, and the documents the editor opens parsed
// ahead of their first save.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/config"
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
	// beforeIndexBuild, when set, is called before the background index
	// build starts, and the build's progress is shown at once (tests).
	beforeIndexBuild func()
	// onWarm, when set, is called with the root-relative path of each
	// opened document once the index has parsed it (tests).
	onWarm func(rel string)
}

// indexProgressDelay: a build that ends sooner shows no progress.
const indexProgressDelay = time.Second

// NewSetup returns the function that wires a connection to the real engine
// (Options.Setup) with app.Open, the one wiring every front end uses: the
// workspace from the roots of initialize, the configuration layers of
// contract §3 (defaults, environment, .aide/config.json,
// initializationOptions, then the "aide" section of workspace/configuration
// once the client is initialized and again on every
// workspace/didChangeConfiguration), the model Router, the tree-sitter index
// (built in the background, kept current from the file watcher) and the
// engine with the server as its Client. `aide-lsp serve` and the end-to-end
// tests both use it.
func NewSetup(o SetupOptions) Backend {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	return BackendFunc(func(ctx context.Context, in SetupInput) (Engine, *workspace.Workspace, error) {
		s := in.Server
		if s == nil {
			return nil, nil, errors.New("setup needs the server")
		}
		if len(in.Roots) == 0 {
			return nil, nil, errors.New("no workspace folder: open a folder (aide-lsp edits files under the workspace root only)")
		}
		root := in.Roots[0]
		st := &configState{env: o.Env, root: root, initOptions: in.InitializationOptions}
		opened, err := app.Open(app.Options{
			Roots: in.Roots, Client: s, Editor: st.editorLayers(nil), Env: o.Env, RetryBaseDelay: o.RetryBaseDelay,
			Logger: s.Logger(), OnIndexBuild: o.onIndexBuild, BeforeIndexBuild: o.beforeIndexBuild,
		})
		if err != nil {
			return nil, nil, err
		}
		ws, engine, problems := opened.Workspace, opened.Engine, opened.Problems
		progressDelay := indexProgressDelay
		if o.beforeIndexBuild != nil {
			progressDelay = 0
		}
		s.SetDelivery(opened.Config.Delivery)
		// Requests to the client (the index's progress) wait for its
		// initialized notification, which the first reload follows.
		clientReady := make(chan struct{})
		startIndex(s, opened, progressDelay, o.onWarm, clientReady)

		// The configuration the client keeps is asked for once the client
		// is initialized (no request may precede the initialize reply), and
		// again on every didChangeConfiguration.
		first := true
		reload := func(ctx context.Context) {
			section, err := s.Configuration(ctx, "aide")
			if err != nil {
				s.Logger().Warn("workspace/configuration failed", "err", err)
			}
			loaded := st.layers(section)
			cfg, more := loaded.Config, loaded.Problems
			if first {
				if msg := ws.Interrupted(); msg != "" {
					s.Message("warning", "aide-lsp: "+msg)
				}
				more = problems // the same file and variables as at initialize, and the section's
				more = append(more, loaded.Problems...)
				more = dedupProblems(more)
			}
			// The new configuration applies before anything is said about
			// it, so a user (or test) who sees the message sees it in force.
			if err := opened.Reconfigure(cfg); err != nil {
				s.Message("warning", "aide-lsp configuration: "+err.Error())
			}
			if first {
				// The index's build lists the files only now, with the
				// client's deny list in force: a map taken while it
				// builds never holds a file the user denied.
				close(clientReady)
				first = false
			}
			s.SetDelivery(cfg.Delivery)
			if len(more) > 0 {
				lines := make([]string, len(more))
				for i, p := range more {
					lines[i] = model.Redact(p.String())
				}
				s.Message("warning", "aide-lsp configuration: "+strings.Join(lines, "; ")+" (these settings were skipped)")
			}
			st.reportTrust(ctx, s, loaded.Workspace)
		}
		// lsp runs reloads one at a time, a burst making one more.
		st.reload = s.ReloadConfiguration
		s.OnConfiguration(reload)
		return engine, ws, nil
	})
}

// configState holds the layers that do not change during a connection.
type configState struct {
	env         func(string) string
	root        string
	initOptions json.RawMessage

	mu       sync.Mutex
	reported map[string]bool // workspace file hashes whose trust request was shown
	reload   func()          // asks for a configuration reload (after a Trust answer)
}

// layers merges the configuration sources of contract §3 (config.Load):
// the user's file, the workspace file by its trust, the environment, then
// the editor's initializationOptions and "aide" section (nil before it is
// known), which are the editor's user settings.
func (c *configState) layers(section json.RawMessage) config.Loaded {
	return config.Load(config.LoadOptions{Getenv: c.env, Root: c.root, Editor: c.editorLayers(section)})
}

// editorLayers are the editor's layers: initializationOptions, then the
// "aide" section.
func (c *configState) editorLayers(section json.RawMessage) []config.Layer {
	return []config.Layer{
		{Source: "initializationOptions", Origin: config.FromEditor, Raw: c.initOptions},
		{Source: "workspace/configuration", Origin: config.FromEditor, Raw: section},
	}
}

func dedupProblems(ps []config.Problem) []config.Problem {
	seen := map[string]bool{}
	out := ps[:0:0]
	for _, p := range ps {
		if k := p.String(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// Answers of the trust request.
const (
	trustAction  = "Trust"
	ignoreAction = "Ignore"
)

// reportTrust tells the user, once per content of the file, that the
// workspace's .aide/config.json asks for trust-only keys it did not get:
// a question with Trust / Ignore (Server.Ask) where the client takes one,
// else a message naming the command. Trust records the file's hash in the user's trust store and
// reloads the configuration.
func (c *configState) reportTrust(ctx context.Context, s *Server, wf config.WorkspaceFile) {
	if !wf.NeedsTrust() {
		return
	}
	c.mu.Lock()
	if c.reported == nil {
		c.reported = map[string]bool{}
	}
	seen := c.reported[wf.SHA256]
	c.reported[wf.SHA256] = true
	c.mu.Unlock()
	if seen {
		return
	}
	text := "aide-lsp: " + model.Redact(wf.TrustMessage(c.root))
	// The answer may take as long as the user likes: it must not hold the
	// configuration reload, so it is waited for in the background.
	s.Go(func(bg context.Context) {
		answer, err := s.Ask(bg, "warning", text, trustAction, ignoreAction)
		if err != nil {
			s.Message("warning", text) // a client that takes no questions (Helix): the message names the command
			return
		}
		if answer != trustAction {
			return
		}
		store := config.DefaultTrustStore(c.env)
		if err := c.trust(store, wf); err != nil {
			s.Message("error", "aide-lsp: "+err.Error())
			return
		}
		s.Message("info", "aide-lsp: "+config.WorkspaceFileName+" is trusted; its providers apply now (undo: aide-lsp trust --revoke --dir "+c.root+")")
		if c.reload != nil {
			c.reload()
		}
	})
}

// trust records wf in the store, unless the file changed since it was
// shown to the user (then the user trusted other content: nothing is done).
func (c *configState) trust(store config.TrustStore, wf config.WorkspaceFile) error {
	now := config.Load(config.LoadOptions{Getenv: c.env, Root: c.root}).Workspace
	if now.SHA256 != wf.SHA256 {
		return errors.New(config.WorkspaceFileName + " changed since you were asked: it was not trusted; look at it and run aide-lsp trust --dir " + c.root)
	}
	return store.Trust(wf.Path, wf.SHA256, time.Now())
}

// openedFile is a document the editor opened.
type openedFile struct{ abs, text string }

// startIndex builds the repository index in the background and keeps it
// current from the workspace watcher; both stop with the connection.
func startIndex(s *Server, o *app.Opened, progressDelay time.Duration, onWarm func(string), clientReady <-chan struct{}) {
	ws, index := o.Workspace, o.Index
	s.Go(func(ctx context.Context) {
		reportIndexProgress(ctx, s, index, o.IndexBuilt(), progressDelay, clientReady)
	})
	// The files are listed once the client's configuration (its deny
	// list) is in force: a map taken while the index builds never holds a
	// file the user denied.
	s.Go(func(ctx context.Context) {
		o.BuildIndex(ctx, clientReady, func(msg string) { s.Message("warning", "aide-lsp: "+msg) })
	})
	// Files the editor opens are parsed once in the background (one at a
	// time, a few queued; more are skipped, as the first save then costs
	// a full parse, nothing worse), so the index's update on their first
	// save is an incremental parse (treesitter.Index.Warm).
	opened := make(chan openedFile, 8)
	s.OnDocumentOpened(func(abs, text string) {
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
		o.Watch(ctx, app.WatchHooks{
			Changed: func(paths []string) { s.FilesChanged(paths...) }, // live drift of waiting plans
			Off:     "drift is seen only in open buffers",
			// Said once: the watcher falls back once; polling compares the
			// files waiting plans depend on every poll period, the rest of
			// the tree less often on a large repository.
			Polling: func(why string) {
				s.Message("warning", "aide-lsp: "+why+"; the workspace is polled instead: the files waiting plans depend on are checked every few seconds, other changes may be seen later; raise fs.inotify.max_user_watches (aide-lsp doctor checks it)")
			},
		})
	})
}

// reportIndexProgress shows the background build as work-done progress in
// the editor (contract §5): files done of files listed, once a second,
// until the build ends. A build over before the client is initialized
// shows nothing.
func reportIndexProgress(ctx context.Context, s *Server, index *treesitter.Index, built <-chan struct{}, progressDelay time.Duration, clientReady <-chan struct{}) {
	select {
	case <-clientReady:
	case <-built:
		return
	case <-ctx.Done():
		return
	}
	// A build done within indexProgressDelay (a small or warm repository)
	// shows nothing: a bar that flashes says nothing.
	select {
	case <-time.After(progressDelay):
	case <-built:
		return
	case <-ctx.Done():
		return
	}
	p := s.BeginProgress(ctx, "aide: indexing the repository")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-built:
			c := index.Coverage()
			p.End(fmt.Sprintf("%d files indexed", c.Indexed))
			return
		case <-ctx.Done():
			p.End("stopped")
			return
		case <-tick.C:
			if done, total := index.Progress(); total > 0 {
				p.Report(fmt.Sprintf("%d / %d files", done, total), done*100/total)
			}
		}
	}
}
