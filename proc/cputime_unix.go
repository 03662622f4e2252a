//go:build unix

package proc

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time, 0 if it cannot be read.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
