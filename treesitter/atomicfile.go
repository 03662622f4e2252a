package treesitter

import (
	"bufio"
	"os"
	"path/filepath"
)

// fileWriter writes a cache file and counts its bytes, so that sections
// can start at aligned positions (graphfile.go, cache.go).
type fileWriter struct {
	w  *bufio.Writer
	at int
}

func (fw *fileWriter) put(b []byte) {
	fw.w.Write(b)
	fw.at += len(b)
}

// align pads to a multiple of n bytes.
func (fw *fileWriter) align(n int) { fw.put(make([]byte, (n-fw.at%n)%n)) }

// writeAtomic writes path through fill into a temporary file beside it,
// renamed over path once complete: a reader (or a mapping of the previous
// file) never sees a file half written or changed in place.
func writeAtomic(path, pattern string, fill func(*fileWriter) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	fw := &fileWriter{w: bufio.NewWriterSize(tmp, 1<<16)}
	if err := fill(fw); err != nil {
		tmp.Close()
		return err
	}
	if err := fw.w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
