package treesitter

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

func buildProject(t *testing.T) *Index {
	t.Helper()
	root, paths := writeTree(t, projectFiles())
	ix := NewIndex(root, "")
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	return ix
}

// mapFiles lists the file headers of a rendered map.
func mapFiles(m string) []string {
	var out []string
	for _, line := range strings.Split(m, "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			out = append(out, strings.TrimSuffix(line, ":"))
		}
	}
	return out
}

func TestMapRanksFocusNeighboursFirst(t *testing.T) {
	ix := buildProject(t)
	// A budget that holds about five files out of 24.
	m := ix.Map(MapRequest{Focus: []string{"app/handler.go"}, Tokens: 60})
	files := mapFiles(m)
	want := []string{"app/handler.go", "cmd/main.go", "config/config.go", "store/store.go"}
	for _, w := range want {
		if !contains(files, w) {
			t.Errorf("map lacks %s (a neighbour of the focus file):\n%s", w, m)
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f, "other/") {
			t.Errorf("unrelated %s made the cut before the neighbours:\n%s", f, m)
		}
	}
	if !strings.Contains(m, "func ParseSettings(path string) Settings") {
		t.Errorf("the definition the focus file uses is missing:\n%s", m)
	}
}

func TestMapFollowsIdentifiersInTheTask(t *testing.T) {
	ix := buildProject(t)
	m := ix.Map(MapRequest{Task: "Unrelated07Worker loops forever; make it stop", Tokens: 40})
	if !strings.Contains(m, "func Unrelated07Worker()") {
		t.Fatalf("the identifier named in the task is not in the map:\n%s", m)
	}
	// What it references (o08) ranks above the rest of the ring.
	if !contains(mapFiles(m), "other/o08.go") {
		t.Errorf("what the named identifier calls is missing:\n%s", m)
	}
}

func TestMapHonoursBudget(t *testing.T) {
	ix := buildProject(t)
	prev := 0
	for _, budget := range []int{1, 10, 25, 50, 100, 200, 400, 5000} {
		m := ix.Map(MapRequest{Focus: []string{"app/handler.go"}, Task: "fix ParseSettings", Tokens: budget})
		if got := EstimateTokens(m); got > budget {
			t.Errorf("budget %d: map estimates %d tokens:\n%s", budget, got, m)
		}
		if len(m) < prev {
			t.Errorf("budget %d gave a smaller map (%d bytes) than a smaller budget (%d)", budget, len(m), prev)
		}
		prev = len(m)
	}
	all := ix.Map(MapRequest{Tokens: 5000})
	if n := len(mapFiles(all)); n != 24 {
		t.Errorf("a generous budget shows %d files, want all 24:\n%s", n, all)
	}
	if ix.Map(MapRequest{Tokens: -1}) != "" {
		t.Error("a negative budget should give an empty map")
	}
	if def := ix.Map(MapRequest{}); def == "" || EstimateTokens(def) > DefaultMapTokens {
		t.Errorf("Tokens 0 should use the default budget %d", DefaultMapTokens)
	}
}

func TestMapIsStable(t *testing.T) {
	ix := buildProject(t)
	req := MapRequest{Focus: []string{"cmd/main.go"}, Task: "rename HandleRequest", Tokens: 120}
	first := ix.Map(req)
	for i := 0; i < 5; i++ {
		if again := ix.Map(req); again != first {
			t.Fatalf("map changed between calls:\n%s\n---\n%s", first, again)
		}
	}
	files := mapFiles(first)
	for i := 1; i < len(files); i++ {
		if files[i-1] >= files[i] {
			t.Fatalf("files not in path order: %v", files)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syntheticProject is a larger workspace than projectFiles, with a graph
// less regular than a ring: 12 packages of 25 files, each file defining
// three functions and calling six others picked by a fixed-seed generator,
// most in its own package (as real code does), some elsewhere.
func syntheticProject() map[string]string {
	const pkgs, perPkg = 12, 25
	rng := rand.New(rand.NewPCG(11, 2026))
	name := func(p, f, k int) string { return fmt.Sprintf("Pkg%02dFile%02dStep%d", p, f, k) }
	files := map[string]string{}
	for p := range pkgs {
		for f := range perPkg {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%02d\n", p)
			for k := range 3 {
				fmt.Fprintf(&b, "\nfunc %s() {\n", name(p, f, k))
				for range 2 {
					q := p
					if rng.IntN(4) == 0 {
						q = rng.IntN(pkgs)
					}
					fmt.Fprintf(&b, "\t%s()\n", name(q, rng.IntN(perPkg), rng.IntN(3)))
				}
				b.WriteString("}\n")
			}
			files[fmt.Sprintf("p%02d/f%02d.go", p, f)] = b.String()
		}
	}
	return files
}

// TestPushMatchesPowerIteration: Map ranks with forward push; its top ten
// files are the power method's (40 steps) for focus files, tasks naming
// identifiers and paths, and no task at all. A file may stand in for
// another only when the two are tied within 1% in the exact ranking.
func TestPushMatchesPowerIteration(t *testing.T) {
	root, paths := writeTree(t, syntheticProject())
	ix := NewIndex(root, "")
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	g := ix.graph()
	if len(g.paths) != 300 {
		t.Fatalf("indexed %d files, want 300", len(g.paths))
	}
	reqs := []MapRequest{
		{Focus: []string{"p03/f07.go"}},
		{Focus: []string{"p00/f00.go", "p11/f24.go"}, Task: "rename Pkg05File03Step1"},
		{Task: "Pkg07File12Step2 is slow; see p02/f19.go"},
		{Focus: []string{"p08/f15.go"}, Task: "make Pkg08File15Step0 return early"},
		{},
	}
	for _, req := range reqs {
		tv := g.task(req, nil)
		exact := g.pageRank(slices.Clone(tv.pers))
		push := g.personalRank(slices.Clone(tv.pers), nil)
		wantTop, gotTop := topFiles(exact, 10), topFiles(push, 10)
		tenth := exact[wantTop[len(wantTop)-1]]
		for _, f := range gotTop {
			if !slices.Contains(wantTop, f) && exact[f] < 0.99*tenth {
				t.Errorf("%+v: push ranks %s in the top ten (exact rank %.5f), the power method does not (tenth: %.5f)\npush:  %v\nexact: %v",
					req, g.paths[f], exact[f], tenth, names(g, gotTop), names(g, wantTop))
			}
		}
		sum := 0.0
		for _, r := range push {
			sum += r
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%+v: push ranks sum to %v, want 1", req, sum)
		}
	}
}

func topFiles(rank []float64, k int) []int32 {
	idx := make([]int32, len(rank))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(rank[b], rank[a]) })
	return idx[:min(k, len(idx))]
}

func names(g *graph, files []int32) []string {
	var out []string
	for _, f := range files {
		out = append(out, g.paths[f])
	}
	return out
}

// TestSelectBestMatchesSort: the rounds render sorts give the order a full
// sort gives, whatever k, duplicates of score included.
func TestSelectBestMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type item struct{ score, id int }
	order := func(a, b item) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
	for _, n := range []int{0, 1, 2, 3, 7, 50, 1000} {
		for _, k := range []int{0, 1, 2, n / 2, n - 1, n} {
			if k < 0 || k > n {
				continue
			}
			items := make([]item, n)
			for i := range items {
				items[i] = item{rng.IntN(10), i}
			}
			want := slices.Clone(items)
			slices.SortFunc(want, order)
			selectBest(items, k, order)
			if !slices.Equal(items[:k], want[:k]) {
				t.Fatalf("n=%d k=%d: got %v, want %v", n, k, items[:k], want[:k])
			}
		}
	}
}

// TestMapConcurrent: maps requested at once (several sessions) each get
// the text a lone request gets; the reused buffers are never shared.
func TestMapConcurrent(t *testing.T) {
	root, paths := writeTree(t, syntheticProject())
	ix := NewIndex(root, "")
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	reqs := []MapRequest{
		{Focus: []string{"p03/f07.go"}, Tokens: 200},
		{Task: "Pkg07File12Step2 is slow", Tokens: 300},
		{Focus: []string{"p08/f15.go"}, Task: "make Pkg08File15Step0 return early", Tokens: 150},
		{Tokens: 500},
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = ix.Map(r)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(reqs)
				if got := ix.Map(reqs[i]); got != want[i] {
					errs <- fmt.Sprintf("request %d gave another map under concurrency:\n%s\n---\n%s", i, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Budget estimate: EstimateTokens counts one token per 4 bytes, rounded up,
// the usual figure for English and code with BPE tokenizers; the map is cut
// so that its estimate never exceeds MapRequest.Tokens.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// pageRank runs the power method with restart vector pers (uniform when
// empty); dangling files restart too. It is the reference personalRank is
// tested and benchmarked against.
func (g *graph) pageRank(pers []float64) []float64 {
	n := len(g.paths)
	total := 0.0
	for _, p := range pers {
		total += p
	}
	if total == 0 {
		for i := range pers {
			pers[i] = 1
		}
		total = float64(n)
	}
	for i := range pers {
		pers[i] /= total
	}
	rank := make([]float64, n)
	copy(rank, pers)
	next := make([]float64, n)
	for it := 0; it < pageRankIterations; it++ {
		dangling := 0.0
		for i := range next {
			next[i] = 0
		}
		for i := 0; i < n; i++ {
			if g.outW[i] == 0 {
				dangling += rank[i]
				continue
			}
			spread := damping * rank[i]
			for _, l := range g.rows[i] {
				next[l.to] += spread * float64(l.share)
			}
		}
		restart := 1 - damping + damping*dangling
		for i := range next {
			next[i] += restart * pers[i]
		}
		rank, next = next, rank
	}
	return rank
}
