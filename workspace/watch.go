package workspace

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Timing constants of the watcher. None of them is a correctness bound:
// each trades latency for fewer, fuller batches.
const (
	// DefaultDebounce is the quiet period before a batch is sent. Editors
	// save through a burst (write a temporary file, rename it, chmod) and
	// `git checkout` or a formatter touch many files within a few
	// milliseconds; 50 ms coalesces those into one batch while staying far
	// below what a person notices, and drift is only checked when the
	// editor call starts, seconds after the plan.
	DefaultDebounce = 50 * time.Millisecond
	// DefaultMaxDelay caps how long a continuous stream of changes (a build
	// writing files for minutes) can hold a batch back: twice a second is
	// enough for a status line and keeps batches bounded.
	DefaultMaxDelay = 500 * time.Millisecond
	// DefaultPollInterval is the polling fallback's period. A poll walks
	// and stats the whole tree: 200-300 ms of CPU for the 11,400 files of
	// $(go env GOROOT)/src (BenchmarkPollScan), so 2 s costs 10-15% of one
	// core there, and drift, checked at the editor call, is at most 2 s
	// late. Larger trees stretch the period (pollCostFactor).
	DefaultPollInterval = 2 * time.Second
	// pollCostFactor: the period is at least this many times the last
	// poll's duration, so polling never takes more than ~10% of a core
	// however big the tree that exhausted the inotify watches.
	pollCostFactor = 10
	// expectWindow is how long, after ExpectWrite, a content that is not
	// yet the announced one is held back as "our write still in
	// progress" (a write and its events take milliseconds; 5 s covers a
	// loaded machine). Content equal to the announced one is never
	// reported; anything else is reported at the latest when the window
	// ends, or at once after our content was seen.
	expectWindow = 5 * time.Second
	// racyWindow: a file whose modification time is this close to the
	// moment we stat it may change again without its mtime changing
	// (coarse timestamps: a kernel tick, 2 s on FAT), so its content hash
	// is kept and compared instead — git's "racy clean" rule.
	racyWindow = 2 * time.Second
	// racyHashLimit: racy files larger than this are not hashed but
	// reported as changed on the next scan (a spurious event is harmless).
	racyHashLimit = 8 << 20
	// recentLimit bounds the log of recent disk events used to detect
	// renames in Drift.
	recentLimit = 4096
)

// WatchOptions tune a Watcher; the zero value is the default.
type WatchOptions struct {
	// MaxWatches, when > 0, caps the inotify watches this watcher takes,
	// as if the kernel's fs.inotify.max_user_watches were reached there
	// (tests use a tiny value to exercise the polling fallback).
	MaxWatches int
	// Debounce, MaxDelay and PollInterval default to the constants above.
	Debounce     time.Duration
	MaxDelay     time.Duration
	PollInterval time.Duration
	// Poll skips inotify and polls from the start.
	Poll bool
	// Logf receives the watcher's log lines (default: log.Printf).
	Logf func(format string, args ...any)
	// Depends, when set, lists the root-relative files sessions depend on
	// (the snapshots of plans waiting for approval): while polling, they
	// are compared with the disk every PollInterval, however long the
	// whole tree's scan stretches (pollCostFactor) on a large repository,
	// or every DependsInterval when set.
	Depends         func() []string
	DependsInterval time.Duration
	// OnPolling, when set, is called once, with the reason, when the
	// watcher falls back to polling after it started with inotify (its
	// watches ran out): the server says it to the user once.
	OnPolling func(why string)
}

// WatchStats describe a running watcher.
type WatchStats struct {
	Dirs    int  // folders under watch (not ignored, not denied)
	Files   int  // files known to the watcher
	Watches int  // inotify watches held (0 when polling)
	Polling bool // true once it fell back to polling
	Rescans int  // full rescans done (overflow, .gitignore change, polls)
}

// Event is a change seen in the workspace, from disk or from the editor.
type Event struct {
	Path   string // root-relative
	Op     string // "write", "create", "remove", "rename"
	Source string // "disk" or "buffer"
}

// Watcher watches the roots recursively and sends debounced batches.
type Watcher struct {
	events chan []Event

	ws     *Workspace
	opts   WatchOptions
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{} // capacity 1: "pending changed"

	mu      sync.Mutex // guards pending and stats
	pending map[pendingKey]fsnotify.Op
	stats   WatchStats

	// Owned by the run goroutine (and by Watch before it starts).
	fsw     *fsnotify.Watcher
	dirs    map[string]bool     // absolute folders under watch or known when polling
	index   map[string]fileStat // absolute path → last stat of every known file
	polling bool
	rescan  bool // a .gitignore changed: reconcile after the next flush
}

// pendingKey is a path with a change not yet sent, per source.
type pendingKey struct {
	abs    string
	source string // "disk" or "buffer"
}

// fileStat is what the watcher remembers of a file to tell changes apart.
type fileStat struct {
	size    int64
	modTime time.Time
	mode    fs.FileMode
	ino     uint64
	hash    string // kept for racy entries only (see racyWindow)
	racy    bool
}

// Watch starts watching. It falls back to polling, with a log line, when
// inotify watches run out.
func (w *Workspace) Watch(ctx context.Context) (*Watcher, error) {
	return w.WatchWith(ctx, WatchOptions{})
}

// WatchWith is Watch with options. The initial scan is done when it
// returns: any change made afterwards is reported.
func (w *Workspace) WatchWith(ctx context.Context, opts WatchOptions) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.MaxDelay < opts.Debounce {
		opts.MaxDelay = opts.Debounce
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	ctx, cancel := context.WithCancel(ctx)
	wt := &Watcher{
		events:  make(chan []Event),
		ws:      w,
		opts:    opts,
		cancel:  cancel,
		done:    make(chan struct{}),
		kick:    make(chan struct{}, 1),
		pending: map[pendingKey]fsnotify.Op{},
		dirs:    map[string]bool{},
		index:   map[string]fileStat{},
	}
	if opts.Poll {
		wt.polling = true
	} else if fsw, err := fsnotify.NewWatcher(); err != nil {
		wt.polling = true
		opts.Logf("workspace: cannot start inotify (%v); polling every %s instead", err, opts.PollInterval)
	} else {
		wt.fsw = fsw
	}
	for ri := range w.roots {
		if err := wt.addTree(ctx, ri, w.roots[ri], false); err != nil {
			wt.closeFS()
			cancel()
			return nil, err
		}
	}
	wt.updateStats(false)
	w.watchMu.Lock()
	w.watchers[wt] = true
	w.watchMu.Unlock()
	go wt.run(ctx)
	return wt, nil
}

// Events delivers debounced batches of changes; closed when the watcher stops.
func (wt *Watcher) Events() <-chan []Event { return wt.events }

// Close stops the watcher.
func (wt *Watcher) Close() error {
	wt.cancel()
	<-wt.done
	return nil
}

// Stats reports the watcher's folders, files and watches.
func (wt *Watcher) Stats() WatchStats {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.stats
}

// BufferChanged tells the workspace an open buffer changed (didChange,
// didSave); it is merged into the watcher's stream. It never blocks.
func (w *Workspace) BufferChanged(abs string, version int32) {
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	for wt := range w.watchers {
		wt.add(pendingKey{abs: filepath.Clean(abs), source: "buffer"}, fsnotify.Write)
	}
}

// ExpectWrite tells the workspace we are about to write content to abs
// ourselves, so the write is not reported as drift.
func (w *Workspace) ExpectWrite(abs string, content []byte) {
	w.expect(abs, expectation{hash: hashBytes(content)})
}

// ExpectRemove tells the workspace we are about to delete (or rename away)
// abs ourselves, so the removal is not reported as drift.
func (w *Workspace) ExpectRemove(abs string) {
	w.expect(abs, expectation{remove: true})
}

// expectation is a write of ours announced by ExpectWrite / ExpectRemove.
type expectation struct {
	hash     string
	remove   bool
	deadline time.Time
	seen     bool // the announced state was observed on disk
}

func (w *Workspace) expect(abs string, e expectation) {
	now := time.Now()
	e.deadline = now.Add(expectWindow)
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	for p, old := range w.expected { // forget announcements no event ever matched
		if now.After(old.deadline.Add(expectWindow)) {
			delete(w.expected, p)
		}
	}
	w.expected[filepath.Clean(abs)] = e
}

// recentEvent is a disk event remembered for rename detection.
type recentEvent struct {
	at  time.Time
	rel string
	op  string
}

func (w *Workspace) remember(evs []Event) {
	now := time.Now()
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	for _, e := range evs {
		if e.Source == "disk" && e.Op == "create" {
			w.recent = append(w.recent, recentEvent{at: now, rel: e.Path, op: e.Op})
		}
	}
	if over := len(w.recent) - recentLimit; over > 0 {
		w.recent = append([]recentEvent(nil), w.recent[over:]...)
	}
}

// createdSince lists paths a watcher saw created after t.
func (w *Workspace) createdSince(t time.Time) []string {
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	var out []string
	for _, e := range w.recent {
		if !e.at.Before(t) {
			out = append(out, e.rel)
		}
	}
	return out
}

// add records a pending change and wakes the run loop.
func (wt *Watcher) add(k pendingKey, op fsnotify.Op) {
	wt.mu.Lock()
	wt.pending[k] |= op
	wt.mu.Unlock()
	select {
	case wt.kick <- struct{}{}:
	default:
	}
}

func (wt *Watcher) closeFS() {
	if wt.fsw != nil {
		wt.fsw.Close()
		wt.fsw = nil
	}
}

func (wt *Watcher) updateStats(rescanned bool) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.stats.Dirs = len(wt.dirs)
	wt.stats.Files = len(wt.index)
	wt.stats.Polling = wt.polling
	wt.stats.Watches = 0
	if !wt.polling {
		wt.stats.Watches = len(wt.dirs)
	}
	if rescanned {
		wt.stats.Rescans++
	}
}

// run is the watcher's single loop: it owns fsw, dirs and index.
func (wt *Watcher) run(ctx context.Context) {
	defer close(wt.done)
	defer close(wt.events)
	defer func() {
		wt.ws.watchMu.Lock()
		delete(wt.ws.watchers, wt)
		wt.ws.watchMu.Unlock()
		wt.closeFS()
	}()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	timerSet := false
	var firstPending time.Time
	var poll, depends *time.Ticker
	var pollC, dependsC <-chan time.Time
	var out []Event

	schedule := func() {
		now := time.Now()
		if !timerSet {
			firstPending = now
		}
		due := now.Add(wt.opts.Debounce)
		if limit := firstPending.Add(wt.opts.MaxDelay); due.After(limit) {
			due = limit
		}
		timer.Reset(time.Until(due))
		timerSet = true
	}

	for {
		if wt.polling && poll == nil {
			poll = time.NewTicker(wt.opts.PollInterval)
			defer poll.Stop()
			pollC = poll.C
			if wt.opts.Depends != nil {
				depends = time.NewTicker(cmp.Or(wt.opts.DependsInterval, wt.opts.PollInterval))
				defer depends.Stop()
				dependsC = depends.C
			}
		}
		var fsEvents <-chan fsnotify.Event
		var fsErrors <-chan error
		if wt.fsw != nil {
			fsEvents, fsErrors = wt.fsw.Events, wt.fsw.Errors
		}
		var send chan<- []Event
		if len(out) > 0 {
			send = wt.events
		}
		select {
		case <-ctx.Done():
			return
		case send <- out:
			out = nil
		case ev, ok := <-fsEvents:
			if !ok { // inotify stopped under us (we nil fsw before closing it)
				wt.fsw = nil
				wt.fallBackToPolling("inotify stopped")
				continue
			}
			wt.handle(ctx, ev)
			schedule()
		case err, ok := <-fsErrors:
			if !ok {
				wt.fsw = nil
				wt.fallBackToPolling("inotify stopped")
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				wt.opts.Logf("workspace: inotify event queue overflowed; rescanning the workspace")
				wt.rescanAll(ctx)
				schedule()
			} else if errors.Is(err, syscall.ENOSPC) {
				wt.fallBackToPolling("inotify watches ran out (raise fs.inotify.max_user_watches to watch again)")
			} else {
				wt.opts.Logf("workspace: watcher error: %v", err)
			}
		case <-wt.kick:
			schedule()
		case <-pollC:
			began := time.Now()
			wt.rescanAll(ctx)
			if period := pollCostFactor * time.Since(began); period > wt.opts.PollInterval {
				poll.Reset(period)
			} else {
				poll.Reset(wt.opts.PollInterval)
			}
			out = mergeBatches(out, wt.flush())
		case <-dependsC:
			wt.recheck(wt.opts.Depends())
			out = mergeBatches(out, wt.flush())
		case <-timer.C:
			timerSet = false
			out = mergeBatches(out, wt.flush())
			if wt.rescan {
				wt.rescan = false
				wt.rescanAll(ctx)
				out = mergeBatches(out, wt.flush())
			}
			wt.mu.Lock()
			more := len(wt.pending) > 0
			wt.mu.Unlock()
			if more { // held back (a write of ours still in progress)
				schedule()
			}
		}
	}
}

// mergeBatches adds batch to a batch the consumer has not taken yet, one
// event per path and source, so a reader that falls behind costs memory in
// proportion to the paths changed, not to the changes.
func mergeBatches(out, batch []Event) []Event {
	if len(out) == 0 {
		return batch
	}
	type key struct{ path, source string }
	at := make(map[key]int, len(out))
	for i, e := range out {
		at[key{e.Path, e.Source}] = i
	}
	for _, e := range batch {
		i, ok := at[key{e.Path, e.Source}]
		if !ok {
			at[key{e.Path, e.Source}] = len(out)
			out = append(out, e)
			continue
		}
		prev := out[i].Op
		switch {
		case prev == "create" && e.Op == "write":
			// still a creation for the reader
		case (prev == "remove" || prev == "rename") && e.Op == "create":
			out[i].Op = "write" // replaced
		default:
			out[i].Op = e.Op
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Source < out[j].Source
	})
	return out
}

// handle takes one fsnotify event: folders are added or dropped at once,
// file changes wait in pending for the next flush.
func (wt *Watcher) handle(ctx context.Context, ev fsnotify.Event) {
	abs := filepath.Clean(ev.Name)
	ri := wt.ws.rootOf(abs, wt.ws.roots)
	if ri < 0 {
		return
	}
	if filepath.Base(abs) == ".gitignore" {
		wt.rescan = true
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if wt.dirs[abs] {
			wt.dropTree(abs, ev.Op)
			return
		}
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(abs); err == nil && st.IsDir() {
			if !wt.dirs[abs] {
				_ = wt.addTree(ctx, ri, abs, true)
			}
			return
		}
	}
	if ev.Op == fsnotify.Chmod {
		return // no content change
	}
	wt.add(pendingKey{abs: abs, source: "disk"}, ev.Op)
}

// addTree walks dir, watching every folder before listing it (so nothing
// created meanwhile is missed) and recording its files; when report is
// set, the files found are reported as created.
func (wt *Watcher) addTree(ctx context.Context, ri int, dir string, report bool) error {
	return wt.ws.walk(ctx, ri, dir, func(abs string, d fs.DirEntry) error {
		if d.IsDir() {
			wt.watchDir(abs)
			return nil
		}
		if report {
			wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Create)
		} else if st, err := d.Info(); err == nil {
			wt.index[abs] = wt.statOf(abs, st)
		}
		return nil
	})
}

// watchDir starts watching one folder, falling back to polling when
// inotify watches run out.
func (wt *Watcher) watchDir(abs string) {
	wt.dirs[abs] = true
	if wt.polling || wt.fsw == nil {
		return
	}
	if wt.opts.MaxWatches > 0 && len(wt.dirs) > wt.opts.MaxWatches {
		wt.fallBackToPolling("inotify watches ran out (the configured limit of " + strconv.Itoa(wt.opts.MaxWatches) + ")")
		return
	}
	if err := wt.fsw.Add(abs); err != nil {
		switch {
		case errors.Is(err, syscall.ENOSPC):
			wt.fallBackToPolling("inotify watches ran out (raise fs.inotify.max_user_watches to watch again)")
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOTDIR):
			delete(wt.dirs, abs) // gone already, or unreadable: nothing to watch
		default:
			wt.opts.Logf("workspace: cannot watch %s: %v", abs, err)
		}
	}
}

func (wt *Watcher) fallBackToPolling(why string) {
	if wt.polling {
		return
	}
	wt.opts.Logf("workspace: %s after %d folders; polling every %s instead", why, len(wt.dirs), wt.opts.PollInterval)
	if wt.opts.OnPolling != nil {
		wt.opts.OnPolling(why)
	}
	wt.polling = true
	wt.closeFS()
	wt.updateStats(false)
}

// dropTree forgets a removed or renamed folder: its watches (the kernel
// keeps the ones below a moved folder, under their old names) and its
// files, which are reported as removed or renamed.
func (wt *Watcher) dropTree(dir string, op fsnotify.Op) {
	for d := range wt.dirs {
		if within(dir, d) {
			delete(wt.dirs, d)
			if wt.fsw != nil {
				_ = wt.fsw.Remove(d)
			}
		}
	}
	fileOp := fsnotify.Remove
	if op.Has(fsnotify.Rename) {
		fileOp = fsnotify.Rename
	}
	for f := range wt.index {
		if within(dir, f) {
			wt.add(pendingKey{abs: f, source: "disk"}, fileOp)
		}
	}
	wt.updateStats(false)
}

// rescanAll walks every root again (after an overflow, a .gitignore change,
// or as a poll): folders are reconciled with the watches, files with the
// index, and every difference becomes a pending change.
func (wt *Watcher) rescanAll(ctx context.Context) {
	seenDirs := map[string]bool{}
	seenFiles := map[string]bool{}
	for ri := range wt.ws.roots {
		_ = wt.ws.walk(ctx, ri, wt.ws.roots[ri], func(abs string, d fs.DirEntry) error {
			if d.IsDir() {
				seenDirs[abs] = true
				if !wt.dirs[abs] {
					wt.watchDir(abs)
				}
				return nil
			}
			seenFiles[abs] = true
			st, err := d.Info()
			if err != nil {
				return nil
			}
			old, known := wt.index[abs]
			if !known {
				wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Create)
			} else if changed, now := wt.changed(abs, old, st); changed {
				wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Write)
			} else {
				wt.index[abs] = now // a racy entry may have settled
			}
			return nil
		})
	}
	if ctx.Err() != nil {
		return
	}
	for d := range wt.dirs {
		if !seenDirs[d] {
			delete(wt.dirs, d)
			if wt.fsw != nil {
				_ = wt.fsw.Remove(d)
			}
		}
	}
	for f := range wt.index {
		if !seenFiles[f] {
			wt.add(pendingKey{abs: f, source: "disk"}, fsnotify.Remove)
		}
	}
	wt.updateStats(true)
}

// recheck compares the files rels (root-relative) with what the watcher
// knows of them, as a scan of the whole tree would, and queues what
// changed: created, written, removed.
func (wt *Watcher) recheck(rels []string) {
	for _, rel := range rels {
		abs, _, err := wt.ws.Resolve(rel)
		if err != nil {
			continue
		}
		old, known := wt.index[abs]
		st, err := os.Lstat(abs)
		switch {
		case err != nil:
			if known {
				wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Remove)
			}
		case st.IsDir():
		case !known:
			wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Create)
		default:
			if changed, now := wt.changed(abs, old, st); changed {
				wt.add(pendingKey{abs: abs, source: "disk"}, fsnotify.Write)
			} else {
				wt.index[abs] = now
			}
		}
	}
}

// flush turns the pending changes into one sorted batch: each path's final
// state decides its op, ignored and denied paths are dropped, and our own
// writes (ExpectWrite) are left out.
func (wt *Watcher) flush() []Event {
	wt.mu.Lock()
	pending := wt.pending
	wt.pending = map[pendingKey]fsnotify.Op{}
	wt.mu.Unlock()

	var batch []Event
	var holdBack []pendingKey
	for k, raw := range pending {
		ri := wt.ws.rootOf(k.abs, wt.ws.roots)
		if ri < 0 || wt.ws.deniedIn(ri, k.abs) || wt.ws.ignored(k.abs, false) {
			delete(wt.index, k.abs)
			continue
		}
		rel := wt.ws.relName(k.abs)
		if k.source == "buffer" {
			batch = append(batch, Event{Path: rel, Op: "write", Source: "buffer"})
			continue
		}
		_, had := wt.index[k.abs]
		st, err := os.Lstat(k.abs)
		exists := err == nil && !st.IsDir()
		var op string
		switch {
		case exists && had:
			op = "write"
		case exists:
			op = "create"
		case had && raw.Has(fsnotify.Rename):
			op = "rename"
		case had:
			op = "remove"
		default:
			continue // created and gone within one batch (a temporary file)
		}
		if exists {
			wt.index[k.abs] = wt.statOf(k.abs, st)
		} else {
			delete(wt.index, k.abs)
		}
		switch wt.ours(k.abs, exists) {
		case "ours":
			continue
		case "wait":
			holdBack = append(holdBack, k)
			continue
		}
		batch = append(batch, Event{Path: rel, Op: op, Source: "disk"})
	}
	for _, k := range holdBack {
		wt.mu.Lock()
		wt.pending[k] |= fsnotify.Write
		wt.mu.Unlock()
	}
	sort.Slice(batch, func(i, j int) bool {
		if batch[i].Path != batch[j].Path {
			return batch[i].Path < batch[j].Path
		}
		return batch[i].Source < batch[j].Source
	})
	wt.ws.remember(batch)
	wt.updateStats(false)
	return batch
}

// ours decides whether the current state of abs is a write we announced:
// "ours" (hide it), "wait" (our write seems still in progress: the content
// is not the announced one yet) or "" (report it).
func (wt *Watcher) ours(abs string, exists bool) string {
	wt.ws.watchMu.Lock()
	e, ok := wt.ws.expected[abs]
	wt.ws.watchMu.Unlock()
	if !ok {
		return ""
	}
	now := time.Now()
	expired := now.After(e.deadline)
	match := false
	if e.remove {
		match = !exists
	} else if exists {
		if data, err := os.ReadFile(abs); err == nil {
			match = hashBytes(data) == e.hash
		}
	}
	switch {
	case match:
		// Exactly what we wrote (or removed): nothing to report, even when
		// a loaded machine delivered it after the window.
		wt.ws.watchMu.Lock()
		if cur, ok := wt.ws.expected[abs]; ok && cur == e {
			if expired {
				delete(wt.ws.expected, abs)
			} else {
				cur.seen = true
				wt.ws.expected[abs] = cur
			}
		}
		wt.ws.watchMu.Unlock()
		return "ours"
	case !expired && !e.remove && !e.seen:
		return "wait"
	}
	wt.ws.watchMu.Lock()
	if cur, ok := wt.ws.expected[abs]; ok && cur == e {
		delete(wt.ws.expected, abs)
	}
	wt.ws.watchMu.Unlock()
	return ""
}

// statOf records a file's stat; a racy one also gets its content hash.
func (wt *Watcher) statOf(abs string, st fs.FileInfo) fileStat {
	fsx := fileStat{size: st.Size(), modTime: st.ModTime(), mode: st.Mode()}
	fsx.ino = inodeOf(st)
	if racy(st.ModTime(), time.Now()) {
		fsx.racy = true
		if st.Mode().IsRegular() && st.Size() <= racyHashLimit {
			if data, err := os.ReadFile(abs); err == nil {
				fsx.hash = hashBytes(data)
			}
		}
	}
	return fsx
}

// changed compares a remembered stat with the file now and returns the
// new stat; for an entry that was racy the content decides.
func (wt *Watcher) changed(abs string, old fileStat, st fs.FileInfo) (bool, fileStat) {
	now := wt.statOf(abs, st)
	if now.size != old.size || !now.modTime.Equal(old.modTime) || now.mode != old.mode || now.ino != old.ino {
		return true, now
	}
	if !old.racy {
		return false, now
	}
	if old.hash == "" {
		return true, now // too large to hash when recorded: assume changed
	}
	h := now.hash
	if h == "" {
		data, err := os.ReadFile(abs)
		if err != nil {
			return true, now
		}
		h = hashBytes(data)
	}
	return h != old.hash, now
}

// racy reports whether a modification time is too close to now to be
// trusted (see racyWindow).
func racy(modTime, now time.Time) bool {
	return !modTime.Before(now.Add(-racyWindow))
}
