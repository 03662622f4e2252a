package treesitter

import (
	"runtime"
	"syscall"
	"testing"
)

// threadNice is the calling thread's nice value.
func threadNice(t *testing.T) int {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - raw
}

// A worker runs nicer than the thread that started it by workerNice (at
// most 19), whatever nice the process itself runs at: a server started
// under `nice` still lets the editor's requests go first while it indexes.
func TestWorkerThreadIsNicerThanTheProcess(t *testing.T) {
	// Starting points at or above the test's own nice value: raising a
	// thread's nice needs no privilege.
	for _, more := range []int{0, 5, 12} {
		got := make(chan [2]int)
		go func() {
			// A thread of its own for the whole goroutine: it ends with
			// the goroutine, and its nice value with it.
			runtime.LockOSThread()
			start := min(threadNice(t)+more, 19)
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), start); err != nil {
				t.Error(err)
			}
			base := threadNice(t)
			lowerPriority()
			got <- [2]int{base, threadNice(t)}
		}()
		r := <-got
		if want := min(r[0]+workerNice, 19); r[1] != want {
			t.Errorf("a worker started from a thread at nice %d runs at nice %d, want %d", r[0], r[1], want)
		}
	}
}
