//go:build unix

package treesitter

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// mappedFile is a read-only memory mapping of a whole file (graphfile.go).
type mappedFile struct{ data []byte }

// mapFile maps the regular file at path, refusing a symbolic link, a
// device or FIFO, an empty file, and a file over limit bytes. The file is
// only ever replaced by a rename, never truncated, so the mapping stays
// valid while the graph uses it.
func mapFile(path string, limit int64) (*mappedFile, error) {
	if st, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 || st.Size() > limit || int64(int(st.Size())) != st.Size() {
		return nil, fmt.Errorf("%s: not a graph file of at most %d bytes", path, limit)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &mappedFile{data: data}, nil
}

// close unmaps the file now; nothing may use its data after.
func (m *mappedFile) close() { _ = syscall.Munmap(m.data) }

// release hands the mapping to the collector: it is unmapped once no graph
// refers to m (every graph using its data holds m).
func (m *mappedFile) release() {
	runtime.AddCleanup(m, func(data []byte) { _ = syscall.Munmap(data) }, m.data)
}
