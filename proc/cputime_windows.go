package proc

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time (0 if it cannot be read), from
// GetProcessTimes: Windows has no getrusage.
func CPUTime() time.Duration {
	var c, e, k, u syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &c, &e, &k, &u) != nil {
		return 0
	}
	return time.Duration(filetime(k) + filetime(u))
}

// filetime is a FILETIME duration in nanoseconds (it counts 100 ns units).
func filetime(f syscall.Filetime) int64 {
	return (int64(f.HighDateTime)<<32 | int64(f.LowDateTime)) * 100
}
