package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// FileState is what a snapshot knows of one file.
type FileState struct {
	Exists  bool
	Hash    string // sha256 hex of the content
	Version *int32 // buffer version when the file was open
}

// Snapshot is the state of the files that went into a prompt, keyed by
// root-relative path.
type Snapshot struct {
	Taken time.Time
	Files map[string]FileState
}

// Snapshot records the current state of the given root-relative paths.
// Paths Resolve refuses are left out (they never go into a prompt). The
// contents are kept in memory, by hash, so Drift can say "+3 -1 lines".
func (w *Workspace) Snapshot(paths []string) Snapshot {
	s := Snapshot{Taken: time.Now(), Files: map[string]FileState{}}
	for _, p := range paths {
		_, rel, err := w.Resolve(p)
		if err != nil {
			continue
		}
		content, version, exists, err := w.read(rel)
		if err != nil || !exists {
			s.Files[rel] = FileState{}
			continue
		}
		h := hashString(content)
		w.blobs.put(h, content)
		s.Files[rel] = FileState{Exists: true, Hash: h, Version: version}
	}
	return s
}

// SnapshotText returns the content a snapshot recorded under hash, when it
// is still held in memory (the newest 64 MiB of snapshot contents are).
func (w *Workspace) SnapshotText(hash string) (string, bool) { return w.blobs.get(hash) }

// Change is one drifted file.
type Change struct {
	Path    string
	Kind    string // "modified", "deleted", "created", "renamed"
	NewPath string // for renamed, when known
	Summary string // short, e.g. "+3 -1 lines" or "deleted"
}

// Drift compares a snapshot with the current state (open buffers first),
// sorted by path. A deleted file whose content reappears under a path a
// running watcher saw created since the snapshot is reported as renamed.
func (w *Workspace) Drift(s Snapshot) []Change {
	var out []Change
	var deleted []int
	for p, was := range s.Files {
		content, _, exists, err := w.read(p)
		switch {
		case err != nil:
			if was.Exists {
				out = append(out, Change{Path: p, Kind: "deleted", Summary: "no longer readable: " + err.Error()})
			}
		case was.Exists && !exists:
			deleted = append(deleted, len(out))
			out = append(out, Change{Path: p, Kind: "deleted", Summary: "deleted"})
		case !was.Exists && exists:
			out = append(out, Change{Path: p, Kind: "created", Summary: fmt.Sprintf("created (%d lines)", CountLines(content))})
		case was.Exists && exists && hashString(content) != was.Hash:
			summary := "modified"
			if old, ok := w.blobs.get(was.Hash); ok {
				add, del := lineDiff(old, content)
				summary = fmt.Sprintf("+%d -%d lines", add, del)
			}
			out = append(out, Change{Path: p, Kind: "modified", Summary: summary})
		}
	}
	if len(deleted) > 0 {
		w.detectRenames(s, out, deleted)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// detectRenames turns deletions into renames when the deleted content
// shows up under a path created since the snapshot (best effort: only
// paths a watcher reported are looked at).
func (w *Workspace) detectRenames(s Snapshot, out []Change, deleted []int) {
	byHash := map[string]int{}
	for _, i := range deleted {
		byHash[s.Files[out[i].Path].Hash] = i
	}
	for _, p := range w.createdSince(s.Taken) {
		if _, inSnapshot := s.Files[p]; inSnapshot {
			continue
		}
		content, exists, err := w.Read(p)
		if err != nil || !exists {
			continue
		}
		if i, ok := byHash[hashString(content)]; ok {
			out[i].Kind = "renamed"
			out[i].NewPath = p
			out[i].Summary = "renamed to " + p
			delete(byHash, s.Files[out[i].Path].Hash)
		}
	}
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// CountLines is the number of lines of s as a reader counts them: a last
// line without its line break counts, an empty text has none.
func CountLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// maxDiffCells bounds the quadratic part of lineDiff (~16 MB of int32);
// beyond it the changed middle is counted whole, which over-counts but
// stays a fair "how much changed".
const maxDiffCells = 4 << 20

// lineDiff counts added and deleted lines between two texts: common prefix
// and suffix are trimmed, then the longest common subsequence of the
// middle decides.
func lineDiff(a, b string) (added, deleted int) {
	x, y := splitLines(a), splitLines(b)
	for len(x) > 0 && len(y) > 0 && x[0] == y[0] {
		x, y = x[1:], y[1:]
	}
	for len(x) > 0 && len(y) > 0 && x[len(x)-1] == y[len(y)-1] {
		x, y = x[:len(x)-1], y[:len(y)-1]
	}
	if len(x) == 0 || len(y) == 0 || len(x)*len(y) > maxDiffCells {
		return len(y), len(x)
	}
	prev := make([]int32, len(y)+1)
	cur := make([]int32, len(y)+1)
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			switch {
			case x[i-1] == y[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	lcs := int(prev[len(y)])
	return len(y) - lcs, len(x) - lcs
}

// blobStoreLimit bounds the memory held for drift summaries: 64 MiB keeps
// every file of a large prompt (prompts are far smaller) while staying
// small next to an editor's own memory.
const blobStoreLimit = 64 << 20

// blobStore keeps snapshot contents by hash, oldest dropped first.
type blobStore struct {
	mu    sync.Mutex // guards the fields below
	blobs map[string]string
	order []string
	size  int
}

func (s *blobStore) put(hash, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blobs == nil {
		s.blobs = map[string]string{}
	}
	if _, ok := s.blobs[hash]; ok || len(content) > blobStoreLimit {
		return
	}
	s.blobs[hash] = content
	s.order = append(s.order, hash)
	s.size += len(content)
	for s.size > blobStoreLimit && len(s.order) > 0 {
		old := s.order[0]
		s.order = s.order[1:]
		s.size -= len(s.blobs[old])
		delete(s.blobs, old)
	}
}

func (s *blobStore) get(hash string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.blobs[hash]
	return c, ok
}
