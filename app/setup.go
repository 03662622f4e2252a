// Package app is the one wiring of the real engine (Open, engine.go) that
// every front end uses: the language server per connection (lsp.NewSetup),
// the ACP agent per session folder, `aide-lsp run` and the benchmarks. It
// opens the workspace and its apply journal, the configuration layers
// (docs/contract.md §3) and the trust of a workspace's own file, the model
// Router, the tree-sitter index kept current from the file watcher, and
// commands.NewEngine with the front end as its Client. It also paces the
// process's garbage collector for a long-running server (gctune.go). app
// imports no front end: lsp and acp both import it, never each other.
package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

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
}

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

// swapModel is the engine's model client: a Router rebuilt whenever the
// configuration changes its providers or timeout, so a settings change
// applies to the next call without restarting the server.
type swapModel struct {
	env            func(string) string
	retryBaseDelay time.Duration
	router         atomic.Pointer[model.Router]
}

func (m *swapModel) set(cfg config.Config) {
	m.router.Store(model.NewRouter(cfg.Providers, model.Options{
		Timeout:        time.Duration(cfg.RequestTimeoutSeconds) * time.Second,
		Env:            m.env,
		RetryBaseDelay: m.retryBaseDelay,
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
