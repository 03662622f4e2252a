package treesitter

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// graphRequests are maps whose text must not depend on where the graph
// came from.
var graphRequests = []MapRequest{
	{Focus: []string{"app/handler.go"}, Tokens: 60},
	{Task: "Unrelated07Worker loops forever; make it stop", Tokens: 40},
	{Focus: []string{"store/store.go"}, Task: "open the database twice", Tokens: 200},
	{Tokens: 1000},
}

func mapsOf(ix *Index) []string {
	var out []string
	for _, req := range graphRequests {
		out = append(out, ix.Map(req))
	}
	return out
}

// TestWarmStartMapsTheGraphFile: a start on a warm cache ranks with the
// graph the previous build saved (mapped, not rebuilt), and its maps are
// exactly those of a graph built from scratch.
func TestWarmStartMapsTheGraphFile(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	first := NewIndex(root, cache)
	if _, err := first.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, graphFileName)); err != nil {
		t.Fatalf("no graph file after a build: %v", err)
	}
	fresh := NewIndex(root, "")
	if _, err := fresh.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	want := mapsOf(fresh)

	// The first index, once its build saved the cache, keeps its tags in
	// the mapped file, not in the heap, and maps the same.
	st := first.lock()
	for p, e := range st.files {
		if e.tags != nil || e.view == nil {
			t.Errorf("%s: tags in the heap after the build saved them", p)
		}
	}
	first.mu.Unlock()
	if got := mapsOf(first); !slices.Equal(got, want) {
		t.Fatalf("maps from the adopted cache differ from a built graph's:\n got %q\nwant %q", got, want)
	}

	warm := NewIndex(root, cache)
	if _, err := warm.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if g, stale := current(warm); g == nil || g.mapping == nil || stale {
		t.Fatalf("a warm start did not take the graph file's graph (graph %v, stale %v)", g != nil, stale)
	}
	if got := mapsOf(warm); !slices.Equal(got, want) {
		t.Fatalf("maps from the graph file differ from a built graph's:\n got %q\nwant %q", got, want)
	}
}

// TestGraphFileFollowsTheFiles: after a file changed, the next build saves
// the new graph, and a warm start sees the change in its map.
func TestGraphFileFollowsTheFiles(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	if _, err := NewIndex(root, cache).Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	src := "package store\n\nfunc OpenDatabase(cfg any) error {\n\treturn nil\n}\n\nfunc CloseDatabaseForGood() {}\n"
	if err := os.WriteFile(filepath.Join(root, "store", "store.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewIndex(root, cache).Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	warm := NewIndex(root, cache)
	if _, err := warm.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if g, _ := current(warm); g == nil || g.mapping == nil {
		t.Fatal("the warm start built its graph: the graph file was not rewritten after the change")
	}
	if m := warm.Map(MapRequest{Task: "call CloseDatabaseForGood on exit", Tokens: 200}); !strings.Contains(m, "func CloseDatabaseForGood()") {
		t.Fatalf("the warm map misses the changed file's new function:\n%s", m)
	}
}

// TestBadGraphFileIsRebuilt: a graph file cut short, overwritten or from
// another index is ignored; the map is the built graph's and the file is
// written again.
func TestBadGraphFileIsRebuilt(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	if _, err := NewIndex(root, cache).Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	gf := filepath.Join(cache, graphFileName)
	good, err := os.ReadFile(gf)
	if err != nil {
		t.Fatal(err)
	}
	fresh := NewIndex(root, "")
	if _, err := fresh.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	want := mapsOf(fresh)
	ids := slices.Clone(good)
	for i := len(ids) - 200; i < len(ids)-8; i += 4 { // ids and offsets past the end
		ids[i], ids[i+1], ids[i+2], ids[i+3] = 0xff, 0xff, 0xff, 0x7f
	}
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)/2],
		"garbage":   []byte(strings.Repeat("x", 500)),
		"ids":       ids,
		"empty":     nil,
	} {
		if err := os.WriteFile(gf, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ix := NewIndex(root, cache)
		if _, err := ix.Build(context.Background(), paths); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := mapsOf(ix); !slices.Equal(got, want) {
			t.Fatalf("%s: maps differ from a built graph's:\n got %q\nwant %q", name, got, want)
		}
		if again, _ := os.ReadFile(gf); !slices.Equal(again, good) {
			t.Fatalf("%s: the graph file was not written again", name)
		}
	}
}

func FuzzDecodeGraph(f *testing.F) {
	files := map[string]*entry{
		"a.go": {tags: &fileTags{Lang: "go", Defs: []def{{"Alpha", "function", "func Alpha()", 2}, {"T", "type", "type T struct{}", 4}}, Refs: []string{"Beta", "T"}}},
		"b.go": {tags: &fileTags{Lang: "go", Defs: []def{{"Beta", "function", "func Beta()", 1}}, Refs: []string{"Alpha"}}},
		"c.go": {tags: &fileTags{Lang: "go", Refs: []string{"Alpha", "Beta", "T"}}},
	}
	files["b.go"].hash[0] = 1
	paths := sortedPaths(files)
	fp := fingerprint(paths, files)
	g := buildGraph(files)
	g.fp = fp
	path := filepath.Join(f.TempDir(), graphFileName)
	if err := saveGraph(path, g); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	if _, err := decodeGraph(aligned(good), nil, paths, files, fp); err != nil {
		f.Fatalf("graph file does not round-trip: %v", err)
	}
	f.Add(good)
	f.Add(good[:graphHeader])
	f.Fuzz(func(t *testing.T, data []byte) {
		data = aligned(data)
		ps, fs := paths, files
		if len(data) >= graphHeader {
			copy(data[16:48], fp[:]) // reach past the fingerprint check
			// A count of files other than the seed's: files of that many,
			// as a tag cache would give, when the file could hold them (16
			// bytes each at least), so that the counts' bounds are fuzzed.
			if n := binary.LittleEndian.Uint64(data[48:]); n != uint64(len(paths)) && n <= uint64(len(data)/16) {
				ps, fs = make([]string, n), make(map[string]*entry, n)
				for i := range ps {
					ps[i] = fmt.Sprintf("f%09d.go", i)
					fs[ps[i]] = &entry{}
				}
			}
		}
		// Whatever its counts say, decoding allocates at most
		// maxAllocPerByte times the file's size.
		var g *graph
		var err error
		if n := allocated(func() { g, err = decodeGraph(data, nil, ps, fs, fp) }); n > maxAllocPerByte*uint64(len(data)) {
			t.Fatalf("decoding %d bytes allocated %d bytes (over %dx)", len(data), n, maxAllocPerByte)
		}
		if err != nil {
			return
		}
		// Whatever it holds, ranking and patching with it must not panic.
		for _, req := range []MapRequest{{Focus: []string{"a.go"}, Task: "Beta T"}, {}} {
			tv := g.task(req, nil)
			g.render(tv, g.personalRank(tv.pers, nil), 200, nil)
		}
		if len(ps) > 0 {
			g.patched(0, &entry{tags: &fileTags{Lang: "go", Defs: []def{{"Gamma", "function", "func Gamma()", 1}}, Refs: []string{"Beta"}}})
		}
	})
}

// aligned copies data to 8-byte-aligned memory, as a mapping is.
func aligned(data []byte) []byte {
	words := make([]uint64, (len(data)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:len(data)]
	copy(out, data)
	return out
}

// TestStreamedGraphFileIsTheBuiltGraphsFile: the graph file a build writes
// with its links streamed through a scratch file is byte for byte the file
// of the same graph built in memory.
func TestStreamedGraphFileIsTheBuiltGraphsFile(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	ix := NewIndex(root, cache)
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	streamed, err := os.ReadFile(filepath.Join(cache, graphFileName))
	if err != nil {
		t.Fatal(err)
	}
	st := ix.lock()
	files := st.files
	ix.mu.Unlock()
	g := buildGraph(files)
	g.fp = fingerprint(sortedPaths(files), files)
	inMemory := filepath.Join(t.TempDir(), graphFileName)
	if err := saveGraph(inMemory, g); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(inMemory)
	if string(streamed) != string(want) || len(want) == 0 {
		t.Fatalf("streamed graph file (%d bytes) differs from the built graph's (%d bytes)", len(streamed), len(want))
	}
	if names, _ := os.ReadDir(cache); len(names) != 2 {
		t.Fatalf("cache folder: %v, want the tag cache and the graph file", names)
	}
}

// maxAllocPerByte bounds what decoding a cache or graph file allocates,
// per byte of the file.
const maxAllocPerByte = 8

// allocated is how many bytes fn allocates: the least of three runs, since
// TotalAlloc counts the whole process's allocations and another
// goroutine's (the fuzzer's own) can only add to a run's.
func allocated(fn func()) uint64 {
	best := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range 3 {
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}
