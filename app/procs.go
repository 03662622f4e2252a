package app

import (
	"os"
	"runtime"
	"sync"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// The scheduler's share for a language server (`aide-lsp serve` and `acp`
// call ReserveRequestProc once per process).
//
// Why: the repository index builds on every core (treesitter.BuildWorkers
// goroutines, mostly in tree-sitter's C code). With as many Ps as workers,
// an editor's request found no P: the goroutine that reads stdin was woken
// only when the runtime's monitor polled the network (every 10 ms when
// every P is busy) and then queued until a worker's P was preempted or
// taken back from C, so codeAction waited 10–70 ms while the index built
// (a runtime/trace of BenchmarkKernelServer on GOROOT/src: the handler
// itself ran 0.1 ms, took no lock and almost no GC assist; the tail was
// all time runnable without a P, or not yet polled). docs/performance.md,
// "codeAction while indexing".
//
// What: one P more than the index's workers. The spare P sits in the
// network poller while the workers parse, so a request runs at once; the
// OS shares the cores between its thread and the workers', which run
// nicer (treesitter's lowerPriority), so the request gets the core first
// and the build loses only the CPU the requests use. An idle server pays
// nothing (an idle P is only a struct).
//
// A GOMAXPROCS set in the environment wins.
func ReserveRequestProc() {
	reserveOnce.Do(func() {
		if os.Getenv("GOMAXPROCS") != "" {
			return
		}
		if want := treesitter.BuildWorkers() + 1; runtime.GOMAXPROCS(0) < want {
			runtime.GOMAXPROCS(want)
		}
	})
}

var reserveOnce sync.Once
