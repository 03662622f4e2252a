//go:build unix

package perf

import (
	"syscall"
	"time"
)

// selfCPU is the process's user+system CPU time (0 if it cannot be read): on a
// shared, loaded machine it says more than wall time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
