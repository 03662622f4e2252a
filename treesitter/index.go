package treesitter

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// maxFileSize skips bigger files: past 1 MiB a source file is generated
// code or data (GOROOT's opGen.go, zzipdata.go), which says little in a map
// and would cost ~25 bytes of tree per byte while it is parsed.
const maxFileSize = 1 << 20

// entry is the index's knowledge of one path. Tags are keyed by content
// hash; size and mtime only decide whether the hash must be recomputed.
type entry struct {
	hash  [32]byte
	size  int64
	mtime int64 // UnixNano; 0 when the content came from a buffer
	// tags are the file's tags when it was indexed in this process; an
	// entry from the tag cache has none but view and content, and decodes
	// them from the mapped file when asked (cache.go).
	tags    *fileTags
	view    *cacheView
	content int32
}

// fileTags returns e's tags, decoded from the cache when they come from
// it (a new copy each time: callers use them and let them go, so that the
// heap does not grow with the repository).
func (e *entry) fileTags() *fileTags {
	if e.tags != nil {
		return e.tags
	}
	if e.view != nil {
		return e.view.tags(e.content)
	}
	return &fileTags{}
}

// defs returns e's tags without the references when they come from the
// cache (what a map prints needs only the definitions).
func (e *entry) defs() *fileTags {
	if e.tags != nil {
		return e.tags
	}
	if e.view != nil {
		return e.view.decode(e.content, false)
	}
	return &fileTags{}
}

// language is e's language, without decoding its tags.
func (e *entry) language() string {
	if e.tags != nil {
		return e.tags.Lang
	}
	if e.view != nil {
		return e.view.lang(e.content)
	}
	return ""
}

// symbols is how many definitions e has, without decoding its tags.
func (e *entry) symbols() int {
	if e.tags != nil {
		return len(e.tags.Defs)
	}
	if e.view != nil {
		return e.view.defCount(e.content)
	}
	return 0
}

// names appends e's definition names and references to defs and refs
// (views of the tag cache when they come from it: not to be kept), as
// fileTags would give them, without decoding the rest (a graph build
// reads every file's names: decoding them all made a garbage the size of
// the cache).
func (e *entry) names(defs, refs []string) ([]string, []string) {
	if e.tags != nil {
		for _, d := range e.tags.Defs {
			defs = append(defs, d.Name)
		}
		return defs, append(refs, e.tags.Refs...)
	}
	if e.view != nil {
		return e.view.names(e.content, defs, refs)
	}
	return defs, refs
}

// hasTags reports whether e knows its file's tags.
func (e *entry) hasTags() bool { return e.tags != nil || e.view != nil }

// state is the index proper, guarded by Index.mu.
type state struct {
	files  map[string]*entry
	loaded bool // the cache file was read
	// preloaded is the tag cache Preload mapped, until a Build checked it
	// against the size of the files it lists; unverified says that the
	// entries from it were not all compared with the disk yet (warm.go).
	preloaded  *mappedFile
	unverified bool
	dirty      bool // files differ from the cache file
	// ranks is the ranking graph of files, nil until the first map. After
	// a change it is kept, patched when the change is one known file
	// (patch.go), and marked stale: the next map starts an exact rebuild
	// in the background and uses it meanwhile.
	ranks      *graph
	stale      bool
	rebuilding bool
	gen        int // bumped on every change, so a graph built meanwhile is not kept as current
}

// invalidate records a change the graph does not show yet.
func (st *state) invalidate() {
	st.stale = true
	st.gen++
}

// changed records that rel now has the entry e (nil: rel was removed),
// patching the graph when it knows rel.
func (st *state) changed(rel string, e *entry) {
	if st.ranks != nil {
		if i, ok := st.ranks.at(rel); ok {
			if e == nil {
				e = &entry{tags: &fileTags{}}
			}
			st.ranks = st.ranks.patched(i, e)
		}
	}
	st.invalidate()
}

func (ix *Index) lock() *state {
	ix.mu.Lock()
	if ix.st == nil {
		ix.st = &state{files: map[string]*entry{}}
	}
	return ix.st
}

// Build indexes the given root-relative files on all cores, using the cache.
// Files of unsupported languages, missing files, and files over 1 MiB are
// left out; paths not in files are dropped from the index when it ends.
// The cache file is rewritten when anything changed.
//
// The index is progressive (design §repository map): every file is
// published as soon as it is indexed, so a map asked meanwhile is made
// from what is ready, after the files near its focus and task were taken
// first (Map, near.go); Progress says how far the build is.
func (ix *Index) Build(ctx context.Context, files []string) (Stats, error) {
	start := time.Now()
	ix.buildMu.Lock()
	defer ix.buildMu.Unlock()

	st := ix.lock()
	if !st.loaded {
		need := max(fileSize(ix.cachePath()), fileSize(ix.graphPath()))
		ix.load(st, ix.cacheLimit(files, need))
	} else if st.preloaded != nil {
		ix.mu.Unlock()
		st = ix.checkPreloaded(files) // warm.go
	}
	// Workers compare with a copy: Update and Remove may change st.files
	// meanwhile, and what they wrote is newer than the disk we read.
	old := maps.Clone(st.files)
	byHash := make(map[[32]byte]*entry, len(old))
	for _, e := range old {
		byHash[e.hash] = e
	}
	q := newBuildQueue(files)
	ix.queue = q
	ix.mu.Unlock()
	// What the workers parse goes to the cache file a unit at a time as
	// the build goes (cachewriter.go), so the heap holds at most a unit's
	// worth of parsed tags, not the repository's.
	var cw *cacheWriter
	if ix.checkCacheDir() == nil {
		cw = newCacheWriter(ix.cachePath())
	}
	defer cw.abort()
	ix.startedOnce.Do(func() { close(ix.startedCh()) })
	defer func() {
		ix.lock()
		ix.queue = nil
		ix.mu.Unlock()
		q.finish()
	}()

	var (
		hits      atomic.Int64
		parsed    atomic.Int64
		wrote     atomic.Bool
		wg        sync.WaitGroup
		workers   = BuildWorkers()
		cancelled atomic.Bool
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lowerPriority() // the thread ends with the goroutine
			t := newTagger()
			defer t.parser.Close()
			defer t.cursor.Close()
			t.names = map[string]string{}
			t.skipBodies = true
			for {
				i, asked, ok := q.next()
				if !ok {
					return
				}
				if ctx.Err() != nil {
					cancelled.Store(true)
					return
				}
				rel := files[i]
				if indexHook != nil {
					indexHook(rel, asked)
				}
				e, hit, n := ix.indexFile(t, rel, old[rel], byHash)
				if hit {
					hits.Add(1)
				}
				parsed.Add(n)
				if e != old[rel] {
					// Published now, unless Update or Remove got there first.
					st := ix.lock()
					published := false
					if cur, ok := st.files[rel]; cur == old[rel] && (ok || old[rel] == nil) {
						if e == nil {
							delete(st.files, rel)
							st.changed(rel, nil)
						} else {
							st.files[rel] = e
							st.changed(rel, e)
							published = true
						}
						wrote.Store(true)
					}
					ix.mu.Unlock()
					if published {
						if batch := cw.add(rel, e); batch != nil {
							ix.spill(cw, batch)
						}
					}
				}
				q.markDone(i, e != nil)
			}
		}()
	}
	wg.Wait()
	if cancelled.Load() {
		if wrote.Load() {
			ix.lock().dirty = true // what was published is not in the cache file
			ix.mu.Unlock()
		}
		return Stats{}, ctx.Err()
	}

	stats := Stats{CacheHits: int(hits.Load()), BytesParsed: parsed.Load()}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		listed[f] = true
	}
	st = ix.lock()
	changed := st.dirty || wrote.Load()
	// Paths no longer listed go, unless Update put them there meanwhile.
	for p, e := range st.files {
		if !listed[p] && old[p] == e {
			delete(st.files, p)
			st.changed(p, nil)
			changed = true
		}
	}
	st.unverified = false // every listed file was compared with the disk (warm.go)
	for _, f := range files {
		if e := st.files[f]; e != nil {
			stats.Files++
			stats.Symbols += e.symbols()
		}
	}
	drop := newPageDropper(st.files)
	var snapshot map[string]*entry
	if changed {
		snapshot = maps.Clone(st.files)
		st.dirty = false
	}
	ix.mu.Unlock()
	drop.now() // symbols read a page of the tag cache per file

	var err error
	if snapshot != nil {
		if err = ix.checkCacheDir(); err == nil {
			if cw == nil {
				cw = newCacheWriter(ix.cachePath())
			}
			if err = cw.finish(snapshot); err == nil {
				ix.adoptCache(snapshot)
			}
		}
	}
	// What this build parsed is on disk now: let go of the heap's copy
	// before the graph is built.
	snapshot, old, byHash = nil, nil, nil
	if err == nil && ix.cacheDir != "" {
		if stats.BytesParsed > releaseAfter {
			// The parse's garbage, free spans scattered over the heap,
			// cannot hold the graph's large arrays: returned now, it is
			// not counted beside them at the build's peak (about 100 MiB
			// on the Linux kernel, for 20 ms; design §repository map).
			debug.FreeOSMemory()
		}
		err = ix.persistGraph()
	}
	if stats.BytesParsed > releaseAfter {
		// The parse's garbage and the tags now on disk are hundreds of MB
		// on a large repository; give them back now rather than keep the
		// peak as the server's resident size.
		debug.FreeOSMemory()
	}
	stats.Duration = time.Since(start)
	return stats, err
}

// BuildWorkers is how many files a Build indexes at once: one per core.
// A server keeps a P more than this for its requests
// (app.ReserveRequestProc).
func BuildWorkers() int { return runtime.NumCPU() }

// releaseGraphFiles is how many files make persistGraph return the built
// graph's memory to the system before mapping the file it saved (hundreds
// of MB on the Linux kernel's 56,400 files, 20 MB on GOROOT/src's 7,700).
const releaseGraphFiles = 16384

// releaseAfter is how many bytes parsed make a build return freed memory
// to the system before the graph is built and at its end (GOROOT/src is
// 84 MB, the Linux kernel 833 MB).
const releaseAfter = 64 << 20

// adoptCache replaces the entries of snapshot, just saved to the tag cache,
// by the cache file's: their tags then live in the mapped file, not in the
// heap (design §repository map). Entries Update or Remove replaced since
// the snapshot are kept.
func (ix *Index) adoptCache(snapshot map[string]*entry) {
	cached, err := loadCache(ix.cachePath(), workspace.MaxTagCacheBytes)
	if err != nil {
		return
	}
	st := ix.lock()
	defer ix.mu.Unlock()
	swapped := map[*entry]*entry{}
	for p, e := range snapshot {
		if c := cached[p]; c != nil && st.files[p] == e && c.hash == e.hash {
			st.files[p] = c
			swapped[e] = c
		}
	}
	st.swapped(swapped)
}

// spill writes a unit's worth of parsed tags to the cache file and swaps
// their entries for views of it (those Update or Remove replaced
// meanwhile are left alone). When the unit cannot be written the tags stay
// in the heap, and the end of the build writes them or says why not.
func (ix *Index) spill(w *cacheWriter, batch []pendingTags) {
	tags := make([]*fileTags, len(batch))
	for i, b := range batch {
		tags[i] = b.e.tags
	}
	cv, err := w.writeUnit(tags)
	if err != nil {
		return
	}
	st := ix.lock()
	defer ix.mu.Unlock()
	swapped := make(map[*entry]*entry, len(batch))
	for i, b := range batch {
		if st.files[b.rel] == b.e {
			c := &entry{hash: b.e.hash, size: b.e.size, mtime: b.e.mtime, view: cv, content: int32(i)}
			st.files[b.rel] = c
			swapped[b.e] = c
		}
	}
	st.swapped(swapped)
}

// swapped records that the entries keyed in swapped were replaced by
// their values (the same content, from the cache file).
func (st *state) swapped(swapped map[*entry]*entry) {
	// The current graph refers to the entries too: a copy of it refers to
	// the cache's instead (the same content), so that the parsed tags are
	// not kept alive until the next graph.
	if g := st.ranks; g != nil && len(swapped) > 0 {
		c := *g
		c.src = slices.Clone(g.src)
		for i, e := range c.src {
			if s := swapped[e]; s != nil {
				c.src[i] = s
			}
		}
		st.ranks = &c
	}
}

// persistGraph makes sure the graph file holds the graph of the index as
// it is now, so that the next start maps it instead of building it: when
// neither the current graph nor the file is that graph, it is built and
// saved, and the mapped file replaces the built graph in memory (its
// arrays then live in the page cache, not the Go heap).
func (ix *Index) persistGraph() error {
	ix.graphMu.Lock()
	defer ix.graphMu.Unlock()
	st := ix.lock()
	files := maps.Clone(st.files)
	gen := st.gen
	ranks, stale := st.ranks, st.stale
	ix.mu.Unlock()
	paths := sortedPaths(files)
	fp := fingerprint(paths, files)
	if ranks != nil && !stale && ranks.fp == fp {
		return nil
	}
	if err := ix.checkCacheDir(); err != nil {
		return err
	}
	if err := ix.saveBuiltGraph(files, fp); err != nil {
		return err
	}
	g, err := loadGraph(ix.graphPath(), workspace.MaxTagCacheBytes, paths, files, fp)
	if err != nil {
		return nil // the next map builds one
	}
	st = ix.lock()
	if st.gen == gen {
		st.ranks, st.stale = g, false
	}
	ix.mu.Unlock()
	return nil
}

// saveBuiltGraph builds the graph of files and writes it to the graph
// file. The links, most of a graph, go to a scratch file as they are made
// and are copied into the graph file from there, so the heap never holds
// them (design §repository map); the graph itself is let go of once
// written, and its memory returned when it was large.
func (ix *Index) saveBuiltGraph(files map[string]*entry, fp [32]byte) error {
	if err := os.MkdirAll(ix.cacheDir, 0o755); err != nil {
		return err
	}
	scratch, err := os.CreateTemp(ix.cacheDir, ".tmp-graph-links-*")
	if err != nil {
		return err
	}
	defer func() {
		scratch.Close()
		os.Remove(scratch.Name())
	}()
	os.Remove(scratch.Name()) // where the system allows it: nothing is left behind if we are killed
	bw := bufio.NewWriterSize(scratch, 1<<20)
	g, rowLens := buildGraphTo(files, bw)
	g.fp = fp
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return err
	}
	err = writeGraph(ix.graphPath(), g, rowLens, func(fw *fileWriter) error {
		if err := fw.w.Flush(); err != nil {
			return err
		}
		n, err := io.Copy(fw.w, scratch)
		fw.at += int(n)
		return err
	})
	if len(files) >= releaseGraphFiles {
		debug.FreeOSMemory()
	}
	return err
}

// sortedPaths lists the paths of files in order.
func sortedPaths(files map[string]*entry) []string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// indexHook, when set (tests), is called before each file a Build
// indexes, with whether a map had asked for files when it was claimed.
var indexHook func(rel string, asked bool)

// indexFile returns the entry of one file, whether it came from the cache,
// and how many bytes were parsed. A nil entry means "not indexed".
func (ix *Index) indexFile(t *tagger, rel string, prev *entry, byHash map[[32]byte]*entry) (*entry, bool, int64) {
	if !mayIndex(rel) { // near.go
		return nil, false, 0 // an extension we do not parse: no need to read it
	}
	lang := Language(rel, nil)
	abs := filepath.Join(ix.root, filepath.FromSlash(rel))
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxFileSize {
		return nil, false, 0
	}
	mtime := info.ModTime().UnixNano()
	if prev != nil && prev.size == info.Size() && prev.mtime == mtime && prev.hasTags() {
		return prev, true, 0
	}
	src, err := readFile(abs, info.Size())
	if err != nil {
		return nil, false, 0
	}
	if lang == "" {
		if lang = Language(rel, head(src)); lang == "" {
			return nil, false, 0
		}
	}
	e := &entry{hash: sha256.Sum256(src), size: int64(len(src)), mtime: mtime}
	if same := byHash[e.hash]; same != nil && same.hasTags() && same.language() == lang {
		e.tags, e.view, e.content = same.tags, same.view, same.content
		return e, true, 0
	}
	ft, err := t.tag(lang, src)
	if err != nil {
		return nil, false, 0
	}
	ft.refLines = nil // only Tags reports reference lines
	e.tags = &ft
	return e, false, int64(len(src))
}

// dependencyDirs are folders whose files never enter the map: vendored
// and installed dependencies are not the project (they would crowd the map
// and multiply the indexing time), and .aide is our own state. Build and
// Update both apply them, so the server, `run` and `map` index the same
// files.
var dependencyDirs = map[string]bool{"vendor": true, "node_modules": true, ".aide": true}

func inDependencyDir(rel string) bool {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return false
		}
		if dependencyDirs[rel[:i]] {
			return true
		}
		rel = rel[i+1:]
	}
}

// readFile reads a file of a known size in one allocation.
func readFile(abs string, size int64) ([]byte, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF { // shrank meanwhile
		return buf[:n], nil
	}
	return buf, err
}

// Update re-indexes one file whose content changed (from the watcher or an
// open buffer), without a rescan. Unsupported or oversized content drops
// the path. The cache file is rewritten by the next Build or Save.
func (ix *Index) Update(rel string, src []byte) {
	lang := Language(rel, head(src))
	if lang == "" || len(src) > maxFileSize || inDependencyDir(rel) {
		ix.Remove(rel)
		return
	}
	hash := sha256.Sum256(src)
	st := ix.lock()
	prev := st.files[rel]
	ix.mu.Unlock()
	if prev != nil && prev.hash == hash && prev.language() == lang {
		return
	}
	ft, err := ix.retag(rel, lang, src)
	if err != nil {
		ix.Remove(rel)
		return
	}
	ft.refLines = nil
	st = ix.lock()
	e := &entry{hash: hash, size: int64(len(src)), tags: &ft}
	st.files[rel] = e
	st.dirty = true
	st.changed(rel, e)
	ix.mu.Unlock()
}

// Warm parses the content of a file the editor opened and keeps its tree
// (trees.go), so that the first change to it, like the ones after, is an
// incremental parse; its tags are not touched. Call it off the request path
// (a large file takes tens of milliseconds); a file whose tree is kept
// costs nothing.
func (ix *Index) Warm(rel string, src []byte) {
	lang := Language(rel, head(src))
	if lang == "" || len(src) > maxFileSize || ix.trees.has(rel) {
		return
	}
	g, err := grammarFor(lang)
	if err != nil {
		return
	}
	t := taggers.Get().(*tagger)
	tree, err := t.parse(g, src, nil)
	taggers.Put(t)
	if err != nil {
		return
	}
	ix.trees.put(&recentTree{rel: rel, lang: lang, src: bytes.Clone(src), tree: tree})
}

// retag parses src incrementally from rel's kept tree when there is one
// (trees.go), tags it and keeps the new tree.
func (ix *Index) retag(rel, lang string, src []byte) (fileTags, error) {
	g, err := grammarFor(lang)
	if err != nil {
		return fileTags{}, err
	}
	prev := ix.trees.take(rel)
	var old *sitter.Tree
	if prev != nil && prev.lang == lang {
		prev.tree.Edit(editBetween(prev.src, src))
		old = prev.tree
	}
	t := taggers.Get().(*tagger)
	defer taggers.Put(t)
	tree, err := t.parse(g, src, old)
	if prev != nil {
		prev.tree.Close()
	}
	if err != nil {
		return fileTags{}, err
	}
	ft := t.tagTree(g, tree, src)
	ix.trees.put(&recentTree{rel: rel, lang: lang, src: bytes.Clone(src), tree: tree})
	return ft, nil
}

// Remove drops a deleted file.
func (ix *Index) Remove(rel string) {
	ix.trees.drop(rel)
	st := ix.lock()
	if _, ok := st.files[rel]; ok {
		delete(st.files, rel)
		st.dirty = true
		st.changed(rel, nil)
	}
	ix.mu.Unlock()
}

// Save writes the cache file now if Update or Remove changed the index
// since the last Build (call it on shutdown; a lost save only costs a
// re-parse of the changed files at the next start).
func (ix *Index) Save() error {
	st := ix.lock()
	if !st.dirty {
		ix.mu.Unlock()
		return nil
	}
	snapshot := maps.Clone(st.files)
	st.dirty = false
	ix.mu.Unlock()
	if err := ix.checkCacheDir(); err != nil {
		return err
	}
	return saveCache(ix.cachePath(), snapshot)
}

// Files lists the indexed paths (unsorted).
func (ix *Index) Files() []string {
	st := ix.lock()
	defer ix.mu.Unlock()
	out := make([]string, 0, len(st.files))
	for p := range st.files {
		out = append(out, p)
	}
	return out
}

// FileTags returns the tags of an indexed file: its definitions, then each
// referenced name once (Line 0: reference lines are not kept).
func (ix *Index) FileTags(rel string) []Tag {
	st := ix.lock()
	e := st.files[rel]
	ix.mu.Unlock()
	if e == nil {
		return nil
	}
	ft := e.fileTags()
	tags := make([]Tag, 0, len(ft.Defs)+len(ft.Refs))
	for _, d := range ft.Defs {
		tags = append(tags, Tag{Path: rel, Name: d.Name, Kind: d.Kind, Line: int(d.Line), Signature: d.Sig, Def: true})
	}
	for _, r := range ft.Refs {
		tags = append(tags, Tag{Path: rel, Name: r, Kind: "reference"})
	}
	return tags
}

// cacheLimit is the most the tag cache may weigh for these files: 64 bytes
// per source byte it can index and never more than 1 GiB (contract §8), so a
// hostile or broken cache cannot make a start read without end. It stops
// adding sizes up once the limit reaches need (the size of the files held
// to it): a cache a tree can hold costs a few stats, not one per file.
func (ix *Index) cacheLimit(files []string, need int64) int64 {
	var src int64
	for _, rel := range files {
		if src*workspace.TagCacheBytesPerSourceByte >= need {
			break
		}
		if info, err := os.Stat(filepath.Join(ix.root, filepath.FromSlash(rel))); err == nil && info.Mode().IsRegular() {
			src += min(info.Size(), maxFileSize)
		}
	}
	return min(src*workspace.TagCacheBytesPerSourceByte, workspace.MaxTagCacheBytes)
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

func (ix *Index) graphPath() string {
	if ix.cacheDir == "" {
		return ""
	}
	return filepath.Join(ix.cacheDir, graphFileName)
}

func (ix *Index) cachePath() string {
	if ix.cacheDir == "" {
		return ""
	}
	return filepath.Join(ix.cacheDir, cacheFileName)
}

// checkCacheDir refuses a cache folder inside the workspace that is, or
// sits under, a symbolic link (a cloned repository's .aide/cache linking
// out of it); a folder outside the workspace is the user's own choice.
func (ix *Index) checkCacheDir() error {
	if ix.cacheDir == "" {
		return nil
	}
	if rel, err := filepath.Rel(ix.root, ix.cacheDir); err != nil || !filepath.IsLocal(rel) {
		return nil
	}
	return workspace.CheckPrivateDir(ix.root, ix.cacheDir)
}
