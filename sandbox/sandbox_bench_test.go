package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkRun measures the sandbox's cost per command against the same
// command unconfined (docs/performance.md "Sandbox"): `true`, and `go
// build` and `go vet` on examples/shop with a warm build cache. The metric
// is the median of the runs (use -benchtime=20x).
func BenchmarkRun(b *testing.B) {
	shop, err := filepath.Abs("../examples/shop")
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ()[:0:0], os.Environ()...)
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"true", []string{"true"}},
		{"go-build", []string{"go", "build", "./..."}},
		{"go-vet", []string{"go", "vet", "./..."}},
	} {
		for _, unconfined := range []bool{false, true} {
			name := c.name + "/confined"
			if unconfined {
				name = c.name + "/unconfined"
			}
			b.Run(name, func(b *testing.B) {
				if !unconfined {
					if err := Available(); err != nil {
						b.Skip(err)
					}
				}
				dir := b.TempDir()
				if err := os.CopyFS(dir, os.DirFS(shop)); err != nil {
					b.Fatal(err)
				}
				spec := Spec{Argv: c.argv, Dir: dir, Env: env, Output: io.Discard, Unconfined: unconfined}
				if _, err := Run(context.Background(), spec); err != nil { // warm the cache
					b.Fatal(err)
				}
				var ds []time.Duration
				b.ResetTimer()
				for range b.N {
					start := time.Now()
					if _, err := Run(context.Background(), spec); err != nil {
						b.Fatal(err)
					}
					ds = append(ds, time.Since(start))
				}
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
			})
		}
	}
}
