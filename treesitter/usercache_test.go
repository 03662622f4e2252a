package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserCacheDirIsTheWorkspaces: one folder per workspace in the user's
// cache folder, the same for the workspace reached through a symbolic
// link, naming the workspace's real path; a folder that names another
// workspace, that others may write, or that lies inside the workspace is
// refused.
func TestUserCacheDirIsTheWorkspaces(t *testing.T) {
	home := filepath.Join(t.TempDir(), "aide-lsp")
	root, other := t.TempDir(), t.TempDir()
	real, _ := filepath.EvalSymlinks(root)
	dir, err := UserCacheDir(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, filepath.Join(home, "index")+string(filepath.Separator)) {
		t.Fatalf("cache folder %s is not in %s/index", dir, home)
	}
	if rec, _ := os.ReadFile(filepath.Join(dir, rootFileName)); strings.TrimSpace(string(rec)) != real {
		t.Fatalf("the folder names %q, want %q", rec, real)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if again, err := UserCacheDir(home, link); err != nil || again != dir {
		t.Fatalf("through a link: %q, %v; want %q", again, err, dir)
	}
	if d2, err := UserCacheDir(home, other); err != nil || d2 == dir {
		t.Fatalf("another workspace: %q, %v", d2, err)
	}

	// A folder whose record names another workspace (a collision, or a
	// folder moved) is not used.
	if err := os.WriteFile(filepath.Join(dir, rootFileName), []byte("/elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := UserCacheDir(home, root); err == nil || !strings.Contains(err.Error(), "/elsewhere") {
		t.Fatalf("a folder of another workspace was used: %v", err)
	}
	os.Remove(filepath.Join(dir, rootFileName))

	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := UserCacheDir(home, root); err == nil || !strings.Contains(err.Error(), "others may write") {
		t.Fatalf("a folder others may write was used: %v", err)
	}
	os.Chmod(dir, 0o700)

	if _, err := UserCacheDir(filepath.Join(root, ".cache"), root); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Fatalf("a cache folder inside the workspace was used: %v", err)
	}
	if _, err := UserCacheDir("", root); err == nil {
		t.Fatal("no cache folder, yet one was used")
	}
}

// TestCacheOthersMayWriteIsNotRead: a tag cache or graph file that another
// user could have written is not decoded: the index starts cold.
func TestCacheOthersMayWriteIsNotRead(t *testing.T) {
	root, cache, paths := warmCache(t)
	for _, name := range []string{cacheFileName, graphFileName} {
		if err := os.Chmod(filepath.Join(cache, name), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	ix := NewIndex(root, cache)
	if ix.Preload(nil) {
		t.Fatal("Preload read a cache others may write")
	}
	st, err := ix.Build(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if st.CacheHits != 0 {
		t.Fatalf("%d cache hits from a cache others may write", st.CacheHits)
	}
	// The build wrote its own, which the next start reads.
	if !NewIndex(root, cache).Preload(nil) {
		t.Fatal("the cache the build wrote is not read")
	}
}

// TestCacheOfAnotherUserIsNotRead: a tag cache another user owns is not
// decoded (run as root, which can give a file away).
func TestCacheOfAnotherUserIsNotRead(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can make a file another user's")
	}
	root, cache, _ := warmCache(t)
	for _, name := range []string{cacheFileName, graphFileName} {
		if err := os.Chown(filepath.Join(cache, name), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if NewIndex(root, cache).Preload(nil) {
		t.Fatal("Preload read another user's cache")
	}
	if _, err := mapFile(filepath.Join(cache, cacheFileName), 1<<30); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
		t.Fatalf("another user's cache file: %v", err)
	}
}
