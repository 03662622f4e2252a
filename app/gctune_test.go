package app

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestRetuneGCLeavesHeadroom: after a collection, the goal leaves at least
// gcMinHeadroom above a small live heap (never less than GOGC=100 would),
// and the memory limit sits above that goal.
func TestRetuneGCLeavesHeadroom(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) })

	runtime.GC()
	retuneGC()
	live := readLive()
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	if percent < 100 {
		t.Fatalf("GOGC %d: below the default", percent)
	}
	if goal := live + live*uint64(percent)/100; goal < live+gcMinHeadroom-live/50 {
		t.Errorf("live heap %d B, GOGC %d: goal %d B leaves less than %d B of headroom", live, percent, goal, gcMinHeadroom)
	}
	if uint64(limit) < live+2*max(live, gcMinHeadroom) {
		t.Errorf("memory limit %d B is under the goal (live heap %d B)", limit, live)
	}
}

func readLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
