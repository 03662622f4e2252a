//go:build !unix

package workspace

import "io/fs"

// inodeOf is 0 where os.Stat gives no inode (Windows): the watcher then compares
// size, time, mode and, for racy files, the content hash.
func inodeOf(fs.FileInfo) uint64 { return 0 }
