//go:build unix

package verify

import (
	"errors"
	"syscall"
)

// oNonBlock makes the open of a FIFO swapped in for a file return at once.
const oNonBlock = syscall.O_NONBLOCK

// processAlive reports whether pid names a running process (or one of
// another user's, which is not ours to judge).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
