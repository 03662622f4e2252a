package treesitter

import (
	"bytes"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// The index keeps tags, not trees, with one bounded exception: the trees of
// the last few files that Update re-indexed. A file that changes once
// usually changes again (the user is editing it), and with its previous
// tree the next parse is incremental: tree-sitter reuses every subtree
// outside the edit, so re-indexing a 128 KB file costs a few milliseconds
// instead of a full parse (about 40 ms here). The first change to a file
// is a full parse, unless the editor opened it first (Index.Warm).

// Limits of the kept trees: a tree costs about 25 bytes of C memory per
// byte of source (see maxFileSize), so 1 MiB of source bounds them to about
// 25 MB; ordinary files (10-50 KB) fit eight at a time.
const (
	maxRecentTrees     = 8
	maxRecentTreeBytes = 1 << 20 // total source bytes behind the kept trees
)

// recentTree is a file's last syntax tree with the source it was parsed
// from.
type recentTree struct {
	rel  string
	lang string
	src  []byte
	tree *sitter.Tree
}

// recentTrees is a small most-recently-used list; safe for concurrent use.
type recentTrees struct {
	mu    sync.Mutex
	list  []*recentTree // least recent first
	bytes int
}

// take removes and returns rel's tree, or nil. The caller owns it.
func (r *recentTrees) take(rel string) *recentTree {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.removeLocked(rel)
}

// removeLocked takes rel's tree out of the list; r.mu is held.
func (r *recentTrees) removeLocked(rel string) *recentTree {
	for i, t := range r.list {
		if t.rel == rel {
			r.list = append(r.list[:i], r.list[i+1:]...)
			r.bytes -= len(t.src)
			return t
		}
	}
	return nil
}

// put keeps t as the most recent tree, closing the least recent ones
// beyond the limits. A tree bigger than the whole budget is not kept.
func (r *recentTrees) put(t *recentTree) {
	if len(t.src) > maxRecentTreeBytes {
		t.tree.Close()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// One tree a file: a Warm and an Update of the same file can race.
	if old := r.removeLocked(t.rel); old != nil {
		old.tree.Close()
	}
	r.list = append(r.list, t)
	r.bytes += len(t.src)
	for len(r.list) > maxRecentTrees || r.bytes > maxRecentTreeBytes {
		old := r.list[0]
		r.list = r.list[1:]
		r.bytes -= len(old.src)
		old.tree.Close()
	}
}

// has reports whether rel's tree is kept.
func (r *recentTrees) has(rel string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.list {
		if t.rel == rel {
			return true
		}
	}
	return false
}

// drop closes rel's tree, if kept (the file was removed).
func (r *recentTrees) drop(rel string) {
	if t := r.take(rel); t != nil {
		t.tree.Close()
	}
}

// editBetween describes the change from old to new as one edit: the bytes
// before the first difference and after the last one are unchanged. That
// is what tree-sitter needs to reuse the old tree; several separate edits
// become one edit spanning them, which is still correct, only less reused.
func editBetween(old, new []byte) sitter.EditInput {
	prefix := 0
	for n := min(len(old), len(new)); prefix < n && old[prefix] == new[prefix]; {
		prefix++
	}
	suffix := 0
	for n := min(len(old), len(new)) - prefix; suffix < n && old[len(old)-1-suffix] == new[len(new)-1-suffix]; {
		suffix++
	}
	oldEnd, newEnd := len(old)-suffix, len(new)-suffix
	return sitter.EditInput{
		StartIndex:  uint32(prefix),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointAt(old, prefix),
		OldEndPoint: pointAt(old, oldEnd),
		NewEndPoint: pointAt(new, newEnd),
	}
}

// pointAt is the row and byte column of offset off in src.
func pointAt(src []byte, off int) sitter.Point {
	before := src[:off]
	row := bytes.Count(before, []byte{'\n'})
	col := off - (bytes.LastIndexByte(before, '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}
