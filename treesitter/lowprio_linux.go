package treesitter

import (
	"runtime"
	"syscall"
)

// lowerPriority runs the calling goroutine, until it returns, on an OS
// thread of its own at nice 10, so that a build on every core leaves the
// editor's requests (codeAction, didChange) the CPU they need first
// (docs/performance.md, codeAction while indexing). The goroutine must
// exit without unlocking: Go then ends the thread rather than reuse it at
// a low priority.
func lowerPriority() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
}
