package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFileAtomic replaces the file at path with data, whole: written to a
// temporary file in the same folder, flushed to the disk, then renamed over
// path, so a reader (a restarted server, another process, the editor)
// never sees half a file, even after a crash. It is the one way aide-lsp
// writes its own files: session state, plan documents, the trust store,
// history, undo records, what the server wrote, the tag cache and graph
// file, cassettes and the apply journal.
// The file gets perm (0o600 for what is private to the user); a missing
// folder is made, private (0o700) when perm gives the group and others
// nothing. The temporary file is created exclusively, so no link there is
// followed; it is removed on failure.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic with the content written by fill, for a
// file too large to build in memory first (the tags cache).
func WriteAtomic(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	pattern := ".tmp-" + strings.ReplaceAll(filepath.Base(path), "*", "") + "-*"
	tmp, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		dirPerm := fs.FileMode(0o755)
		if perm&0o077 == 0 {
			dirPerm = 0o700
		}
		if err = os.MkdirAll(dir, dirPerm); err == nil {
			tmp, err = os.CreateTemp(dir, pattern)
		}
	}
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = fill(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	// The rename itself is made durable too (best effort: not every file
	// system lets a folder be synced).
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
