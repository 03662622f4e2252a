package treesitter

import (
	"cmp"
	"context"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The first map of a cold repository is made from the files nearest its
// request, not after the whole build (design §repository map): Map moves
// the files near its focus and task to the front of the running build's
// queue, waits for those (nearWait of them at most), and ranks what is
// indexed by then; the rest goes on in the background, and the next map
// sees more. Near means, in this order: the focus files, what they
// include or import (includes.go), the paths the task names and the files
// named like its identifiers, the focus files' folders, then the files
// sharing the longest folder prefix with a focus file. What the included
// files include comes right after, without a wait.

// nearWait is how many near files a map waits for: on the Linux kernel's
// C (about 15 ms of parse a file on one core) a couple of seconds on two
// cores, enough for the focus file's folder, its headers and the headers
// they include.
const nearWait = 256

// nearAhead is how many files, nearest first, a map moves to the front of
// the queue without waiting for them: the next map's neighbourhood.
const nearAhead = 4096

// buildQueue hands a Build's files to its workers, the ones a map asked
// for first, and tells maps which are done.
type buildQueue struct {
	files []string
	byRel map[string]int32 // made by the first map that needs it

	mu      sync.Mutex
	cond    *sync.Cond
	cursor  int     // next file in list order
	prio    []int32 // asked for by maps, taken first
	claimed []bool
	done    []bool
	over    bool // the build ended
	asked   bool // a map moved files to the front

	ndone, indexed atomic.Int64
	// indexable counts the files the index may keep by their name (a
	// language it parses, or no extension); dropped those of them that it
	// did not keep (too large, unreadable, not source after all).
	indexable int
	dropped   atomic.Int64
}

func newBuildQueue(files []string) *buildQueue {
	q := &buildQueue{files: files, claimed: make([]bool, len(files)), done: make([]bool, len(files))}
	q.cond = sync.NewCond(&q.mu)
	for _, f := range files {
		if mayIndex(f) {
			q.indexable++
		}
	}
	return q
}

// mayIndex reports whether the index may keep rel, judging by its path
// alone (indexFile's first checks): a file with an extension of a language
// it does not parse is never read.
func mayIndex(rel string) bool {
	if !filepath.IsLocal(filepath.FromSlash(rel)) || inDependencyDir(rel) {
		return false
	}
	ext := filepath.Ext(rel)
	return ext == "" || ext == "." || Language(rel, nil) != ""
}

// next claims the next file to index, a prioritised one first; asked
// says whether a map had asked for files by then (tests).
func (q *buildQueue) next() (i int, asked, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.prio) > 0 {
		i := q.prio[0]
		q.prio = q.prio[1:]
		if !q.claimed[i] {
			q.claimed[i] = true
			return int(i), q.asked, true
		}
	}
	for q.cursor < len(q.files) {
		i := q.cursor
		q.cursor++
		if !q.claimed[i] {
			q.claimed[i] = true
			return i, q.asked, true
		}
	}
	return 0, q.asked, false
}

// done records that file i was indexed (kept: it entered the index).
func (q *buildQueue) markDone(i int, kept bool) {
	q.ndone.Add(1)
	if kept {
		q.indexed.Add(1)
	} else if mayIndex(q.files[i]) {
		q.dropped.Add(1)
	}
	q.mu.Lock()
	q.done[i] = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *buildQueue) finish() {
	q.mu.Lock()
	q.over = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// await moves want to the front (ahead after it) and waits until every
// file of want is done, or the build ends.
func (q *buildQueue) await(want, ahead []int32) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.prio = append(append(append(make([]int32, 0, len(want)+len(ahead)+len(q.prio)), want...), ahead...), q.prio...)
	q.asked = true
	for _, i := range want {
		for !q.done[i] && !q.over {
			q.cond.Wait()
		}
	}
}

// awaitIndexed waits until n files entered the index or the build ends:
// entered, not merely done, since a tree's first files in path order may
// all be of languages the index skips (the kernel's Documentation/).
func (q *buildQueue) awaitIndexed(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for int(q.indexed.Load()) < n && !q.over {
		q.cond.Wait()
	}
}

// Progress says how far the running build is: files done of those listed
// (both 0 between builds).
func (ix *Index) Progress() (done, total int) {
	ix.mu.Lock()
	q := ix.queue
	ix.mu.Unlock()
	if q == nil {
		return 0, 0
	}
	return int(q.ndone.Load()), len(q.files)
}

// Coverage is how much of the repository a map could see: the files
// indexed, and the files listed that the index would keep (those of the
// languages it parses; equal once the build ended). FromLastSession says
// that the index is the last session's, not yet compared with the disk
// but where a map looks (Preload): the listing may still be running.
type Coverage struct {
	Indexed, Listed int
	FromLastSession bool
}

// Partial reports whether the map was made before the build ended.
func (c Coverage) Partial() bool { return c.Indexed < c.Listed || c.FromLastSession }

// Coverage says what the index holds now, against what the running build
// lists (or, between builds, against itself).
func (ix *Index) Coverage() Coverage {
	st := ix.lock()
	q := ix.queue
	n, last := len(st.files), st.unverified
	ix.mu.Unlock()
	if q == nil {
		return Coverage{n, n, last}
	}
	listed := q.indexable - int(q.dropped.Load())
	return Coverage{min(n, listed), listed, last}
}

// Started is closed once the first Build has its file list: from then on
// a map waits only for the files near it.
func (ix *Index) Started() <-chan struct{} { return ix.startedCh() }

func (ix *Index) startedCh() chan struct{} {
	ix.startedMu.Lock()
	defer ix.startedMu.Unlock()
	if ix.started == nil {
		ix.started = make(chan struct{})
	}
	return ix.started
}

// WaitStarted returns once a Build has its list, or ctx is done.
func (ix *Index) WaitStarted(ctx context.Context) {
	select {
	case <-ix.Started():
	case <-ctx.Done():
	}
}

// awaitNear waits, when a build is running, for the files near req.
func (ix *Index) awaitNear(req MapRequest) {
	ix.mu.Lock()
	q := ix.queue
	ix.mu.Unlock()
	if q == nil {
		return
	}
	want, ahead := ix.nearFiles(q, req)
	if len(want) == 0 {
		// Nothing to aim at: a map of the first files is better than none.
		q.awaitIndexed(min(nearWait, len(q.files)))
		return
	}
	q.await(want, ahead)
}

// nearFiles picks, from the build's list, the files near req: want (at
// most nearWait) to wait for, ahead (at most nearAhead) to take next.
func (ix *Index) nearFiles(q *buildQueue, req MapRequest) (want, ahead []int32) {
	q.mu.Lock()
	if q.byRel == nil {
		q.byRel = make(map[string]int32, len(q.files))
		for i, f := range q.files {
			q.byRel[f] = int32(i)
		}
	}
	byRel := q.byRel
	q.mu.Unlock()
	listed := func(p string) bool { _, ok := byRel[p]; return ok }

	seen := map[int32]bool{}
	add := func(p string) {
		if i, ok := byRel[p]; ok && !seen[i] && len(want) < nearWait {
			seen[i] = true
			want = append(want, i)
		}
	}
	var focus []string
	for _, f := range req.Focus {
		f = path.Clean(strings.ReplaceAll(f, "\\", "/"))
		focus = append(focus, f)
		add(f)
	}
	// What the focus files include; what those include in turn is taken
	// next but not waited for (the kernel's e1000.h pulls in some two
	// hundred large headers: seconds of parsing on their own).
	var second []string
	for _, f := range focus {
		for p := range ix.includedBy(f, listed) {
			add(p)
			for p2 := range ix.includedBy(p, listed) {
				second = append(second, p2)
			}
		}
	}
	slices.Sort(second)
	for _, p := range second {
		if i, ok := byRel[p]; ok && !seen[i] && len(ahead) < nearAhead {
			seen[i] = true
			ahead = append(ahead, i)
		}
	}
	// Paths the task names, and files named like its identifiers.
	for _, p := range pathRE.FindAllString(req.Task, -1) {
		add(strings.TrimPrefix(path.Clean(p), "./"))
	}
	names := map[string]bool{}
	for _, id := range identRE.FindAllString(req.Task, -1) {
		if len(id) >= 4 {
			names[strings.ToLower(id)] = true
		}
	}
	if len(names) > 0 {
		for i, f := range q.files {
			base := path.Base(f)
			if dot := strings.IndexByte(base, '.'); dot > 0 {
				base = base[:dot]
			}
			if names[strings.ToLower(base)] {
				add(q.files[i])
			}
		}
	}
	if len(focus) == 0 {
		return want, ahead
	}
	// Then by folder: the longest shared folder prefix with a focus file
	// first, ties in list order.
	type near struct {
		i     int32
		depth int
	}
	var byDir []near
	for i, f := range q.files {
		d := 0
		for _, fo := range focus {
			d = max(d, sharedDirs(f, fo))
		}
		if d > 0 && !seen[int32(i)] {
			byDir = append(byDir, near{int32(i), d})
		}
	}
	slices.SortStableFunc(byDir, func(a, b near) int { return cmp.Compare(b.depth, a.depth) })
	focusDepth := 0
	for _, fo := range focus {
		focusDepth = max(focusDepth, strings.Count(fo, "/"))
	}
	for _, n := range byDir {
		switch {
		case n.depth == focusDepth && len(want) < nearWait: // the focus file's own folder
			seen[n.i] = true
			want = append(want, n.i)
		case len(ahead) < nearAhead:
			ahead = append(ahead, n.i)
		}
	}
	return want, ahead
}

// sharedDirs counts the leading folders paths a and b share.
func sharedDirs(a, b string) int {
	n := 0
	for {
		i := strings.IndexByte(a, '/')
		j := strings.IndexByte(b, '/')
		if i < 0 || j < 0 || a[:i] != b[:j] {
			return n
		}
		n++
		a, b = a[i+1:], b[j+1:]
	}
}
