//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// inodeOf is the file's inode number: a file replaced by rename keeps its size and
// time but not its inode, so the watcher sees the change.
func inodeOf(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
