package app

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's pacing, tuned for a language server (`aide-lsp serve`
// starts it once per process, TuneGC).
//
// Why: the server's live heap is small (≈ 8 MB with a 10,000-line document
// open), while a streaming model call allocates fast (the SDK decodes every
// SSE event: ≈ 80 MB/s when a fake streams as fast as it can). With the
// default GOGC=100 the heap goal is twice the live heap, so the collector
// ran about 18 times a second; its stop-the-world phases and mark workers
// took the two Ps from the read loop, and codeAction answers waited
// (tests/perf BenchmarkCodeActionUnderLoad: with no collection at all,
// requests delayed > 5 ms before the handler fell from 212 to 80 of 5,000,
// p90 3.9 → 2.5 ms).
//
// What: after every collection the heap goal is set to the live heap plus
// at least gcMinHeadroom, never less than GOGC=100 gives: a small heap
// collects every 64 MiB allocated instead of every 8; a large one (an
// indexed monorepo) is paced exactly as by default.
//
// Memory bound: the heap stays within the live heap plus
// max(live heap, gcMinHeadroom), so at most gcMinHeadroom more than with
// GOGC=100; a memory limit (debug.SetMemoryLimit) two headrooms above what
// the runtime uses after each collection caps the moment between a
// collection and the retuning that follows it, when the goal still comes
// from the previous live heap.
//
// A GOGC or GOMEMLIMIT set in the environment wins: then nothing is tuned.
const gcMinHeadroom = 64 << 20

var gcTuneOnce sync.Once

// TuneGC starts the tuning unless the environment sets the collector's
// knobs. It is process-wide and idempotent.
func TuneGC() {
	gcTuneOnce.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		armGCTuner()
	})
}

// gcCycle is an object the tuner drops at once: its cleanup runs after the
// collection that found it unreachable, i.e. after every cycle. (It has a
// pointer field, so it is never in a tiny-allocator block, whose cleanups
// may never run.)
type gcCycle struct{ _ *byte }

func armGCTuner() {
	runtime.AddCleanup(new(gcCycle), func(struct{}) {
		retuneGC()
		armGCTuner()
	}, struct{}{})
}

var gcSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// gcMu serialises retuneGC (cleanups run one at a time, but tests may call
// it directly).
var gcMu sync.Mutex

// retuneGC sets GOGC and the memory limit from the live heap of the last
// collection (see the comment above gcMinHeadroom).
func retuneGC() {
	gcMu.Lock()
	defer gcMu.Unlock()
	metrics.Read(gcSamples)
	live := gcSamples[0].Value.Uint64()
	if live == 0 {
		return
	}
	inUse := gcSamples[1].Value.Uint64() - gcSamples[2].Value.Uint64() - gcSamples[3].Value.Uint64()
	headroom := max(live, gcMinHeadroom)
	debug.SetGCPercent(int(max(100, headroom*100/live)))
	debug.SetMemoryLimit(int64(inUse + 2*headroom))
}
