//go:build unix

package treesitter

import (
	"syscall"
)

// cpuTime is the process's user+system CPU time (0 if it cannot be read): on a
// shared, loaded machine it says more than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
