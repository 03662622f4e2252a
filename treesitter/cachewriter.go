package treesitter

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// cacheWriter writes a tag cache file (cache.go) in units, so that neither
// a build nor a save holds the whole cache in memory (design §repository
// map). A build hands it every file it parses (add); once a unit's worth
// of tags is queued, the worker that queued the last one writes them as a
// unit at the end of a temporary file and maps it (spill), and the index
// swaps the files' entries for views of the mapping, letting the parsed
// tags go. The end of the build (finish) appends what is left, the units of
// the previous cache file that its entries still use (copied whole, or
// their live contents encoded anew once most of a unit is dead), the path
// table and the trailer, then renames the file over the cache: a build that
// is killed leaves the old cache as it was, and its temporary file, no
// longer locked by a live process, is removed by the next writer.
type cacheWriter struct {
	path string

	mu           sync.Mutex // guards pending and pendingBytes
	pending      []pendingTags
	pendingBytes int

	fileMu sync.Mutex // guards the rest
	f      *os.File
	fw     *fileWriter
	units  [][2]uint64 // start and end of each unit
	done   bool
	err    error
}

// pendingTags are the parsed tags of a file, waiting for their unit.
type pendingTags struct {
	rel string
	e   *entry
}

// unitBytes is about how much heap the parsed tags of a unit take before
// they are written (tagBytes): a build holds at most this much of them per
// writer, plus the worker's file in hand. Units of the Linux kernel are
// then about 8 MB each on disk.
var unitBytes = 16 << 20

// newCacheWriter writes the cache file at path; nil when path is empty
// (no cache: every method then does nothing).
func newCacheWriter(path string) *cacheWriter {
	if path == "" {
		return nil
	}
	return &cacheWriter{path: path}
}

// add queues the parsed tags of e, the new entry of rel. Once a unit's
// worth is queued it returns them, for the caller to write (Index.spill).
func (w *cacheWriter) add(rel string, e *entry) []pendingTags {
	if w == nil || e == nil || e.tags == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, pendingTags{rel, e})
	w.pendingBytes += tagBytes(e.tags)
	if w.pendingBytes < unitBytes {
		return nil
	}
	batch := w.pending
	w.pending, w.pendingBytes = nil, 0
	return batch
}

// tagBytes estimates the heap a file's parsed tags take: the structs and
// the signatures (names and references are shared strings, tags.go).
func tagBytes(ft *fileTags) int {
	n := 96 + 16*len(ft.Refs)
	for _, d := range ft.Defs {
		n += 56 + len(d.Sig)
	}
	return n
}

// writeUnit appends a unit holding tags (content i is tags[i]) and returns
// the view of it, mapped.
func (w *cacheWriter) writeUnit(tags []*fileTags) (*cacheView, error) {
	u := encodeUnit(tags)
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	start, err := w.appendUnit(u)
	if err != nil {
		return nil, err
	}
	m, err := mapRegion(w.f, int64(start), len(u))
	if err != nil {
		return nil, err // the unit stays unused in the file
	}
	cv, err := decodeUnit(m.data)
	if err != nil {
		m.close()
		return nil, err
	}
	cv.m, cv.w, cv.at = m, w, len(w.units)-1
	return cv, nil
}

// unitAlign is where units start: a multiple of the page size, so that a
// unit can be mapped alone while the file grows.
var unitAlign = max(4096, os.Getpagesize())

// appendUnit writes u as the next unit, creating the file first, and
// returns where it starts; the file is flushed, so the unit can be mapped.
func (w *cacheWriter) appendUnit(u []byte) (int, error) {
	if w.err == nil && w.done {
		w.err = errWriterDone
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.f == nil {
		if w.err = w.create(); w.err != nil {
			return 0, w.err
		}
	}
	w.fw.align(unitAlign)
	start := w.fw.at
	w.fw.put(u)
	if w.err = w.fw.w.Flush(); w.err != nil {
		return 0, w.err
	}
	w.units = append(w.units, [2]uint64{uint64(start), uint64(w.fw.at)})
	return start, nil
}

// tempPrefix starts the names of the temporary files of the cache file
// (workspace.WriteAtomic names its own the same way).
func (w *cacheWriter) tempPrefix() string { return ".tmp-" + filepath.Base(w.path) + "-" }

// create makes the temporary file, locked while this process writes it,
// after removing those that killed builds left.
func (w *cacheWriter) create() error {
	dir := filepath.Dir(w.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if names, err := os.ReadDir(dir); err == nil {
		for _, n := range names {
			if p := filepath.Join(dir, n.Name()); strings.HasPrefix(n.Name(), w.tempPrefix()) && staleTemp(p) {
				os.Remove(p)
			}
		}
	}
	f, err := os.CreateTemp(dir, w.tempPrefix()+"*")
	if err != nil {
		return err
	}
	lockTemp(f)
	w.f = f
	w.fw = &fileWriter{w: bufio.NewWriterSize(f, 1<<16)}
	w.fw.put([]byte(cacheMagic))
	return nil
}

// finish writes the cache of files: the units written so far, units or
// contents of other cache files that files use, the tags still in the
// heap, then the paths, and renames the file over the cache.
func (w *cacheWriter) finish(files map[string]*entry) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	w.pending, w.pendingBytes = nil, 0 // files has them all
	w.mu.Unlock()
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	if w.err == nil && w.f == nil {
		w.err = w.create()
	}
	if w.err != nil {
		return w.err
	}
	paths := sortedPaths(files)
	type loc struct{ unit, content int }
	locs := make([]loc, len(paths))
	// How many of each foreign unit's contents are still used: a unit
	// mostly used is copied whole, the used part of one mostly dead is
	// encoded again (so dead contents never make up most of the file).
	live := map[*cacheView]map[int32]bool{}
	for _, p := range paths {
		if e := files[p]; e.view != nil && e.view.w != w {
			if live[e.view] == nil {
				live[e.view] = map[int32]bool{}
			}
			live[e.view][e.content] = true
		}
	}
	copied := map[*cacheView]int{}
	var batch []*fileTags
	var batchAt []int
	batchBytes := 0
	flush := func() {
		if len(batch) == 0 || w.err != nil {
			return
		}
		if _, err := w.appendUnit(encodeUnit(batch)); err == nil {
			for k, i := range batchAt {
				locs[i] = loc{len(w.units) - 1, k}
			}
		}
		batch, batchAt, batchBytes = batch[:0], batchAt[:0], 0
	}
	for i, p := range paths {
		e := files[p]
		switch {
		case e.view != nil && e.view.w == w:
			locs[i] = loc{e.view.at, int(e.content)}
		case e.view != nil && 2*len(live[e.view]) >= len(e.view.contents):
			u, ok := copied[e.view]
			if !ok {
				u = w.copyUnit(e.view)
				copied[e.view] = u
			}
			locs[i] = loc{u, int(e.content)}
		default:
			ft := e.fileTags()
			batch = append(batch, ft)
			batchAt = append(batchAt, i)
			if batchBytes += tagBytes(ft); batchBytes >= unitBytes {
				flush()
			}
		}
	}
	flush()
	if w.err != nil {
		return w.err
	}
	fw := w.fw
	pathsAt := fw.at
	var b []byte
	fw.put(binary.AppendUvarint(nil, uint64(len(paths))))
	for i, p := range paths {
		e := files[p]
		b = binary.AppendUvarint(b[:0], uint64(len(p)))
		b = append(b, p...)
		b = binary.AppendUvarint(b, uint64(locs[i].unit))
		b = binary.AppendUvarint(b, uint64(locs[i].content))
		b = append(b, e.hash[:]...)
		b = binary.AppendUvarint(b, uint64(e.size))
		b = binary.AppendUvarint(b, uint64(e.mtime))
		fw.put(b)
	}
	fw.align(8)
	unitTable := fw.at
	for _, u := range w.units {
		fw.put(binary.LittleEndian.AppendUint64(nil, u[0]))
		fw.put(binary.LittleEndian.AppendUint64(nil, u[1]))
	}
	for _, n := range []int{len(w.units), unitTable, pathsAt} {
		fw.put(binary.LittleEndian.AppendUint64(nil, uint64(n)))
	}
	fw.put([]byte(cacheEnd))
	w.err = w.commit()
	if w.err != nil {
		return w.err
	}
	// An older version's file is never read again; don't leave it behind.
	for _, name := range olderCacheFiles {
		os.Remove(filepath.Join(filepath.Dir(w.path), name))
	}
	return nil
}

// copyUnit appends a unit of another cache file whole and returns its
// number here; -1 when it could not (w.err says why).
func (w *cacheWriter) copyUnit(cv *cacheView) int {
	if w.err != nil {
		return -1
	}
	if w.err = w.fw.w.Flush(); w.err != nil {
		return -1
	}
	w.fw.align(unitAlign)
	start := w.fw.at
	// By pieces, each let go of once written: the copy reads the whole
	// unit, which would otherwise stay counted as this process's memory.
	for rest := cv.unit; len(rest) > 0; {
		n := min(len(rest), 4<<20)
		w.fw.put(rest[:n])
		cv.m.drop(rest[:n])
		rest = rest[n:]
	}
	w.units = append(w.units, [2]uint64{uint64(start), uint64(w.fw.at)})
	return len(w.units) - 1
}

// commit makes the temporary file the cache file (workspace.WriteAtomic's
// steps: complete, synced, renamed, the rename synced).
func (w *cacheWriter) commit() error {
	err := w.fw.w.Flush()
	if err == nil {
		err = w.f.Chmod(0o644)
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.done = true
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return err
	}
	if d, derr := os.Open(filepath.Dir(w.path)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// abort removes the temporary file unless finish renamed it. Units mapped
// from it stay readable (the mappings outlive the name).
func (w *cacheWriter) abort() {
	if w == nil {
		return
	}
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	if w.f != nil && !w.done {
		w.f.Close()
		os.Remove(w.f.Name())
		w.done = true
	}
	if w.err == nil {
		w.err = errWriterDone
	}
}

var errWriterDone = errors.New("treesitter: cache writer closed")

// saveCache writes files to the cache file at path in one go. An empty
// path saves nothing.
func saveCache(path string, files map[string]*entry) error {
	w := newCacheWriter(path)
	if w == nil {
		return nil
	}
	defer w.abort()
	return w.finish(files)
}
