package planview

import (
	"strings"
	"testing"
)

// BenchmarkParse parses an architect answer with a plan at the size limit.
func BenchmarkParse(b *testing.B) {
	text := "I read the code.\n\n## Plan\n" + strings.Repeat("1. In `pkg/file.go`, rename Foo to Bar and update callers.\n", 140) + "## End Plan\nDone."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender renders a full plan document (plan, drift, diff, cost, log).
func BenchmarkRender(b *testing.B) {
	p, _ := Parse("## Plan\n" + strings.Repeat("- step\n", 500) + "## End Plan")
	d := Doc{Session: "s", Task: "t", State: "proposed", Cycle: 1, MaxCycles: 8, Plan: p,
		Drift: []DriftItem{{Path: "a.go", Kind: "modified"}}, Diff: strings.Repeat("+x\n", 2000),
		Cost: []CostLine{{Model: "m", Role: "architect", Requests: 1}}, Log: []string{"x", "y"}}
	for b.Loop() {
		_ = Render(d)
	}
}

// BenchmarkDefang defangs a plan at the size limit: steps with code spans,
// tags and an image, the parse that decides what is code included.
func BenchmarkDefang(b *testing.B) {
	text := strings.Repeat("1. In `pkg/file.go`, rename `<Foo>` to Bar; see ![x](u) and <b>here</b>.\n", 110)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = Defang(text)
	}
}

// BenchmarkDefangWorst defangs a plan-sized text where every escape turns
// code into text, so every pass finds more (maxDefangPasses bounds them).
func BenchmarkDefangWorst(b *testing.B) {
	text := strings.Repeat("<a href='`'>x` <img src=y> `", 290)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = Defang(text)
	}
}
