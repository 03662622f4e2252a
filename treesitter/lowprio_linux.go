package treesitter

import (
	"runtime"
	"syscall"
)

// workerNice is how much nicer than the rest of the process the index's
// worker threads run.
const workerNice = 10

// lowerPriority runs the calling goroutine, until it returns, on an OS
// thread of its own workerNice above the process's nice value, so that a
// build on every core leaves the editor's requests (codeAction, didChange)
// the CPU they need first (docs/performance.md, codeAction while
// indexing). Relative, not absolute: a server started under `nice -n 10`
// (a benchmark, a user's wrapper) would otherwise run its workers at the
// same nice as its request path, and the lowering would do nothing. The
// goroutine must exit without unlocking: Go then ends the thread rather
// than reuse it at a low priority.
func lowerPriority() {
	runtime.LockOSThread()
	tid := syscall.Gettid()
	// Linux's getpriority answers 20 - nice (1 for nice 19, 40 for -20).
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(20-raw+workerNice, 19))
}
