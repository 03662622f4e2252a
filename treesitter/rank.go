package treesitter

import (
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Ranking, after Aider's repository map: files are nodes; a file that
// references a name links to every file that defines it. A personalised
// PageRank over that graph, restarted at the task (the focus files, files
// defining identifiers the task names, and files that use what the focus
// files define), scores files; a definition scores its file's rank times
// how much the task and the workspace use its name. The best definitions
// that fit the budget are printed, grouped by file, in path order.

// Budget estimate: EstimateTokens counts one token per 4 bytes, rounded up,
// the usual figure for English and code with BPE tokenizers; the map is cut
// so that its estimate never exceeds MapRequest.Tokens.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// DefaultMapTokens is used when MapRequest.Tokens is 0 (contract §3
// repoMapTokens default).
const DefaultMapTokens = 1024

const (
	// damping is PageRank's usual 0.85: 15% of every step restarts at the task.
	damping = 0.85
	// pageRankIterations: with damping 0.85 the error shrinks by 0.85 per
	// step; 40 steps leave < 0.2% of it, more than enough to order files.
	pageRankIterations = 40
	// maxDefiners: a name defined in more files than this (String, Close,
	// New) says nothing about which file a reference needs, and linking it
	// would make the graph quadratic.
	maxDefiners = 32
	// commonDefiners: Aider's threshold past which a name is down-weighted.
	commonDefiners = 5
	// mentionBoost: Aider's ×10 for identifiers named in the task.
	mentionBoost = 10.0
)

type nameInfo struct {
	definers []int32
	refCount int32 // files that reference the name
}

// graph is the task-independent part of the ranking, rebuilt only after the
// index changed.
type graph struct {
	paths []string // sorted
	tags  []*fileTags
	index map[string]int32
	names map[string]*nameInfo
	// edges in CSR form: out-edges of file i are to[off[i]:off[i+1]].
	off  []int32
	to   []int32
	w    []float32
	outW []float64
}

// nameWeight is how strongly one reference to name links two files.
func (g *graph) nameWeight(name string, ni *nameInfo) float64 {
	w := 1.0 / float64(len(ni.definers))
	// Inverse document frequency: a name nearly every file uses (string,
	// len, error, the builtins) links nothing in particular.
	w *= g.idf(ni)
	if len(ni.definers) > commonDefiners {
		w *= 0.1
	}
	if strings.HasPrefix(name, "_") {
		w *= 0.1 // private by convention
	}
	if len(name) >= 8 && (strings.Contains(name, "_") || hasInnerUpper(name)) {
		w *= 10 // a long specific name is a strong link (Aider)
	}
	if len(name) <= 2 {
		w *= 0.1 // i, x, ok
	}
	return w
}

// idf is 1 for a name no file uses and 0 for one every file uses.
func (g *graph) idf(ni *nameInfo) float64 {
	n := float64(len(g.paths)) + 1
	return math.Log(n/(float64(ni.refCount)+1)) / math.Log(n)
}

func hasInnerUpper(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func buildGraph(files map[string]*entry) *graph {
	totalDefs := 0
	for _, e := range files {
		totalDefs += len(e.tags.Defs)
	}
	g := &graph{index: make(map[string]int32, len(files)), names: make(map[string]*nameInfo, totalDefs)}
	for p := range files {
		g.paths = append(g.paths, p)
	}
	sort.Strings(g.paths)
	g.tags = make([]*fileTags, len(g.paths))
	for i, p := range g.paths {
		g.index[p] = int32(i)
		g.tags[i] = files[p].tags
		for _, d := range g.tags[i].Defs {
			ni := g.names[d.Name]
			if ni == nil {
				ni = &nameInfo{}
				g.names[d.Name] = ni
			}
			if n := len(ni.definers); n == 0 || ni.definers[n-1] != int32(i) {
				ni.definers = append(ni.definers, int32(i))
			}
		}
	}
	// How many files use each name, before weighting any link by it; each
	// reference is looked up once (resolved[off[i]:off[i+1]] are file i's).
	var resolved []*nameInfo
	resolvedNames := make([]string, 0, totalDefs)
	resolvedOff := make([]int, len(g.paths)+1)
	for i := range g.paths {
		for _, r := range g.tags[i].Refs {
			if ni := g.names[r]; ni != nil {
				ni.refCount++
				resolved = append(resolved, ni)
				resolvedNames = append(resolvedNames, r)
			}
		}
		resolvedOff[i+1] = len(resolved)
	}
	n := len(g.paths)
	g.off = make([]int32, n+1)
	g.outW = make([]float64, n)
	scratch := make([]float64, n)
	var touched []int32
	for i := range g.paths {
		for k := resolvedOff[i]; k < resolvedOff[i+1]; k++ {
			ni, r := resolved[k], resolvedNames[k]
			if len(ni.definers) > maxDefiners {
				continue
			}
			w := g.nameWeight(r, ni)
			for _, d := range ni.definers {
				if d == int32(i) {
					continue
				}
				if scratch[d] == 0 {
					touched = append(touched, d)
				}
				scratch[d] += w
			}
		}
		slices.Sort(touched)
		for _, d := range touched {
			g.to = append(g.to, d)
			g.w = append(g.w, float32(scratch[d]))
			g.outW[i] += scratch[d]
			scratch[d] = 0
		}
		touched = touched[:0]
		g.off[i+1] = int32(len(g.to))
	}
	return g
}

var identRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
var pathRE = regexp.MustCompile(`[A-Za-z0-9_./-]+\.[A-Za-z0-9+]+`)

// Map renders the repository map for req: the indexed files with the
// signatures of their definitions, ranked toward the task and cut to
// req.Tokens (see EstimateTokens), printed in path order so the same
// selection always gives the same text.
func (ix *Index) Map(req MapRequest) string {
	budget := req.Tokens
	if budget == 0 {
		budget = DefaultMapTokens
	}
	if budget < 0 {
		return ""
	}
	g := ix.graph()
	n := len(g.paths)
	if n == 0 {
		return ""
	}

	// What the task names.
	focus := map[int32]bool{}
	for _, f := range req.Focus {
		if i, ok := g.index[path.Clean(strings.ReplaceAll(f, "\\", "/"))]; ok {
			focus[i] = true
		}
	}
	mentioned := map[string]bool{}
	for _, id := range identRE.FindAllString(req.Task, -1) {
		// "Do" in "Client.Do" counts; "to" and "a" do not.
		if len(id) >= 3 || (len(id) == 2 && strings.ToLower(id) != id) {
			mentioned[id] = true
		}
	}
	mentionedFiles := map[int32]bool{}
	for _, p := range pathRE.FindAllString(req.Task, -1) {
		p = strings.TrimPrefix(path.Clean(p), "./")
		for i, q := range g.paths {
			if q == p || strings.HasSuffix(q, "/"+p) {
				mentionedFiles[int32(i)] = true
			}
		}
	}

	// Restart vector.
	pers := make([]float64, n)
	for i := range focus {
		pers[i] += 1
	}
	for i := range mentionedFiles {
		pers[i] += 1
	}
	for name := range mentioned {
		if ni := g.names[name]; ni != nil && len(ni.definers) <= maxDefiners {
			for _, d := range ni.definers {
				pers[d] += 0.5 / float64(len(ni.definers))
			}
		}
	}
	// Files that use what the focus files define (PageRank only follows
	// references forward; this brings in the callers).
	focusNames := map[string]float64{}
	for i := range focus {
		for _, d := range g.tags[i].Defs {
			if ni := g.names[d.Name]; ni != nil && len(ni.definers) <= maxDefiners {
				focusNames[d.Name] = g.nameWeight(d.Name, ni)
			}
		}
	}
	if len(focusNames) > 0 {
		for i, ft := range g.tags {
			if focus[int32(i)] {
				continue
			}
			s := 0.0
			for _, r := range ft.Refs {
				s += focusNames[r]
			}
			if s > 0 {
				pers[i] += 0.5 * s / (s + 1)
			}
		}
	}
	rank := g.pageRank(pers)

	// Score definitions.
	type scored struct {
		file  int32
		def   int32
		score float64
	}
	focusRefs := map[string]bool{}
	for i := range focus {
		for _, r := range g.tags[i].Refs {
			focusRefs[r] = true
		}
	}
	// Only the best-ranked files can make the cut: a budget of B tokens
	// holds at most about B/8 definition lines, so scoring the defs of the
	// top max(256, B/2) files loses nothing and spares sorting every
	// definition of a large workspace.
	candidates := make([]int32, n)
	for i := range candidates {
		candidates[i] = int32(i)
	}
	if limitFiles := max(256, budget/2); n > limitFiles {
		sort.Slice(candidates, func(a, b int) bool {
			if rank[candidates[a]] != rank[candidates[b]] {
				return rank[candidates[a]] > rank[candidates[b]]
			}
			return candidates[a] < candidates[b]
		})
		candidates = candidates[:limitFiles]
	}
	var defs []scored
	for _, i := range candidates {
		ft := g.tags[i]
		for j, d := range ft.Defs {
			ni := g.names[d.Name]
			s := rank[i] * kindWeight(d.Kind)
			specific := len(ni.definers) <= commonDefiners
			switch {
			case specific:
				// A specific name used by many files is a landmark; one
				// used by nearly all (int, len) is noise.
				s *= 1 + math.Log1p(float64(ni.refCount))*g.idf(ni)
			case !mentioned[d.Name] && !focus[i]:
				s *= 0.1 // String, Close, Error: one of many
			}
			if mentioned[d.Name] {
				s *= mentionBoost
			}
			if focusRefs[d.Name] && specific {
				s *= 5 // what the focus file uses
			}
			if focus[i] {
				s *= 5 // the focus file's own outline
			}
			defs = append(defs, scored{i, int32(j), s})
		}
	}
	sort.Slice(defs, func(a, b int) bool {
		if defs[a].score != defs[b].score {
			return defs[a].score > defs[b].score
		}
		if defs[a].file != defs[b].file {
			return defs[a].file < defs[b].file // paths are sorted
		}
		return defs[a].def < defs[b].def
	})

	// Fill the budget greedily; bytes are tracked as the estimate's inverse.
	limit := budget * 4
	used := 0
	chosen := map[int32][]int32{}
	headerCost := func(i int32) int { return len(g.paths[i]) + 2 }
	// Focus files always get their header first, so the map says where the
	// task is even when they define nothing.
	for i := range focus {
		if c := headerCost(i); used+c <= limit {
			chosen[i] = []int32{}
			used += c
		}
	}
	for _, d := range defs {
		if limit-used < 8 {
			break
		}
		c := len(g.tags[d.file].Defs[d.def].Sig) + 3
		if _, ok := chosen[d.file]; !ok {
			c += headerCost(d.file)
		}
		if used+c > limit {
			continue
		}
		used += c
		chosen[d.file] = append(chosen[d.file], d.def)
	}

	files := make([]int32, 0, len(chosen))
	for i := range chosen {
		files = append(files, i)
	}
	sort.Slice(files, func(a, b int) bool { return files[a] < files[b] })
	var b strings.Builder
	b.Grow(used)
	for _, i := range files {
		b.WriteString(g.paths[i])
		b.WriteString(":\n")
		ds := chosen[i]
		sort.Slice(ds, func(a, c int) bool { return ds[a] < ds[c] }) // source order
		last := int32(-1)
		for _, j := range ds {
			d := g.tags[i].Defs[j]
			if d.Line == last {
				continue // "type I interface{ M() }" defines I and M on one line
			}
			last = d.Line
			b.WriteString("  ")
			b.WriteString(d.Sig)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// kindWeight prefers the shapes of a codebase (types, interfaces) and its
// entry points (functions) over constants and variables.
func kindWeight(kind string) float64 {
	switch kind {
	case "class", "interface", "type", "module":
		return 1.5
	case "function", "method", "macro":
		return 1
	default:
		return 0.5
	}
}

// pageRank runs the power method with restart vector pers (uniform when
// empty); dangling files restart too.
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
			share := damping * rank[i] / g.outW[i]
			for e := g.off[i]; e < g.off[i+1]; e++ {
				next[g.to[e]] += share * float64(g.w[e])
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

// graph returns the ranking graph of the current index, building it when
// the index changed since.
func (ix *Index) graph() *graph {
	st := ix.lock()
	if g := st.ranks; g != nil {
		ix.mu.Unlock()
		return g
	}
	files := make(map[string]*entry, len(st.files))
	for p, e := range st.files {
		files[p] = e
	}
	gen := st.gen
	ix.mu.Unlock()

	g := buildGraph(files)
	st = ix.lock()
	if st.gen == gen {
		st.ranks = g
	}
	ix.mu.Unlock()
	return g
}
