package treesitter

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// The tag cache and the graph file are the index's own state: they live
// in the user's cache folder (config.CacheDir, $XDG_CACHE_HOME/aide-lsp),
// one folder per workspace under index/, never under the workspace. A
// repository can ship any file at any path of its tree (a
// .aide/cache/tags-v3.bin of 64 MiB cost a gigabyte of heap to decode), so
// the index reads back only what it wrote (design §where state lives,
// contract §2). A cache an older version left in <root>/.aide/cache is
// ignored, never deleted: it is a file of the repository now.

// rootFileName is the file of a workspace's cache folder that names the
// workspace (its real path): a folder whose record names another
// workspace is not used.
const rootFileName = "workspace"

// UserCacheDir is the folder of root's tag cache and graph file in the
// user's cache folder cacheHome (config.CacheDir), made if missing:
// cacheHome/index/<hash of root's real path>. It refuses a cacheHome that
// is not absolute or lies inside the workspace, a folder on the way that
// is a symbolic link, another user's or writable by others, and a folder
// whose record names another workspace; the index then keeps no cache.
func UserCacheDir(cacheHome, root string) (string, error) {
	if cacheHome == "" || !filepath.IsAbs(cacheHome) {
		return "", errors.New("no cache folder for the index: set XDG_CACHE_HOME or HOME")
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real = filepath.Clean(real)
	if r := workspace.Inside(cacheHome, root); r != "" {
		return "", fmt.Errorf("the cache folder %s is inside the workspace %s, so the index keeps no cache; set XDG_CACHE_HOME to a folder outside it", cacheHome, r)
	}
	sum := sha256.Sum256([]byte(real))
	dir := filepath.Join(cacheHome, "index", hex.EncodeToString(sum[:12]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, d := range []string{cacheHome, filepath.Dir(dir), dir} {
		if err := checkOwnDir(d); err != nil {
			return "", err
		}
	}
	rec := filepath.Join(dir, rootFileName)
	got, err := workspace.ReadRegular(rec, 64<<10)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := workspace.WriteFileAtomic(rec, []byte(real+"\n"), 0o600); err != nil {
			return "", err
		}
	case err != nil:
		return "", err
	case strings.TrimSuffix(string(got), "\n") != real:
		return "", fmt.Errorf("the cache folder %s is that of %s, not of %s: the index keeps no cache (remove the folder)", dir, strings.TrimSpace(string(got)), real)
	}
	return dir, nil
}

// checkOwnDir refuses a folder of the cache that is a symbolic link, not a
// folder, or not this user's alone to write (ownedPrivate).
func checkOwnDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("refused: the cache folder %s is not a folder (a symbolic link?): the index keeps no cache", dir)
	}
	return ownedPrivate(dir, info)
}
