package treesitter

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// A warm start does not wait for the listing (design §repository map):
// Preload maps the last session's tag cache and graph file at once, and a
// map asked before a Build compared every file with the disk is made
// from them. What such a map reads is checked first: the files near its
// request (the focus files, what they include, the paths the task names,
// the focus files' folders) and, after ranking, the files it prints, each
// by a stat and re-indexed when its size or modification time changed; a
// file gone or no longer admitted (denied, ignored) is dropped. A printed
// file that changed makes the map be ranked again (refreshRounds). The listing, the stat of every file and the
// re-parse of what changed go on in the Build meanwhile.

// refreshRounds bounds how often a map is ranked again because a file it
// printed had changed since the last session (each round re-indexes what
// it found changed, so the rounds run out only when most of the
// repository changed; the Build then brings the index up to date).
const refreshRounds = 8

// Preload maps the tag cache and graph file of the last session, when the
// index has not loaded them yet, and reports whether the index holds files
// (then a map need not wait for a Build to start). The cache is bounded
// by the absolute cap here; the Build checks it against the size of the
// files it lists (checkPreloaded), off the request path.
//
// admit (nil: every path) decides the files of the last session the index
// keeps when it checks them: the workspace's deny list and .gitignore
// rules may have changed since the cache was written, and a map never
// prints a file the listing leaves out (contract §8).
func (ix *Index) Preload(admit func(rel string) bool) bool {
	st := ix.lock()
	defer ix.mu.Unlock()
	ix.admit = admit
	if !st.loaded {
		if st.preloaded = ix.load(st, workspace.MaxTagCacheBytes); st.preloaded != nil {
			st.unverified = true
		}
	}
	return len(st.files) > 0
}

// load reads the tag cache of at most limit bytes, and the graph of its
// files when the graph file holds it (a warm start ranks without building
// one, graphfile.go); it returns the cache's view, nil when there was
// none to read. Called with ix.mu held.
func (ix *Index) load(st *state, limit int64) *mappedFile {
	st.loaded = true
	cached, err := loadCache(ix.cachePath(), limit)
	if err != nil {
		return nil
	}
	var file *mappedFile // every unit of the cache lies in the one mapping
	for p, e := range cached {
		file = e.view.m
		if _, ok := st.files[p]; !ok {
			st.files[p] = e
		}
	}
	if st.ranks == nil {
		paths := sortedPaths(st.files)
		if g, err := loadGraph(ix.graphPath(), limit, paths, st.files, fingerprint(paths, st.files)); err == nil {
			st.ranks, st.stale = g, false
		}
	}
	return file
}

// checkPreloaded holds the preloaded cache and graph file to the limit a
// cold start puts on them for files (cacheLimit): over it, what came from
// them is dropped and the Build indexes those files afresh. It returns the
// state locked.
func (ix *Index) checkPreloaded(files []string) *state {
	st := ix.lock()
	file, g := st.preloaded, st.ranks
	st.preloaded = nil
	ix.mu.Unlock()
	if file == nil {
		return ix.lock()
	}
	var graphSize int64
	if g != nil && g.mapping != nil {
		graphSize = int64(len(g.mapping.data))
	}
	limit := ix.cacheLimit(files, max(int64(len(file.data)), graphSize))
	st = ix.lock()
	if graphSize > limit && st.ranks != nil && st.ranks.mapping == g.mapping {
		st.ranks = nil // or a patched copy of it
	}
	if int64(len(file.data)) > limit {
		for p, e := range st.files {
			if e.view != nil && e.view.m == file && e.tags == nil {
				delete(st.files, p)
			}
		}
		st.ranks = nil
		st.invalidate()
	}
	return st
}

// FromLastSession reports whether the index still holds files of the last
// session that were not all compared with the disk: a map made now is the
// last session's, checked only where it looks (the plan document and
// `map --stats` say so).
func (ix *Index) FromLastSession() bool {
	st := ix.lock()
	defer ix.mu.Unlock()
	return st.unverified
}

// refresh compares the files rels with the disk and re-indexes those whose
// size or modification time changed, dropping those gone or not admitted;
// it reports whether any entry changed.
func (ix *Index) refresh(rels []string) bool {
	if len(rels) == 0 {
		return false
	}
	t := taggers.Get().(*tagger)
	defer taggers.Put(t)
	ix.mu.Lock()
	admit := ix.admit
	ix.mu.Unlock()
	changed := false
	seen := map[string]bool{}
	for _, rel := range rels {
		if seen[rel] {
			continue
		}
		seen[rel] = true
		st := ix.lock()
		prev := st.files[rel]
		ix.mu.Unlock()
		var e *entry
		if admit == nil || admit(rel) {
			e, _, _ = ix.indexFile(t, rel, prev, nil)
		}
		if e == prev {
			continue
		}
		st = ix.lock()
		if st.files[rel] == prev { // unless a Build or Update got there first
			if e == nil {
				delete(st.files, rel)
			} else {
				st.files[rel] = e
			}
			st.dirty = true
			st.changed(rel, e)
			changed = true
		}
		ix.mu.Unlock()
	}
	return changed
}

// nearLastSession lists the files a map of req reads most, for refresh
// before it ranks: the focus files, what they include, the paths the task
// names, and the indexed files of the focus files' folders (nearWait at
// most). A file added since the last session counts when it is on disk.
func (ix *Index) nearLastSession(req MapRequest) []string {
	onDisk := func(p string) bool {
		st := ix.lock()
		_, ok := st.files[p]
		ix.mu.Unlock()
		if ok {
			return true
		}
		info, err := os.Stat(filepath.Join(ix.root, filepath.FromSlash(p)))
		return err == nil && info.Mode().IsRegular() && filepath.IsLocal(filepath.FromSlash(p))
	}
	var out []string
	dirs := map[string]bool{}
	for _, f := range req.Focus {
		f = path.Clean(strings.ReplaceAll(f, "\\", "/"))
		out = append(out, f)
		dirs[path.Dir(f)] = true
		for p := range ix.includedBy(f, onDisk) {
			out = append(out, p)
		}
	}
	for _, p := range pathRE.FindAllString(req.Task, -1) {
		if p = strings.TrimPrefix(path.Clean(p), "./"); onDisk(p) {
			out = append(out, p)
		}
	}
	if len(dirs) > 0 {
		st := ix.lock()
		for p := range st.files {
			if len(out) >= nearWait {
				break
			}
			if dirs[path.Dir(p)] {
				out = append(out, p)
			}
		}
		ix.mu.Unlock()
	}
	return out
}
