package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// warmCache builds the project once with a tag cache and returns the root,
// the cache folder and the paths listed.
func warmCache(t *testing.T) (root, cache string, paths []string) {
	t.Helper()
	root, paths = writeTree(t, projectFiles())
	cache, err := UserCacheDir(filepath.Join(t.TempDir(), "aide-lsp"), root) // where the server keeps it
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewIndex(root, cache).Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	return root, cache, paths
}

// TestPreloadMapsBeforeTheListing: a start on a warm cache gives the map
// the last session gave, before any file is listed, and says it comes
// from the last session until a Build compared the files with the disk.
func TestPreloadMapsBeforeTheListing(t *testing.T) {
	root, cache, paths := warmCache(t)
	fresh := NewIndex(root, "")
	if _, err := fresh.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	want := mapsOf(fresh)

	ix := NewIndex(root, cache)
	if !ix.Preload(nil) {
		t.Fatal("Preload found nothing in a warm cache")
	}
	if got := mapsOf(ix); !slices.Equal(got, want) {
		t.Fatalf("maps before the listing differ from a built index's:\n got %q\nwant %q", got, want)
	}
	if c := ix.Coverage(); !c.FromLastSession || !c.Partial() || c.Indexed != len(paths)-1 {
		t.Fatalf("coverage before the build = %+v, want the last session's %d files", c, len(paths)-1)
	}
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if c := ix.Coverage(); c.FromLastSession || c.Partial() {
		t.Fatalf("coverage after the build = %+v, want complete", c)
	}
	if got := mapsOf(ix); !slices.Equal(got, want) {
		t.Fatalf("maps after the build differ:\n got %q\nwant %q", got, want)
	}
	if NewIndex(t.TempDir(), filepath.Join(t.TempDir(), "cache")).Preload(nil) {
		t.Fatal("Preload without a cache says the index holds files")
	}
}

// TestPreloadChecksWhatTheMapReads: files changed, deleted and added
// between two sessions never show their old signatures in a map made from
// the last session's index, nor does a file no longer admitted (denied).
func TestPreloadChecksWhatTheMapReads(t *testing.T) {
	root, cache, paths := warmCache(t)
	write := func(rel, content string) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// A modification time the cache cannot hold already.
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(abs, later, later); err != nil {
			t.Fatal(err)
		}
	}
	write("config/config.go", "package config\n\ntype Settings struct{}\n\nfunc LoadSettingsFromDisk(path string, strict bool) Settings {\n\treturn Settings{}\n}\n")
	write("app/handler.go", "package app\n\nfunc HandleRequest(path string) error {\n\tcfg := config.LoadSettingsFromDisk(path, true)\n\treturn store.OpenDatabase(cfg)\n}\n")
	if err := os.Remove(filepath.Join(root, "store", "store.go")); err != nil {
		t.Fatal(err)
	}
	write("app/extra.go", "package app\n\nfunc ExtraHandlerStep() {}\n")
	listed := append(slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == "store/store.go" }), "app/extra.go")
	slices.Sort(listed)

	ix := NewIndex(root, cache)
	if !ix.Preload(func(rel string) bool { return rel != "other/o03.go" }) {
		t.Fatal("Preload found nothing in a warm cache")
	}
	for _, req := range []MapRequest{
		{Focus: []string{"app/handler.go"}, Tokens: 4000},
		{Focus: []string{"app/handler.go"}, Tokens: 60},
		{Task: "Unrelated03Worker and OpenDatabase and ParseSettings", Tokens: 200},
	} {
		m := ix.Map(req)
		for _, stale := range []string{"ParseSettings", "OpenDatabase", "store/store.go", "other/o03.go"} {
			if strings.Contains(m, stale) {
				t.Errorf("map for %+v names %q, gone or denied since the last session:\n%s", req, stale, m)
			}
		}
		if req.Tokens == 4000 && !strings.Contains(m, "LoadSettingsFromDisk(path string, strict bool)") {
			t.Errorf("map for %+v lacks the changed config.go's new signature:\n%s", req, m)
		}
		if len(req.Focus) > 0 && !strings.Contains(m, req.Focus[0]+":") {
			t.Errorf("map for %+v does not name its focus file:\n%s", req, m)
		}
	}

	// Once the build has compared every file, the map is a cold index's.
	listed = slices.DeleteFunc(listed, func(p string) bool { return p == "other/o03.go" })
	if _, err := ix.Build(context.Background(), listed); err != nil {
		t.Fatal(err)
	}
	fresh := NewIndex(root, "")
	if _, err := fresh.Build(context.Background(), listed); err != nil {
		t.Fatal(err)
	}
	req := MapRequest{Focus: []string{"app/handler.go"}, Tokens: 4000}
	want := fresh.Map(req)
	if got := ix.Map(req); got != want || !strings.Contains(got, "ExtraHandlerStep") {
		t.Fatalf("map after the build:\n%s\nwant a cold index's:\n%s", got, want)
	}
}

// TestCacheOverTheLimitIsNotUsed: a Build holds the tag cache to the size
// a start allows for the files it lists (64 bytes per source byte), read
// at its start or preloaded before; over it, the files are indexed afresh.
func TestCacheOverTheLimitIsNotUsed(t *testing.T) {
	for _, preload := range []bool{false, true} {
		root, cache, _ := warmCache(t)
		ix := NewIndex(root, cache)
		if preload && !ix.Preload(nil) {
			t.Fatal("Preload found nothing in a warm cache")
		}
		// Listing one small file makes the cache far too big for it.
		st, err := ix.Build(context.Background(), []string{"store/store.go"})
		if err != nil {
			t.Fatal(err)
		}
		if st.CacheHits != 0 || st.Files != 1 || st.BytesParsed == 0 {
			t.Fatalf("preload %v: build after an oversized cache: %+v, want the file parsed afresh", preload, st)
		}
		// The whole tree holds such a cache: every file is a hit. (The
		// build above rewrote the first one.)
		root, cache, paths := warmCache(t)
		warm := NewIndex(root, cache)
		if preload {
			warm.Preload(nil)
		}
		if st, err := warm.Build(context.Background(), paths); err != nil || st.BytesParsed != 0 || st.CacheHits != st.Files {
			t.Fatalf("preload %v: build of the whole tree on its cache: %+v, %v; want every file from the cache", preload, st, err)
		}
	}
}
