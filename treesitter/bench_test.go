package treesitter

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aide-lsp/aide-lsp/proc"
)

// Benchmarks on $(go env GOROOT)/src, the corpus every machine has. Run:
//
//	go test ./treesitter/ -run '^$' -bench . -benchtime 3x
//
// BenchmarkRawParse is the baseline the cold index is compared with: the
// same files, read and parsed on all cores, trees closed, nothing else.

var (
	gorootOnce  sync.Once
	gorootFiles []string
	gorootBytes int64
)

func gorootSrc(b testing.TB) (string, []string, int64) {
	b.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	gorootOnce.Do(func() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() > maxFileSize {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			gorootFiles = append(gorootFiles, filepath.ToSlash(rel))
			gorootBytes += info.Size()
			return nil
		})
		sort.Strings(gorootFiles)
	})
	if len(gorootFiles) == 0 {
		b.Skip("no Go files in GOROOT/src")
	}
	// AIDE_BENCH_PREFIX=net/ narrows the corpus for quick profiling.
	if prefix := os.Getenv("AIDE_BENCH_PREFIX"); prefix != "" {
		var files []string
		var total int64
		for _, f := range gorootFiles {
			if strings.HasPrefix(f, prefix) {
				files = append(files, f)
				if info, err := os.Stat(filepath.Join(root, f)); err == nil {
					total += info.Size()
				}
			}
		}
		return root, files, total
	}
	return root, gorootFiles, gorootBytes
}

func BenchmarkRawParse(b *testing.B) {
	root, files, total := gorootSrc(b)
	g, err := grammarFor("go")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportMetric(float64(len(files)), "files")
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < runtime.NumCPU(); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := newTagger()
				defer t.parser.Close()
				for {
					j := int(next.Add(1)) - 1
					if j >= len(files) {
						return
					}
					src, err := os.ReadFile(filepath.Join(root, files[j]))
					if err != nil {
						continue
					}
					tree, err := t.parse(g, src, nil)
					if err == nil {
						tree.Close()
					}
				}
			}()
		}
		wg.Wait()
	}
}

func BenchmarkColdIndex(b *testing.B) {
	root, files, total := gorootSrc(b)
	b.SetBytes(total)
	defer reportCPU(b)()
	var st Stats
	for i := 0; i < b.N; i++ {
		var err error
		st, err = NewIndex(root, b.TempDir()).Build(context.Background(), files)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Symbols), "symbols")
	b.ReportMetric(float64(st.CacheHits), "hits")
}

var (
	builtOnce  sync.Once
	builtIndex *Index
	builtCache string // removed at exit
	builtDir   string
)

// built is one cold index of the corpus with its cache, shared by the
// benchmarks that need one (a cold build takes minutes on a busy machine).
func built(b testing.TB) (*Index, string) {
	root, files, _ := gorootSrc(b)
	builtOnce.Do(func() {
		// AIDE_BENCH_CACHE keeps the cache between runs (the cold build
		// takes minutes on a busy machine); by default it is temporary.
		dir := os.Getenv("AIDE_BENCH_CACHE")
		if dir == "" {
			var err error
			if dir, err = os.MkdirTemp("", "aide-ts-bench-"); err != nil {
				b.Fatal(err)
			}
			builtCache = dir
		}
		builtIndex = NewIndex(root, dir)
		builtDir = dir
		if _, err := builtIndex.Build(context.Background(), files); err != nil {
			b.Fatal(err)
		}
	})
	return builtIndex, builtDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtCache != "" {
		os.RemoveAll(builtCache)
	}
	os.Exit(code)
}

// reportCPU adds the process CPU time per op: on a machine shared with
// other jobs, wall time measures the neighbours as much as the code.
func reportCPU(b *testing.B) func() {
	c0 := proc.CPUTime()
	return func() { b.ReportMetric(float64(proc.CPUTime()-c0)/float64(b.N)/1e6, "cpu-ms/op") }
}

func BenchmarkWarmStart(b *testing.B) {
	root, files, _ := gorootSrc(b)
	_, cache := built(b)
	if info, err := os.Stat(filepath.Join(cache, cacheFileName)); err == nil {
		b.ReportMetric(float64(info.Size())/1e6, "cacheMB")
	}
	b.ResetTimer()
	defer reportCPU(b)()
	var st Stats
	for i := 0; i < b.N; i++ {
		var err error
		st, err = NewIndex(root, cache).Build(context.Background(), files)
		if err != nil {
			b.Fatal(err)
		}
	}
	if st.CacheHits != st.Files {
		b.Fatalf("warm start parsed files: %+v", st)
	}
}

// BenchmarkWarmFirstMap is the first map of a warm start as a request
// meets it: the last session's tag cache and graph file mapped (Preload),
// then one map whose near and printed files are checked against the disk,
// before any listing (warm.go).
func BenchmarkWarmFirstMap(b *testing.B) {
	root, _, _ := gorootSrc(b)
	_, cache := built(b)
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		ix := NewIndex(root, cache)
		if !ix.Preload(nil) {
			b.Fatal("no cache to preload")
		}
		if ix.Map(mapTasks[i%len(mapTasks)]) == "" {
			b.Fatal("empty map")
		}
	}
}

// BenchmarkUpdate is one file changed on disk or in a buffer: a line
// inserted in the middle of the file, re-tagged and patched into the
// ranking graph (patch.go), so the next map shows it. "first" is a file the
// index kept no tree for (a full parse); "again" is the next change to the
// same file, parsed incrementally from the tree the previous Update kept
// (trees.go).
func BenchmarkUpdate(b *testing.B) {
	root, _, _ := gorootSrc(b)
	ix, _ := built(b)
	ix.Map(MapRequest{Tokens: 1}) // the graph the updates patch
	for _, rel := range []string{"net/http/client.go", "net/http/server.go"} {
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue
		}
		mid := bytes.IndexByte(src[len(src)/2:], '\n') + len(src)/2 + 1
		edited := func(i int) []byte {
			out := append([]byte(nil), src[:mid]...)
			out = append(out, fmt.Sprintf("\t// edit %d\n", i)...)
			return append(out, src[mid:]...)
		}
		name := fmt.Sprintf("%s_%dKB", filepath.Base(rel), len(src)/1024)
		b.Run(name+"/first", func(b *testing.B) {
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				ix.trees.drop(rel)
				ix.Update(rel, edited(i))
			}
		})
		b.Run(name+"/again", func(b *testing.B) {
			ix.Update(rel, edited(-1))
			b.ResetTimer()
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				ix.Update(rel, edited(i))
			}
		})
	}
}

func BenchmarkMap(b *testing.B) {
	ix, _ := built(b)
	ix.Map(MapRequest{Tokens: 1}) // graph build, shared by later requests
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		ix.Map(MapRequest{Focus: []string{"net/http/client.go"}, Task: "make Client.Do retry on ErrServerClosed", Tokens: 1024})
	}
}

// BenchmarkGraph is the ranking graph rebuilt after the index changed
// (the first Map after a Build or an Update).
func BenchmarkGraph(b *testing.B) {
	ix, _ := built(b)
	st := ix.lock()
	files := maps.Clone(st.files)
	ix.mu.Unlock()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		buildGraph(files)
	}
}
