package model

import (
	"errors"
	"strings"
	"testing"
)

// TestToolArgsLinear: streamed tool-call arguments are gathered in
// amortised linear time — a few dozen allocations for 80,000 fragments,
// where string += made one copy of the whole prefix per fragment (80,000
// allocations, quadratic bytes) — and refused past the cap.
func TestToolArgsLinear(t *testing.T) {
	frag := strings.Repeat("x", 90)
	allocs := testing.AllocsPerRun(1, func() {
		a := newToolArgs(0)
		for i := 0; i < 80_000; i++ {
			if err := a.add(0, frag); err != nil {
				t.Fatal(err)
			}
		}
		if len(a.get(0)) != 90*80_000 {
			t.Fatal("lost fragments")
		}
	})
	if allocs > 200 {
		t.Fatalf("%v allocations for 80,000 fragments: the accumulation is not linear", allocs)
	}
	a := newToolArgs(100)
	if err := a.add(0, strings.Repeat("x", 60)); err != nil {
		t.Fatal(err)
	}
	if err := a.add(1, strings.Repeat("y", 60)); !errors.Is(err, errTooLarge) {
		t.Fatalf("past the cap: %v", err)
	}
	if a.get(0) != strings.Repeat("x", 60) || a.get(1) != "" || a.get(7) != "" {
		t.Fatal("calls mixed up")
	}
}
