package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/proc"
)

// BenchmarkWriteToEvent measures disk write → event latency, with the
// default debounce and with a 1 ms one (what inotify and the loop cost).
func BenchmarkWriteToEvent(b *testing.B) {
	for _, d := range []time.Duration{DefaultDebounce, time.Millisecond} {
		b.Run("debounce="+d.String(), func(b *testing.B) {
			root := b.TempDir()
			write(b, root, "src/a.go", "start")
			w := open(b, root)
			wt, err := w.WatchWith(context.Background(), WatchOptions{Debounce: d, Logf: b.Logf})
			if err != nil {
				b.Fatal(err)
			}
			defer wt.Close()
			abs := filepath.Join(root, "src", "a.go")
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if err := os.WriteFile(abs, []byte(fmt.Sprint("write ", i)), 0o644); err != nil {
					b.Fatal(err)
				}
				for seen := false; !seen; {
					select {
					case batch := <-wt.Events():
						for _, e := range batch {
							seen = seen || e.Path == "src/a.go"
						}
					case <-time.After(hangGuard):
						b.Fatal("hang guard: no event")
					}
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}

func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command:", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("no GOROOT/src:", err)
	}
	return src
}

// BenchmarkWatchStartGOROOT measures watcher start-up (walk, one inotify
// watch per folder, stat of every file) on $(go env GOROOT)/src.
func BenchmarkWatchStartGOROOT(b *testing.B) {
	w := open(b, goroot(b))
	var st WatchStats
	cpu0 := proc.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		wt, err := w.WatchWith(context.Background(), WatchOptions{Logf: b.Logf})
		if err != nil {
			b.Fatal(err)
		}
		st = wt.Stats()
		wt.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/start")
	b.ReportMetric(float64((proc.CPUTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/start")
	b.ReportMetric(float64(st.Dirs), "dirs")
	b.ReportMetric(float64(st.Watches), "watches")
	b.ReportMetric(float64(st.Files), "files")
}

// BenchmarkPollScan measures one polling pass over $(go env GOROOT)/src
// (what DefaultPollInterval is weighed against).
func BenchmarkPollScan(b *testing.B) {
	w := open(b, goroot(b))
	wt, err := w.WatchWith(context.Background(), WatchOptions{Poll: true, PollInterval: time.Hour, Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer wt.Close()
	wt.Close() // stop the loop: the benchmark drives the scan itself
	cpu0 := proc.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		wt.rescanAll(context.Background())
		wt.flush()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/scan")
	b.ReportMetric(float64((proc.CPUTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/scan")
}

// BenchmarkFilesGOROOT measures Files (walk with ignore and deny rules).
func BenchmarkFilesGOROOT(b *testing.B) {
	w := open(b, goroot(b))
	var n int
	for i := 0; i < b.N; i++ {
		files, err := w.Files(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n = len(files)
	}
	b.ReportMetric(float64(n), "files")
}
