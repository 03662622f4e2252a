package treesitter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// writeTree writes files (root-relative path → content) under a new
// temporary root and returns the root and the sorted paths.
func writeTree(t testing.TB, files map[string]string) (string, []string) {
	t.Helper()
	root := t.TempDir()
	var paths []string
	for rel, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, rel)
	}
	sort.Strings(paths)
	return root, paths
}

// projectFiles is a small Go project: app/handler.go (the focus) uses
// config and store; cmd/main.go uses the handler; twenty other files only
// use each other.
func projectFiles() map[string]string {
	files := map[string]string{
		"app/handler.go":   "package app\n\nfunc HandleRequest(path string) error {\n\tcfg := config.ParseSettings(path)\n\treturn store.OpenDatabase(cfg)\n}\n",
		"config/config.go": "package config\n\ntype Settings struct{}\n\nfunc ParseSettings(path string) Settings {\n\treturn Settings{}\n}\n",
		"store/store.go":   "package store\n\nfunc OpenDatabase(cfg any) error {\n\treturn nil\n}\n",
		"cmd/main.go":      "package main\n\nfunc main() {\n\tapp.HandleRequest(\"x\")\n}\n",
		"README.md":        "# not code\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("other/o%02d.go", i)] = fmt.Sprintf(
			"package other\n\n// Unrelated%02dWorker does other things.\nfunc Unrelated%02dWorker() {\n\tUnrelated%02dWorker()\n}\n\ntype Other%02dRecord struct{}\n",
			i, i, (i+1)%20, i)
	}
	return files
}

func TestBuildAndCacheSurvivesRestart(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	ctx := context.Background()

	ix := NewIndex(root, cache)
	st, err := ix.Build(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 24 || st.CacheHits != 0 || st.BytesParsed == 0 || st.Symbols < 24 {
		t.Fatalf("cold build stats %+v, want 24 files parsed, no hits", st)
	}
	first := ix.Map(MapRequest{Focus: []string{"app/handler.go"}, Tokens: 400})

	// A new index on the same cache: everything from the cache, same map.
	ix2 := NewIndex(root, cache)
	st2, err := ix2.Build(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Files != 24 || st2.CacheHits != 24 || st2.BytesParsed != 0 || st2.Symbols != st.Symbols {
		t.Fatalf("warm build stats %+v, want 24 cache hits and nothing parsed (cold: %+v)", st2, st)
	}
	if again := ix2.Map(MapRequest{Focus: []string{"app/handler.go"}, Tokens: 400}); again != first {
		t.Fatalf("map after restart differs:\n%s\n---\n%s", first, again)
	}

	// A changed file is noticed, and only it is parsed.
	changed := "package store\n\nfunc OpenDatabase(cfg any) error {\n\treturn nil\n}\n\nfunc CloseDatabase() {}\n"
	writeLater(t, filepath.Join(root, "store", "store.go"), changed)
	ix3 := NewIndex(root, cache)
	st3, err := ix3.Build(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if st3.CacheHits != 23 || st3.BytesParsed != int64(len(changed)) {
		t.Fatalf("after one change: %+v, want 23 hits and %d bytes parsed", st3, len(changed))
	}
	if !hasDef(ix3.FileTags("store/store.go"), "CloseDatabase") {
		t.Fatal("new definition in the changed file not indexed")
	}

	// Same content with a new mtime: re-hashed, and the hash hits.
	writeLater(t, filepath.Join(root, "store", "store.go"), changed)
	st4, err := NewIndex(root, cache).Build(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if st4.CacheHits != 24 || st4.BytesParsed != 0 {
		t.Fatalf("touched file: %+v, want all hits by content hash", st4)
	}

	// A deleted file drops out.
	os.Remove(filepath.Join(root, "cmd", "main.go"))
	ix5 := NewIndex(root, cache)
	st5, _ := ix5.Build(ctx, paths)
	if st5.Files != 23 || ix5.FileTags("cmd/main.go") != nil {
		t.Fatalf("deleted file still indexed: %+v", st5)
	}
}

// writeLater writes content with an mtime clearly after the previous one,
// so the stat fast path cannot mistake it for the cached file.
func writeLater(t *testing.T, abs, content string) {
	t.Helper()
	info, err := os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	later := info.ModTime().Add(2 * time.Second)
	if err := os.Chtimes(abs, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptCacheIsIgnored(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cache, cacheFileName), []byte(cacheMagic+"\xff\xff\xff"), 0o644)
	st, err := NewIndex(root, cache).Build(context.Background(), paths)
	if err != nil || st.Files != 24 || st.CacheHits != 0 {
		t.Fatalf("corrupt cache: %+v, %v; want a cold build", st, err)
	}
}

func TestUpdateWithoutRescan(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	ix := NewIndex(root, "")
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	ix.Update("store/store.go", []byte("package store\n\nfunc OpenDatabase(cfg any) error { return nil }\n\nfunc MigrateSchema() {}\n"))
	if !hasDef(ix.FileTags("store/store.go"), "MigrateSchema") {
		t.Fatal("Update did not re-tag the file")
	}
	m := ix.Map(MapRequest{Task: "call MigrateSchema at start", Tokens: 200})
	if !strings.Contains(m, "func MigrateSchema()") {
		t.Fatalf("map does not show the updated file:\n%s", m)
	}
	ix.Update("web/new.ts", []byte("export function freshStart(): void {}\n"))
	if !hasDef(ix.FileTags("web/new.ts"), "freshStart") {
		t.Fatal("Update of a new file did not index it")
	}
	ix.Remove("web/new.ts")
	if ix.FileTags("web/new.ts") != nil {
		t.Fatal("Remove kept the file")
	}
	if err := ix.Save(); err != nil { // no cacheDir: nothing to write
		t.Fatal(err)
	}
}

func hasDef(tags []Tag, name string) bool {
	for _, tg := range tags {
		if tg.Def && tg.Name == name {
			return true
		}
	}
	return false
}

func FuzzDecodeCache(f *testing.F) {
	root := f.TempDir()
	files := map[string]*entry{
		"a.go": {size: 3, mtime: 9, tags: &fileTags{Lang: "go", Defs: []def{{"F", "function", "func F()", 2}}, Refs: []string{"G"}}},
	}
	path := filepath.Join(root, cacheFileName)
	if err := saveCache(path, files); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	back, err := decodeCache(aligned(good), nil)
	if err != nil || len(back) != 1 || back["a.go"].mtime != 9 || back["a.go"].fileTags().Defs[0].Sig != "func F()" ||
		back["a.go"].fileTags().Refs[0] != "G" || back["a.go"].symbols() != 1 || back["a.go"].language() != "go" {
		f.Fatalf("cache does not round-trip: %v %+v", err, back)
	}
	f.Add(good)
	f.Add([]byte(cacheMagic))
	// A file of several units (one per file), as a large build writes.
	old := unitBytes
	unitBytes = 1
	files["b.go"] = &entry{size: 4, mtime: 8, tags: &fileTags{Lang: "go", Defs: []def{{"G", "function", "func G()", 1}}}}
	w := newCacheWriter(filepath.Join(root, "units.bin"))
	for _, p := range []string{"a.go", "b.go"} {
		if batch := w.add(p, files[p]); len(batch) == 1 {
			if _, err := w.writeUnit([]*fileTags{batch[0].e.tags}); err != nil {
				f.Fatal(err)
			}
		}
	}
	unitBytes = old
	if err := w.finish(files); err != nil {
		f.Fatal(err)
	}
	units, _ := os.ReadFile(filepath.Join(root, "units.bin"))
	if back, err := decodeCache(aligned(units), nil); err != nil || len(back) != 2 || back["b.go"].fileTags().Defs[0].Name != "G" {
		f.Fatalf("a cache of units does not round-trip: %v %+v", err, back)
	}
	f.Add(units)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Must not panic or over-allocate, neither at load nor when a
		// file's tags are decoded. The load allocates at most
		// maxAllocPerByte times the file's size, whatever its counts say
		// (design §where state lives).
		data = aligned(data)
		var files map[string]*entry
		var err error
		if n := allocated(func() { files, err = decodeCache(data, nil) }); n > maxAllocPerByte*uint64(len(data)) {
			t.Fatalf("decoding %d bytes allocated %d bytes (over %dx)", len(data), n, maxAllocPerByte)
		}
		if err != nil {
			return
		}
		for _, e := range files {
			e.fileTags()
			e.symbols()
			e.language()
		}
	})
}

// TestConcurrentUse runs Build, Update, Remove and Map at once (run with
// -race): the index is shared by the watcher and the prompt builder.
func TestConcurrentUse(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	ix := NewIndex(root, filepath.Join(root, ".aide", "cache"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			ix.Update("store/store.go", []byte(fmt.Sprintf("package store\n\nfunc OpenDatabase%d() {}\n", i)))
			ix.Map(MapRequest{Focus: []string{"store/store.go"}, Tokens: 100})
			ix.Remove("web/x.ts")
		}
	}()
	for i := 0; i < 3; i++ {
		if _, err := ix.Build(context.Background(), paths); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
}

// TestCacheNotWrittenThroughALink: a cloned repository's .aide/cache that
// links out of the workspace is refused (the index still works, uncached).
func TestCacheNotWrittenThroughALink(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".aide"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".aide", "cache")); err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(root, filepath.Join(root, ".aide", "cache"))
	st, err := ix.Build(context.Background(), paths)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Build with a linked cache folder: %v", err)
	}
	if st.Files == 0 || len(ix.Files()) == 0 {
		t.Fatal("the index is empty: a cache it cannot write must not stop indexing")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
}
