package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Size caps of the files aide-lsp reads under .aide/ and from the user's
// configuration (contract §8): a hostile repository can ship any of them, so
// none may be large enough to hurt the server.
const (
	// MaxConfigBytes caps a configuration file: a real one is a few KiB.
	MaxConfigBytes = 1 << 20
	// MaxStateBytes caps one session state file: a session holds a plan
	// (≤ 8 KiB), its hunks and a short log.
	MaxStateBytes = 4 << 20
	// MaxTagCacheBytes is the absolute cap of the tag cache; the cache is
	// also capped at TagCacheBytesPerSourceByte per byte it indexes.
	MaxTagCacheBytes = 1 << 30
	// TagCacheBytesPerSourceByte bounds the tag cache by what it indexes.
	TagCacheBytesPerSourceByte = 64
	// MaxReadBytes caps a workspace file read into a prompt or edited: far
	// above any source file a model can work on, far below what hurts.
	MaxReadBytes = 16 << 20
)

// ErrNotRegular is returned by ReadRegular for a symbolic link, a FIFO, a
// device or a folder: reading one could block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadRegular for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// ReadRegular reads path when it is a regular file of at most max bytes.
// The open does not follow a symbolic link at the last element (O_NOFOLLOW)
// and does not block on a FIFO (O_NONBLOCK); the file is checked with fstat
// on the open descriptor, so a swap between check and read cannot slip a
// device in; and at most max+1 bytes are ever read, so a file that grows
// while read is refused too. A missing file gives an error satisfying
// os.IsNotExist.
func ReadRegular(path string, max int64) ([]byte, error) {
	if st, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, %w: skipped", path, describeMode(st.Mode()), ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		if isLinkRefusal(err) {
			return nil, fmt.Errorf("%s is a symbolic link, %w: skipped", path, ErrNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, %w: skipped", path, describeMode(st.Mode()), ErrNotRegular)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d allowed (%w): skipped", path, st.Size(), max, ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past the %d bytes allowed (%w): skipped", path, max, ErrTooLarge)
	}
	return data, nil
}

// ReadUnder reads rel (slash-separated, no "..") under dir with
// ReadRegular, refusing every symbolic link on the way: a folder of .aide/
// swapped for a link to / must not turn a read of .aide/cache/x into a read
// of /x.
func ReadUnder(dir, rel string, max int64) ([]byte, error) {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	p := dir
	for i, part := range parts {
		if part == "" || part == "." || part == ".." {
			return nil, fmt.Errorf("%s: refused: not a plain relative path", rel)
		}
		p = filepath.Join(p, part)
		if i == len(parts)-1 {
			break
		}
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is %s, not a folder, %w: skipped", p, describeMode(st.Mode()), ErrNotRegular)
		}
	}
	return ReadRegular(p, max)
}

func describeMode(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0 || m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}

// OpenLog opens a log file to append to (aide-lsp serve --log FILE): never
// through a symbolic link at path (another local user could point one at
// ~/.bashrc), never anything but a regular file (a FIFO would block the
// server, a device would be written). It is created 0600 when missing.
func OpenLog(path string) (*os.File, error) {
	f, err := OpenPrivate(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|oNonBlock, 0o600)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("refused: %s is %s, not a regular file: give --log a file", path, describeMode(st.Mode()))
	}
	return f, nil
}
