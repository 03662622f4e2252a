package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// aide-lsp keeps the files it shows the user (sessions, plans) under
// <root>/.aide; what it reads back as its own state lives in the user's
// folders (contract §2). A repository can be cloned with .aide in it, and with
// symbolic links there: .aide/sessions pointing at another folder, or a
// session's event file pointing at ~/.bashrc. Writing through such a link
// would write outside the workspace, so the folders are checked to be real
// folders, and files are opened without following a link.

// CheckPrivateDir returns an error that says what to do when dir, or a
// folder between root and dir, is a symbolic link or not a folder. Missing
// folders are fine (they are made when first written). dir must be inside
// root.
func CheckPrivateDir(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("refused: %s is not inside the workspace %s", dir, root)
	}
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			return fmt.Errorf("refused: %s is a symbolic link (to %s): aide-lsp writes its files only in real folders inside the workspace; remove the link", p, target)
		}
		if !info.IsDir() {
			return fmt.Errorf("refused: %s is not a folder: aide-lsp keeps its files there; move it away", p)
		}
	}
	return nil
}

// OpenPrivate opens path with flag (os.O_WRONLY|os.O_APPEND|os.O_CREATE...)
// without following a symbolic link at path itself: a link there fails with
// an error that says so. Check its folder with CheckPrivateDir.
func OpenPrivate(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNoFollow, perm)
	if err != nil && isLinkRefusal(err) {
		if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("refused: %s is a symbolic link: aide-lsp does not write through links in its own folders; remove it", path)
		}
	}
	return f, err
}

// Inside returns the root among roots that path lies in, after
// resolving the symbolic links of the longest existing prefix of each (so a
// state folder reached through a link into a workspace is still caught),
// or "" when it lies in none. What the user's state folder keeps (the
// history of model calls, the undo records) is the user's, never a
// repository's: a state folder inside the workspace is refused.
func Inside(path string, roots ...string) string {
	p := realPath(path)
	for _, r := range roots {
		if r == "" {
			continue
		}
		rel, err := filepath.Rel(realPath(r), p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return r
		}
	}
	return ""
}

// realPath resolves symbolic links of the longest existing prefix of p.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
