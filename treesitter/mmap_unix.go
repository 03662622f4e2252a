//go:build unix

package treesitter

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"unsafe"

	"golang.org/x/sys/unix"
)

// mappedFile is a read-only memory mapping of a whole file (graphfile.go,
// cache.go) or of a region of one (cachewriter.go).
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
	if err := ownedPrivate(path, st); err != nil {
		return nil, err
	}
	return mapRegion(f, 0, int(st.Size()))
}

// mapRegion maps n bytes of f from off, a multiple of the page size.
func mapRegion(f *os.File, off int64, n int) (*mappedFile, error) {
	data, err := syscall.Mmap(int(f.Fd()), off, n, syscall.PROT_READ, syscall.MAP_SHARED)
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

// drop takes the pages of part (a slice of m's data) out of this process's
// resident set: they stay in the page cache, and a later read maps them
// again (a minor fault). A whole-file pass (the load's checks, a graph
// build, a save) would otherwise leave every page it read counted as the
// process's memory (design §repository map). Parts outside m are ignored.
func (m *mappedFile) drop(part []byte) {
	if m == nil || len(part) == 0 || len(m.data) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	if start < base || start+uintptr(len(part)) > base+uintptr(len(m.data)) {
		return
	}
	page := uintptr(os.Getpagesize())
	lo := (start - base) / page * page // the mapping starts on a page
	hi := start - base + uintptr(len(part))
	_ = unix.Madvise(m.data[lo:hi], unix.MADV_DONTNEED)
}

// lockTemp locks a temporary file this process writes (advisory, released
// when the process ends), so that another writer can tell it from one a
// killed build left (staleTemp).
func lockTemp(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// staleTemp reports whether the temporary file at path is a regular file
// no live process holds locked.
func staleTemp(path string) bool {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// ownedPrivate refuses a file or folder of the index's cache that another
// user owns or that others may write: only what this user's processes
// wrote is decoded (usercache.go).
func ownedPrivate(path string, info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("refused: %s belongs to user %d, not to you: the index reads only its own cache", path, st.Uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("refused: others may write %s (mode %v): the index reads only a cache no one else can change", path, info.Mode().Perm())
	}
	return nil
}
