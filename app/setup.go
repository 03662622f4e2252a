// Package app wires a language-server connection to the real engine: the
// workspace from the roots of initialize, the configuration layers
// (docs/contract.md §3) and the trust of a workspace's own file, the model
// Router, the tree-sitter index kept current from the file watcher, and
// commands.NewEngine with the server as its Client. It also paces the
// process's garbage collector for a language server (gctune.go). lsp stays
// an adapter between the wire and the engine; `aide-lsp serve`, the
// end-to-end, abuse and performance tests all use NewSetup.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/undo"
	"github.com/aide-lsp/aide-lsp/workspace"
	"github.com/aide-lsp/aide-lsp/written"
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

// indexBuild is the one background build of a connection's index; the
// engine waits for it (commands.Options.IndexReady) instead of building the
// index again on its first architect pass.
type indexBuild struct {
	index *treesitter.Index
	done  chan struct{} // closed when the build ended, built or not
	// preloaded is closed when the index holds the last session's files
	// (treesitter.Index.Preload): a map need not wait for the listing.
	preloaded chan struct{}
	onBuild   func(treesitter.Stats)
	before    func() // tests: called before the build starts
	// progressDelay is how long the build runs before the editor is shown
	// its progress (indexProgressDelay; tests set 0).
	progressDelay time.Duration
}

// indexProgressDelay: a build that ends sooner shows no progress.
const indexProgressDelay = time.Second

// wait returns once the index holds the last session's files (a warm
// start: the map checks what it reads), once the build has its file list
// (the map then waits only for the files near its request, treesitter's
// progressive index), when the build ended, or when ctx is done (the
// architect then goes on with whatever the index holds).
func (b *indexBuild) wait(ctx context.Context) {
	select {
	case <-b.done:
	case <-b.preloaded:
	case <-b.index.Started():
	case <-ctx.Done():
	}
}

// run builds the index once, in the background of a connection or an ACP
// root; warn tells the user what hides files from it.
func (b *indexBuild) run(ctx context.Context, ws *workspace.Workspace, log *slog.Logger, warn func(string)) {
	defer close(b.done)
	// The last session's index first, for the first map; the listing and
	// the build that checks it against the disk follow.
	if b.index.Preload(ws.Listed) {
		close(b.preloaded)
	}
	files, err := ws.Files(ctx)
	if err != nil {
		log.Warn("the repository index was not built", "err", err)
		return
	}
	if msg := ws.IgnoreWarning(); msg != "" {
		warn(msg)
	}
	if b.before != nil {
		b.before()
	}
	stats, err := b.index.Build(ctx, files)
	// The deny list may have grown while the build ran (the client's
	// configuration arrives after initialize).
	pruneDenied(ws, b.index)
	if err != nil && ctx.Err() == nil {
		// Build indexes what it can; its error is most often the tag
		// cache that could not be written (the next start re-parses).
		log.Warn("the repository index is incomplete or not cached", "err", err)
	}
	if b.onBuild != nil {
		b.onBuild(stats)
	}
	// The ranking graph of the whole index is built now, in the
	// background, not by the first architect request.
	b.index.PrepareMap()
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
func NewSetup(o SetupOptions) lsp.Backend {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	return lsp.BackendFunc(func(ctx context.Context, in lsp.SetupInput) (lsp.Engine, *workspace.Workspace, error) {
		s := in.Server
		if s == nil {
			return nil, nil, errors.New("setup needs the server")
		}
		if len(in.Roots) == 0 {
			return nil, nil, errors.New("no workspace folder: open a folder (aide-lsp edits files under the workspace root only)")
		}
		root := in.Roots[0]
		st := &configState{env: o.Env, root: root, initOptions: in.InitializationOptions}
		loaded := st.layers(nil)
		cfg, problems := loaded.Config, loaded.Problems

		ws, err := workspace.Open(in.Roots, cfg.Deny)
		if err != nil {
			return nil, nil, fmt.Errorf("the workspace %s cannot be opened: %w", root, err)
		}
		// The apply journal is the user's, in the state folder (contract §8).
		if err := ws.SetStateDir(config.StateDir(o.Env)); err != nil {
			s.Logger().Warn("no apply journal", "err", err)
		}
		models := &swapModel{opts: o}
		models.set(cfg)
		// The index's cache is the user's, never the workspace's (contract §2).
		cacheDir, cerr := treesitter.UserCacheDir(config.CacheDir(o.Env), root)
		if cerr != nil {
			s.Logger().Warn("no tag cache: every start indexes the workspace cold", "err", cerr)
		}
		index := treesitter.NewIndex(root, cacheDir)
		built := &indexBuild{index: index, done: make(chan struct{}), preloaded: make(chan struct{}), onBuild: o.onIndexBuild, progressDelay: indexProgressDelay}
		if o.beforeIndexBuild != nil {
			built.progressDelay, built.before = 0, o.beforeIndexBuild
		}
		hist, herr := estimate.OpenDefault(o.Env, in.Roots...) // the user's state folder, never the workspace
		if herr != nil {
			s.Logger().Warn("no call history: estimates have no expected completion", "err", herr)
		}
		undos, uerr := undo.Open(config.StateDir(o.Env), in.Roots...) // the user's state folder, never the workspace
		if uerr != nil {
			s.Logger().Warn("no undo records: accepted changes cannot be undone with aide.undo", "err", uerr)
		}
		// What the server wrote, so that a restart still knows its plan documents
		// from a repository's (contract §5): the user's state folder, never the workspace.
		wrote, werr := written.Open(config.StateDir(o.Env), in.Roots[0])
		if werr != nil {
			s.Logger().Warn("plan documents are not remembered across restarts", "err", werr)
		}
		engine, err := commands.NewEngine(commands.Options{
			Workspace: ws, Config: cfg, Model: models, Index: index, Client: s,
			IndexReady: built.wait, History: hist, Undo: undos, Written: wrote,
		})
		if err != nil {
			return nil, nil, err
		}
		for _, p := range engine.LoadProblems {
			s.Logger().Warn("session file not loaded", "problem", p)
		}
		s.SetDelivery(cfg.Delivery)
		// Requests to the client (the index's progress) wait for its
		// initialized notification, which the first reload follows.
		clientReady := make(chan struct{})
		startIndex(s, ws, index, built, engine.DependedOn, o.onWarm, clientReady)

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
			if err := ws.SetDeny(cfg.Deny); err != nil {
				s.Message("warning", "aide-lsp configuration: "+err.Error())
			}
			pruneDenied(ws, index)
			if first {
				// The index's build lists the files only now, with the
				// client's deny list in force: a map taken while it
				// builds never holds a file the user denied.
				close(clientReady)
				first = false
			}
			engine.SetConfig(cfg)
			models.set(cfg)
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
	return config.Load(config.LoadOptions{
		Getenv: c.env,
		Root:   c.root,
		Editor: []config.Layer{
			{Source: "initializationOptions", Origin: config.FromEditor, Raw: c.initOptions},
			{Source: "workspace/configuration", Origin: config.FromEditor, Raw: section},
		},
	})
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
func (c *configState) reportTrust(ctx context.Context, s *lsp.Server, wf config.WorkspaceFile) {
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
		HTTPAllowed:    cfg.HTTPAllowed,
	}))
}

// Chat implements model.Client.
func (m *swapModel) Chat(ctx context.Context, req model.Request, onDelta func(model.Delta)) (*model.Response, error) {
	return m.router.Load().Chat(ctx, req, onDelta)
}

// watchMaxBytes: the index parses no bigger file (generated or data), so
// the watcher does not read one.
const watchMaxBytes = 1 << 20

// watchedChange brings the index up to date with one changed path. The
// file is stat'ed before anything is read (contract §8): a large file, a
// FIFO or device, a file of an extension no grammar parses, or a binary
// file is never read for the index.
func watchedChange(ws *workspace.Workspace, index *treesitter.Index, rel string) {
	abs, _, err := ws.Resolve(rel)
	if err != nil {
		index.Remove(rel) // denied now, or led outside by a new link
		return
	}
	st, err := os.Stat(abs)
	if err != nil {
		// Gone from disk; an open buffer still counts.
		if _, exists, _ := ws.Read(rel); !exists {
			index.Remove(rel)
		}
		return
	}
	if !st.Mode().IsRegular() || st.Size() > watchMaxBytes {
		index.Remove(rel)
		return
	}
	if ext := filepath.Ext(rel); ext != "" && ext != "." && treesitter.Language(rel, nil) == "" {
		return
	}
	text, exists, err := ws.Read(rel)
	if err != nil || !exists {
		return
	}
	if strings.IndexByte(text[:min(len(text), 8000)], 0) >= 0 {
		index.Remove(rel) // binary
		return
	}
	index.Update(rel, []byte(text))
}

// pruneDenied drops from the index every file the deny list now covers:
// a denied file's symbols must not reach the repository map either.
func pruneDenied(ws *workspace.Workspace, index *treesitter.Index) {
	for _, rel := range index.Files() {
		if ws.Denied(rel) {
			index.Remove(rel)
		}
	}
}

// openedFile is a document the editor opened.
type openedFile struct{ abs, text string }

// startIndex builds the repository index in the background and keeps it
// current from the workspace watcher; both stop with the connection.
func startIndex(s *lsp.Server, ws *workspace.Workspace, index *treesitter.Index, built *indexBuild, depends func() []string, onWarm func(string), clientReady <-chan struct{}) {
	s.Go(func(ctx context.Context) { reportIndexProgress(ctx, s, index, built, clientReady) })
	s.Go(func(ctx context.Context) {
		// The files are listed once the client's configuration (its deny
		// list) is in force: a map taken while the index builds never
		// holds a file the user denied.
		select {
		case <-clientReady:
		case <-ctx.Done():
			close(built.done)
			return
		}
		built.run(ctx, ws, s.Logger(), func(msg string) { s.Message("warning", "aide-lsp: "+msg) })
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
		watchRoot(ctx, ws, index, watchHooks{
			changed: func(paths []string) { s.FilesChanged(paths...) }, // live drift of waiting plans
			depends: depends,
			log:     s.Logger(),
			off:     "drift is seen only in open buffers",
			// Said once: the watcher falls back once; polling compares the
			// files waiting plans depend on every poll period, the rest of
			// the tree less often on a large repository.
			polling: func(why string) {
				s.Message("warning", "aide-lsp: "+why+"; the workspace is polled instead: the files waiting plans depend on are checked every few seconds, other changes may be seen later; raise fs.inotify.max_user_watches (aide-lsp doctor checks it)")
			},
		})
	})
}

// reportIndexProgress shows the background build as work-done progress in
// the editor (contract §5): files done of files listed, once a second,
// until the build ends. A build over before the client is initialized
// shows nothing.
func reportIndexProgress(ctx context.Context, s *lsp.Server, index *treesitter.Index, built *indexBuild, clientReady <-chan struct{}) {
	select {
	case <-clientReady:
	case <-built.done:
		return
	case <-ctx.Done():
		return
	}
	// A build done within indexProgressDelay (a small or warm repository)
	// shows nothing: a bar that flashes says nothing.
	select {
	case <-time.After(built.progressDelay):
	case <-built.done:
		return
	case <-ctx.Done():
		return
	}
	p := s.BeginProgress(ctx, "aide: indexing the repository")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-built.done:
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
