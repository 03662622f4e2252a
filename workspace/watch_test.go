package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// hangGuard only stops a test that would otherwise hang; it is never what
// a test asserts.
const hangGuard = 2 * time.Minute

// collector gathers a watcher's batches.
type collector struct {
	mu     sync.Mutex
	events []Event
	closed bool
	wake   chan struct{}
}

func collect(t testing.TB, wt *Watcher) *collector {
	c := &collector{wake: make(chan struct{}, 1)}
	go func() {
		for batch := range wt.Events() {
			c.mu.Lock()
			c.events = append(c.events, batch...)
			c.mu.Unlock()
			c.poke()
		}
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.poke()
	}()
	return c
}

func (c *collector) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// waitFor waits until cond holds over the events seen so far.
func (c *collector) waitFor(t testing.TB, what string, cond func([]Event) bool) []Event {
	t.Helper()
	deadline := time.After(hangGuard)
	for {
		c.mu.Lock()
		evs := append([]Event(nil), c.events...)
		closed := c.closed
		c.mu.Unlock()
		if cond(evs) {
			return evs
		}
		if closed {
			t.Fatalf("watcher closed while waiting for %s; events: %v", what, evs)
		}
		select {
		case <-c.wake:
		case <-deadline:
			t.Fatalf("hang guard: never saw %s; events: %v", what, evs)
		}
	}
}

func has(e Event) func([]Event) bool {
	return func(evs []Event) bool {
		for _, x := range evs {
			if x == e {
				return true
			}
		}
		return false
	}
}

func disk(path, op string) Event { return Event{Path: path, Op: op, Source: "disk"} }

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func startWatch(t testing.TB, w *Workspace, opts WatchOptions) (*Watcher, *collector) {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	wt, err := w.WatchWith(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wt.Close() })
	return wt, collect(t, wt)
}

func TestWatchWritesRenamesDeletesAndNewFolders(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"a.go": "package a", "pkg/b.go": "package pkg"})
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{})

	write(t, root, "a.go", "package a // edited")
	c.waitFor(t, "write a.go", has(disk("a.go", "write")))

	// A new folder tree appears (mkdir -p): its file is seen, and the new
	// folders are watched afterwards.
	write(t, root, "x/y/z.go", "package y")
	c.waitFor(t, "create x/y/z.go", has(disk("x/y/z.go", "create")))
	write(t, root, "x/y/z.go", "package y // edited")
	c.waitFor(t, "write x/y/z.go", has(disk("x/y/z.go", "write")))

	// File rename and delete.
	if err := os.Rename(filepath.Join(root, "a.go"), filepath.Join(root, "pkg", "renamed.go")); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "rename a.go", func(evs []Event) bool {
		return has(disk("a.go", "rename"))(evs) && has(disk("pkg/renamed.go", "create"))(evs)
	})
	if err := os.Remove(filepath.Join(root, "pkg", "b.go")); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "remove pkg/b.go", has(disk("pkg/b.go", "remove")))

	// Folder rename: old names go, new names come, and the moved folders
	// are watched under their new names.
	if err := os.Rename(filepath.Join(root, "x"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "folder rename", func(evs []Event) bool {
		return has(disk("x/y/z.go", "rename"))(evs) && has(disk("moved/y/z.go", "create"))(evs)
	})
	write(t, root, "moved/y/z.go", "package y // after the move")
	c.waitFor(t, "write moved/y/z.go", has(disk("moved/y/z.go", "write")))

	// Folder removal.
	if err := os.RemoveAll(filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	evs := c.waitFor(t, "remove moved/y/z.go", has(disk("moved/y/z.go", "remove")))
	moved := 0
	for i, e := range evs {
		if e == disk("x/y/z.go", "rename") {
			moved = i
		}
	}
	for _, e := range evs[moved+1:] {
		if strings.HasPrefix(e.Path, "x/") {
			t.Errorf("an event under the old folder name after the move: %v", e)
		}
	}
}

func TestWatchIgnoredAndDeniedAreNotReported(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".gitignore":          "node_modules/\n*.tmp\n",
		"node_modules/a/x.js": "x",
		"main.go":             "package main",
	})
	w := open(t, root)
	wt, c := startWatch(t, w, WatchOptions{})
	if st := wt.Stats(); st.Dirs != 1 {
		t.Errorf("watching %d folders, want 1 (the ignored tree is never watched)", st.Dirs)
	}

	write(t, root, "node_modules/a/x.js", "changed")
	write(t, root, "node_modules/new/y.js", "new")
	write(t, root, "scratch.tmp", "x")
	write(t, root, ".env", "SECRET=1")
	write(t, root, "main.go", "package main // marker")
	evs := c.waitFor(t, "the marker write", has(disk("main.go", "write")))
	for _, e := range evs {
		if e.Path != "main.go" {
			t.Errorf("reported a change the rules exclude: %v", e)
		}
	}
}

func TestWatchBurstEndsWithFinalState(t *testing.T) {
	root := t.TempDir()
	const files, rounds = 100, 100 // 10,000 writes
	for i := 0; i < files; i++ {
		write(t, root, fmt.Sprintf("d%d/f%d.txt", i%10, i), "start")
	}
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{})

	for r := 0; r < rounds; r++ {
		for i := 0; i < files; i++ {
			write(t, root, fmt.Sprintf("d%d/f%d.txt", i%10, i), fmt.Sprintf("round %d", r))
		}
	}
	// The final state: every tenth file deleted, and a new folder.
	for i := 0; i < files; i += 10 {
		if err := os.Remove(filepath.Join(root, fmt.Sprintf("d%d/f%d.txt", i%10, i))); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "late/new.txt", "late")
	write(t, root, "marker.txt", "done")

	final := func(evs []Event) map[string]string {
		last := map[string]string{}
		for _, e := range evs {
			last[e.Path] = e.Op
		}
		return last
	}
	evs := c.waitFor(t, "every file in its final state", func(evs []Event) bool {
		last := final(evs)
		for i := 0; i < files; i++ {
			op := last[fmt.Sprintf("d%d/f%d.txt", i%10, i)]
			if (i%10 == 0) != (op == "remove") {
				return false
			}
		}
		return last["late/new.txt"] == "create" && last["marker.txt"] == "create"
	})
	for p, op := range final(evs) {
		_, exists, _ := w.Read(p)
		if exists == (op == "remove") {
			t.Errorf("%s: last event %q disagrees with the disk (exists %v)", p, op, exists)
		}
	}
}

func TestWatchFallsBackToPollingWhenWatchesRunOut(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"a/a.go": "a", "b/b.go": "b", "c/c.go": "c"})
	w := open(t, root)
	var logMu sync.Mutex
	var logs, said []string
	wt, c := startWatch(t, w, WatchOptions{
		MaxWatches: 2,
		OnPolling: func(why string) {
			logMu.Lock()
			said = append(said, why)
			logMu.Unlock()
		},
		PollInterval: 20 * time.Millisecond, // a test wants changes soon; the default is for real trees
		Logf: func(format string, args ...any) {
			logMu.Lock()
			logs = append(logs, fmt.Sprintf(format, args...))
			logMu.Unlock()
		},
	})
	st := wt.Stats()
	if !st.Polling || st.Watches != 0 || st.Dirs != 4 {
		t.Errorf("stats after running out of watches: %+v, want polling over 4 folders", st)
	}
	logMu.Lock()
	if len(logs) == 0 || !strings.Contains(logs[0], "polling") {
		t.Errorf("no log line about polling: %q", logs)
	}
	if len(said) != 1 || !strings.Contains(said[0], "ran out") {
		t.Errorf("OnPolling was told %q, want once, saying the watches ran out", said)
	}
	logMu.Unlock()

	write(t, root, "c/c.go", "c changed, longer")
	c.waitFor(t, "write c/c.go", has(disk("c/c.go", "write")))
	write(t, root, "d/e/new.go", "new")
	c.waitFor(t, "create d/e/new.go", has(disk("d/e/new.go", "create")))
	if err := os.Remove(filepath.Join(root, "a", "a.go")); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "remove a/a.go", has(disk("a/a.go", "remove")))
	// Same size, within the same second: only the content tells.
	write(t, root, "b/b.go", "B")
	c.waitFor(t, "write b/b.go", has(disk("b/b.go", "write")))
}

// TestPollingChecksTheFilesSessionsDependOn: on a tree too large to scan
// often (here: a whole-tree poll an hour apart), the files waiting plans
// depend on are still compared with the disk every DependsInterval, and
// only they: a change elsewhere waits for the next whole scan.
func TestPollingChecksTheFilesSessionsDependOn(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"plan/uses.go": "u", "plan/gone.go": "g", "other/o.go": "o"})
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{
		Poll:            true,
		PollInterval:    time.Hour,
		Depends:         func() []string { return []string{"plan/uses.go", "plan/gone.go", "plan/new.go", "../outside.go"} },
		DependsInterval: 10 * time.Millisecond,
		Logf:            t.Logf,
	})
	write(t, root, "other/o.go", "changed where no plan looks")
	write(t, root, "plan/uses.go", "changed under a waiting plan")
	write(t, root, "plan/new.go", "created where a plan looks")
	if err := os.Remove(filepath.Join(root, "plan", "gone.go")); err != nil {
		t.Fatal(err)
	}
	evs := c.waitFor(t, "the depended-on files' changes", func(evs []Event) bool {
		return has(disk("plan/uses.go", "write"))(evs) && has(disk("plan/new.go", "create"))(evs) && has(disk("plan/gone.go", "remove"))(evs)
	})
	for _, e := range evs {
		if e.Path == "other/o.go" {
			t.Errorf("a file no plan depends on was reported before the whole-tree poll: %v", evs)
		}
	}
}

func TestWatchOverflowRescans(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"quiet/q.go": "q", "main.go": "m"})
	w := open(t, root)
	wt, c := startWatch(t, w, WatchOptions{})
	// Lose the events of one folder, as an overflowing queue would.
	if err := wt.fsw.Remove(filepath.Join(root, "quiet")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "quiet/q.go", "changed while events were lost")
	write(t, root, "quiet/new.go", "created while events were lost")
	wt.fsw.Errors <- fsnotify.ErrEventOverflow
	c.waitFor(t, "the rescan's findings", func(evs []Event) bool {
		return has(disk("quiet/q.go", "write"))(evs) && has(disk("quiet/new.go", "create"))(evs)
	})
	if wt.Stats().Rescans == 0 {
		t.Error("no rescan counted")
	}
}

func TestExpectWriteSuppressesOurOwnWrite(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"ours.go": "old", "gone.go": "x", "other.go": "o"})
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{})

	ours := filepath.Join(root, "ours.go")
	w.ExpectWrite(ours, []byte("written by us"))
	write(t, root, "ours.go", "written by us")
	w.ExpectRemove(filepath.Join(root, "gone.go"))
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "other.go", "marker")
	evs := c.waitFor(t, "the marker", has(disk("other.go", "write")))
	for _, e := range evs {
		if e.Path == "ours.go" || e.Path == "gone.go" {
			t.Errorf("our own change was reported: %v", e)
		}
	}
	// Someone else changing the file afterwards is reported.
	write(t, root, "ours.go", "the user's edit")
	c.waitFor(t, "the user's write", has(disk("ours.go", "write")))
}

func TestBufferChangesAreMerged(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"a.go": "a", "b.go": "b"})
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{})
	w.BufferChanged(filepath.Join(root, "a.go"), 2)
	w.BufferChanged(filepath.Join(root, "a.go"), 3)
	w.BufferChanged(filepath.Join(root, ".env"), 1) // denied: not reported
	write(t, root, "b.go", "b on disk")
	evs := c.waitFor(t, "buffer and disk events", func(evs []Event) bool {
		return has(Event{Path: "a.go", Op: "write", Source: "buffer"})(evs) && has(disk("b.go", "write"))(evs)
	})
	for _, e := range evs {
		if e.Path == ".env" {
			t.Errorf("a denied buffer was reported: %v", e)
		}
	}
}

func TestWatcherCloses(t *testing.T) {
	w := open(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	wt, err := w.WatchWith(ctx, WatchOptions{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-wt.Events():
		if ok {
			t.Error("an event after cancel")
		}
	case <-time.After(hangGuard):
		t.Fatal("hang guard: Events not closed after the context was cancelled")
	}
	if err := wt.Close(); err != nil {
		t.Error(err)
	}
	w.BufferChanged(filepath.Join(w.Roots()[0], "x"), 1) // must not block nor panic
}

func TestWatchFollowsGitignoreEdits(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"gen/a.go": "a", "main.go": "m"})
	w := open(t, root)
	wt, c := startWatch(t, w, WatchOptions{})
	write(t, root, ".gitignore", "gen/\n")
	c.waitFor(t, "the .gitignore", has(disk(".gitignore", "create")))
	// Once the rescan that follows has dropped gen/, its changes are not reported.
	for deadline := time.Now().Add(hangGuard); wt.Stats().Dirs != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("hang guard: gen/ still watched: %+v", wt.Stats())
		}
	}
	write(t, root, "gen/a.go", "regenerated")
	write(t, root, "main.go", "marker")
	evs := c.waitFor(t, "the marker", has(disk("main.go", "write")))
	for _, e := range evs {
		if strings.HasPrefix(e.Path, "gen/") {
			t.Errorf("a change in a newly ignored folder was reported: %v", e)
		}
	}
}

func TestMergeBatches(t *testing.T) {
	out := []Event{disk("a", "create"), disk("b", "remove"), disk("c", "write")}
	got := mergeBatches(out, []Event{disk("a", "write"), disk("b", "create"), disk("c", "remove"), disk("d", "create"), {Path: "a", Op: "write", Source: "buffer"}})
	want := []Event{{Path: "a", Op: "write", Source: "buffer"}, disk("a", "create"), disk("b", "write"), disk("c", "remove"), disk("d", "create")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("mergeBatches = %v, want %v", got, want)
	}
}

func TestExpectWriteCoversAtomicSave(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"target.go": "old", "other.go": "o"})
	w := open(t, root)
	_, c := startWatch(t, w, WatchOptions{})
	target := filepath.Join(root, "target.go")
	w.ExpectWrite(target, []byte("new content"))
	write(t, root, ".target.go.tmp123", "new content") // write a temporary file, rename it over
	if err := os.Rename(filepath.Join(root, ".target.go.tmp123"), target); err != nil {
		t.Fatal(err)
	}
	write(t, root, "other.go", "marker")
	evs := c.waitFor(t, "the marker", has(disk("other.go", "write")))
	for _, e := range evs {
		if e.Path == "target.go" {
			t.Errorf("our atomic save was reported: %v", e)
		}
	}
}
