//go:build !unix

package treesitter

import (
	"io"
	"os"
	"time"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// mappedFile holds a whole file read into memory where there is no mmap.
type mappedFile struct{ data []byte }

func mapFile(path string, limit int64) (*mappedFile, error) {
	data, err := workspace.ReadRegular(path, limit)
	if err != nil {
		return nil, err
	}
	return &mappedFile{data: data}, nil
}

// mapRegion reads n bytes of f from off.
func mapRegion(f *os.File, off int64, n int) (*mappedFile, error) {
	data := make([]byte, n)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return nil, err
	}
	return &mappedFile{data: data}, nil
}

func (m *mappedFile) close()        {}
func (m *mappedFile) release()      {}
func (m *mappedFile) drop(_ []byte) {}

func lockTemp(_ *os.File) {}

// staleTemp: without locks, a temporary file a day old is a killed
// build's.
func staleTemp(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > 24*time.Hour
}

// ownedPrivate: file owners are a unix notion here.
func ownedPrivate(_ string, _ os.FileInfo) error { return nil }
