package treesitter

import (
	"bufio"
	"io"

	"github.com/aide-lsp/aide-lsp/workspace"
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

// writeAtomic writes path through fill, whole (workspace.WriteAtomic: a
// temporary file beside it, renamed over path once complete), so a reader
// (or a mapping of the previous file) never sees a file half written or
// changed in place.
func writeAtomic(path string, fill func(*fileWriter) error) error {
	return workspace.WriteAtomic(path, 0o644, func(w io.Writer) error {
		fw := &fileWriter{w: bufio.NewWriterSize(w, 1<<16)}
		if err := fill(fw); err != nil {
			return err
		}
		return fw.w.Flush()
	})
}
