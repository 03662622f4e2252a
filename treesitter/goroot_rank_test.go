package treesitter

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestGOROOTMapsKeepTheirFiles: the maps of the benchmark tasks (mapTasks)
// on $(go env GOROOT)/src still name every file they named before the
// index became progressive and began ranking the focus file's includes
// (testdata/goroot_maps.txt: task number, file; made with `aide-lsp map`
// at that commit). A change to the ranking may add files, not lose them.
//
// A cold index of GOROOT/src takes minutes on a busy machine, so the test
// runs only with AIDE_RANK_GOROOT=1 (tests/perf/run.sh sets it; with
// AIDE_BENCH_CACHE the index is warm after the first run).
func TestGOROOTMapsKeepTheirFiles(t *testing.T) {
	if os.Getenv("AIDE_RANK_GOROOT") == "" {
		t.Skip("set AIDE_RANK_GOROOT=1 to index GOROOT/src and compare the benchmark tasks' maps")
	}
	f, err := os.Open("testdata/goroot_maps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[int][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n, file, ok := strings.Cut(sc.Text(), " ")
		task, err := strconv.Atoi(n)
		if !ok || err != nil || task >= len(mapTasks) {
			t.Fatalf("bad line %q in goroot_maps.txt", sc.Text())
		}
		want[task] = append(want[task], file)
	}
	ix, cache := built(t)
	// A warm start on the same cache (the mapped tags and graph file)
	// gives every task the very map the index that built them gives.
	root, files, _ := gorootSrc(t)
	warm := NewIndex(root, cache)
	if _, err := warm.Build(context.Background(), files); err != nil {
		t.Fatal(err)
	}
	// So does a start that maps before listing anything (Preload).
	preloaded := NewIndex(root, cache)
	if !preloaded.Preload(nil) {
		t.Fatal("Preload found nothing in the built cache")
	}
	for task, files := range want {
		req := mapTasks[task]
		m := ix.Map(req)
		got := mapFiles(m)
		for _, f := range files {
			if !contains(got, f) {
				t.Errorf("task %d (%q, focus %v): the map no longer names %s; it names %q", task, req.Task, req.Focus, f, got)
			}
		}
		if w := warm.Map(req); w != m {
			t.Errorf("task %d: the warm start's map differs from the cold index's:\nwarm:\n%s\ncold:\n%s", task, w, m)
		}
		if p := preloaded.Map(req); p != m {
			t.Errorf("task %d: the map before the listing differs from the cold index's:\npreloaded:\n%s\ncold:\n%s", task, p, m)
		}
	}
}
