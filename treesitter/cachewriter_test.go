package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// smallUnits makes every parsed file its own unit, so that a small tree
// goes through the spilling a large repository does.
func smallUnits(t *testing.T) {
	old := unitBytes
	unitBytes = 1
	t.Cleanup(func() { unitBytes = old })
}

// allTags is every file's tags, as FileTags reports them.
func allTags(ix *Index, paths []string) map[string][]Tag {
	out := map[string][]Tag{}
	for _, p := range paths {
		if tags := ix.FileTags(p); tags != nil {
			out[p] = tags
		}
	}
	return out
}

// TestSpilledBuildKeepsEveryTag: a build that writes its tags to the cache
// as it goes (a unit per file here) answers, and leaves a cache that
// answers after a restart, exactly like a build that kept them in memory;
// a changed file and a save after an edit carry the rest over.
func TestSpilledBuildKeepsEveryTag(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	ctx := context.Background()
	plain := NewIndex(root, "")
	if _, err := plain.Build(ctx, paths); err != nil {
		t.Fatal(err)
	}
	want := allTags(plain, paths)
	req := MapRequest{Focus: []string{"app/handler.go"}, Task: "open the database", Tokens: 300}
	wantMap := plain.Map(req)

	smallUnits(t)
	cache := filepath.Join(root, ".aide", "cache")
	ix := NewIndex(root, cache)
	st, err := ix.Build(ctx, paths)
	if err != nil || st.Files != 24 {
		t.Fatalf("spilled build: %+v, %v", st, err)
	}
	if got := allTags(ix, paths); !reflect.DeepEqual(got, want) {
		t.Fatalf("spilled build's tags differ:\n%v\nwant\n%v", got, want)
	}
	if m := ix.Map(req); m != wantMap {
		t.Fatalf("spilled build's map:\n%s\nwant\n%s", m, wantMap)
	}
	warm := NewIndex(root, cache)
	st, err = warm.Build(ctx, paths)
	if err != nil || st.CacheHits != 24 || st.BytesParsed != 0 {
		t.Fatalf("restart: %+v, %v; want every file from the cache", st, err)
	}
	if got := allTags(warm, paths); !reflect.DeepEqual(got, want) {
		t.Fatalf("restart's tags differ:\n%v\nwant\n%v", got, want)
	}
	if m := warm.Map(req); m != wantMap {
		t.Fatalf("restart's map:\n%s\nwant\n%s", m, wantMap)
	}

	// One file changes: the rest comes from the previous file's units.
	writeLater(t, filepath.Join(root, "store", "store.go"), "package store\n\nfunc OpenDatabase(cfg any) error { return nil }\n\nfunc CloseDatabase() {}\n")
	again := NewIndex(root, cache)
	if st, err = again.Build(ctx, paths); err != nil || st.CacheHits != 23 {
		t.Fatalf("one file changed: %+v, %v", st, err)
	}
	again.Update("config/config.go", []byte("package config\n\nfunc ParseSettings(path string) int { return 0 }\n"))
	if err := again.Save(); err != nil {
		t.Fatal(err)
	}
	last := NewIndex(root, cache)
	if st, err = last.Build(ctx, paths); err != nil || st.CacheHits != 23 {
		t.Fatalf("after a save: %+v, %v; want all but the saved file from the cache", st, err)
	}
	if !hasDef(last.FileTags("store/store.go"), "CloseDatabase") || !hasDef(last.FileTags("other/o07.go"), "Unrelated07Worker") {
		t.Fatal("the cache lost a file's tags")
	}
	if names, _ := os.ReadDir(cache); len(names) != 2 {
		t.Fatalf("cache folder: %v, want the tag cache and the graph file", names)
	}
}

// TestKilledBuildsTemporaryFileIsRemoved: a temporary cache file no live
// process holds (a build killed mid-way) is removed by the next build; one
// a live writer holds is not.
func TestKilledBuildsTemporaryFileIsRemoved(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(cache, ".tmp-"+cacheFileName+"-123")
	if err := os.WriteFile(stray, []byte(cacheMagic+"half"), 0o644); err != nil {
		t.Fatal(err)
	}
	live, err := os.Create(filepath.Join(cache, ".tmp-"+cacheFileName+"-456"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	lockTemp(live)
	if _, err := NewIndex(root, cache).Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("the killed build's file is still there: %v", err)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Fatalf("a live writer's file was removed: %v", err)
	}
}

// TestMostlyDeadUnitIsNotCopied: when most of a unit's files are gone, a
// save encodes the rest again instead of copying the unit, so the cache
// does not keep growing with tags nothing uses.
func TestMostlyDeadUnitIsNotCopied(t *testing.T) {
	root, paths := writeTree(t, projectFiles())
	cache := filepath.Join(root, ".aide", "cache")
	ctx := context.Background()
	if _, err := NewIndex(root, cache).Build(ctx, paths); err != nil { // one unit
		t.Fatal(err)
	}
	before, err := os.Stat(filepath.Join(cache, cacheFileName))
	if err != nil {
		t.Fatal(err)
	}
	few := paths[:5]
	ix := NewIndex(root, cache)
	st, err := ix.Build(ctx, few)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(filepath.Join(cache, cacheFileName))
	if err != nil || after.Size() >= before.Size() {
		t.Fatalf("cache of 5 files %d bytes, of 24 files %d: %v", after.Size(), before.Size(), err)
	}
	warm := NewIndex(root, cache)
	if st2, err := warm.Build(ctx, few); err != nil || st2.CacheHits != st.Files || st2.Files != st.Files {
		t.Fatalf("restart on the smaller cache: %+v, %v; want the %d files from the cache", st2, err, st.Files)
	}
	if got, want := allTags(warm, few), allTags(ix, few); len(got) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("restart's tags:\n%v\nwant\n%v", got, want)
	}
}
