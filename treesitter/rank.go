package treesitter

import (
	"cmp"
	"io"
	"maps"
	"math"
	"path"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// Ranking, after Aider's repository map: files are nodes; a file that
// references a name links to every file that defines it. A personalised
// PageRank over that graph, restarted at the task (the focus files, files
// defining identifiers the task names, and files that use what the focus
// files define), scores files; a definition scores its file's rank times
// how much the task and the workspace use its name. The best definitions
// that fit the budget are printed, grouped by file, in path order.
//
// The personalised PageRank is computed by forward push (Andersen, Chung
// and Lang 2006), which only touches the part of the graph the task's
// restart mass reaches in meaningful amounts, instead of 40 power
// iterations over every link: on GOROOT/src (7,700 files, 1.4 million
// links) that is about 0.7 million link visits instead of 57 million, and
// the maps match the power method's but for near-ties at the end of the
// budget (TestPushMatchesPowerIteration, BenchmarkRank).

// DefaultMapTokens is used when MapRequest.Tokens is 0 (contract §3
// repoMapTokens default).
const DefaultMapTokens = 1024

const (
	// damping is PageRank's usual 0.85: 15% of every step restarts at the task.
	damping = 0.85
	// pageRankIterations: with damping 0.85 the error shrinks by 0.85 per
	// step; 40 steps leave < 0.2% of it, more than enough to order files.
	// Only the reference power method (pageRank, used by the tests) runs
	// them; Map uses push.
	pageRankIterations = 40
	// pushEpsilon: a file's residual is pushed on once it reaches
	// pushEpsilon times its number of links (Andersen–Chung–Lang's
	// threshold), so no file keeps more than that unspread and the work is
	// bounded by 1/(pushEpsilon·(1-damping)) link visits whatever the
	// workspace size. With pushFloor, on GOROOT/src, the maps of ten
	// realistic tasks (BenchmarkRank) keep 98% of the lines the 40-step
	// power method picks on average, 92% for the worst task, the rest being
	// near-ties at the end of the budget (the power method itself swaps
	// some of those between 25 and 40 steps: 99.7%/96.6%); 4e-7 kept
	// 96%/88%, 1e-6 about 90%.
	pushEpsilon = 1e-7
	// pushFloor: a push does not spread amounts below this over a link (a
	// file's links are sorted by weight, so it stops at the first one). On
	// this dense graph (185 links a file on average) most links are weak;
	// stopping at 1e-7 rather than 1e-8 halves the work and moved the
	// average agreement from 98.1% to 97.8% (the worst task unchanged).
	pushFloor = 1e-7
	// maxDefiners: a name defined in more files than this (String, Close,
	// New) says nothing about which file a reference needs, and linking it
	// would make the graph quadratic.
	maxDefiners = 32
	// commonDefiners: Aider's threshold past which a name is down-weighted.
	commonDefiners = 5
	// mentionBoost: Aider's ×10 for identifiers named in the task.
	mentionBoost = 10.0
)

// link is a reference from one file to a file defining the name; share
// is the part of the referring file's rank it carries (its weight over
// the file's total). Target and share side by side: a push reads a file's
// links as one stream.
type link struct {
	to    int32
	share float32
}

// graph is the task-independent part of the ranking, rebuilt only after the
// index changed; a warm start maps it from the graph file (graphfile.go).
type graph struct {
	paths []string // sorted
	// src are the files' entries, whose tags may decode from the tag
	// cache on each use (index.go): read them with ft, once per use.
	src []*entry
	// names are the names files define, with their definers and users
	// (names.go); a name is known by its id there.
	names *nameTable
	// defNames[i][j] is the name id of ft(i).Defs[j], looked up once.
	defNames [][]int32
	// rows[i] are the links of file i, the heaviest first (ties in path
	// order); outW[i] is their total weight. A full build cuts every row
	// from one array (a push reads them as a stream); a patch (patch.go)
	// gives the patched file a row of its own.
	rows [][]link
	outW []float64
	// pushAt[i] is the residual at which personalRank pushes file i on.
	pushAt []float64
	// nameCount is the number of name ids: the table's, plus names that
	// patches met after the build (extra, ids from names.count() on).
	nameCount int
	// extra, extraNames and usersPatch are what patches added: names
	// first defined after the build, and users lists that changed
	// (patch.go).
	extra      map[string]int32
	extraNames []extraName
	usersPatch map[int32][]int32
	// fp is the fingerprint of the files the graph was built from
	// (graphfile.go), set when it was saved or loaded.
	fp [32]byte
	// printed caches the definitions of the files maps scored lately,
	// decoded from the tag cache (shared by the graph's patched copies:
	// it is keyed by entry, and a patched file has a new one).
	printed *defsCache
	// mapping is the graph file whose data the arrays view, when the
	// graph was loaded from it; every copy of the graph holds it, so it
	// is unmapped only once none is left.
	mapping *mappedFile
}

// at is the number of the file at path p, by a search of the sorted
// paths (no map per graph: a loaded graph's heap stays a few words per
// file, design §where state lives).
func (g *graph) at(p string) (int32, bool) {
	i, ok := slices.BinarySearch(g.paths, p)
	return int32(i), ok
}

// extraName is a name a patch met that no file defined at the build.
type extraName struct {
	definers []int32
	weight   float64
}

// ft returns the tags of file i (decoded afresh when they come from the
// tag cache: keep them for the length of one use).
func (g *graph) ft(i int32) *fileTags { return g.src[i].fileTags() }

// checkedDefs is ft.Defs, the definitions of file i, when the graph has a
// name id for each (always, but for a graph file that is not ours, which
// the load does not check file by file: that would read a page of the tag
// cache per file); else none.
func (g *graph) checkedDefs(i int32, ft *fileTags) []def {
	if len(ft.Defs) != len(g.defNames[i]) {
		return nil
	}
	return ft.Defs
}

// name looks a name up among those defined at build time and those
// patches added; -1 when no file defines it.
func (g *graph) name(s string) int32 {
	if id := g.names.find(s); id >= 0 {
		return id
	}
	if id, ok := g.extra[s]; ok {
		return id
	}
	return -1
}

func (g *graph) definers(id int32) []int32 {
	if base := g.names.count(); int(id) >= base {
		return g.extraNames[int(id)-base].definers
	}
	return g.names.definers(id)
}

// usersOf lists the files that reference name id, in path order.
func (g *graph) usersOf(id int32) []int32 {
	if u, ok := g.usersPatch[id]; ok {
		return u
	}
	if int(id) >= g.names.count() {
		return nil
	}
	return g.names.usersOf(id)
}

func (g *graph) weight(id int32) float64 {
	if base := g.names.count(); int(id) >= base {
		return g.extraNames[int(id)-base].weight
	}
	return g.names.weight[id]
}

// landmark is 1 + log(1+users)·idf for a name of the build, 1 for one a
// patch added (no file counted as using it yet).
func (g *graph) landmark(id int32) float64 {
	if int(id) >= g.names.count() {
		return 1
	}
	return g.names.landmark[id]
}

// nameWeight is how strongly one reference to name, defined in ndef files
// and used in nref, links two files.
func (g *graph) nameWeight(name string, ndef, nref int) float64 {
	w := 1.0 / float64(ndef)
	// Inverse document frequency: a name nearly every file uses (string,
	// len, error, the builtins) links nothing in particular.
	w *= g.idf(nref)
	if ndef > commonDefiners {
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
func (g *graph) idf(nref int) float64 {
	n := float64(len(g.paths)) + 1
	return math.Log(n/(float64(nref)+1)) / math.Log(n)
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
	g, _ := buildGraphTo(files, nil)
	return g
}

// buildGraphTo builds the graph of files. When links is set, the rows go
// there, one file's after another (the graph file's layout), instead of
// into the graph, and their lengths are returned: a graph built to be
// saved (persistGraph) then never holds its links, most of its size.
func buildGraphTo(files map[string]*entry, links io.Writer) (*graph, []uint32) {
	drop := newPageDropper(files)
	totalDefs := 0
	for _, e := range files {
		totalDefs += e.symbols()
	}
	drop.now()
	// Sized for every definition a new name (the most there can be), so
	// that no array is copied as it grows: on a large repository the
	// copies were garbage of hundreds of MB.
	nt := &nameTable{slots: make([]int32, slotCount(totalDefs)), off: make([]uint32, 1, totalDefs+1)}
	g := &graph{names: nt, printed: newDefsCache()}
	for p := range files {
		g.paths = append(g.paths, p)
	}
	slices.Sort(g.paths)
	n := len(g.paths)
	g.src = make([]*entry, n)
	g.defNames = make([][]int32, n)
	// Names get ids in the order they are met; each file counts once
	// among a name's definers and users. Counts first, then one array
	// each for definers and users, cut by prefix sums.
	defIDs := make([]int32, 0, totalDefs)
	ndefs := make([]uint32, 0, totalDefs)
	last := make([]int32, 0, totalDefs)
	totalRefs := 0
	var defNames, refNames []string
	for i, p := range g.paths {
		g.src[i] = files[p]
		drop.after(i)
		start := len(defIDs)
		defNames, refNames = g.src[i].names(defNames[:0], refNames[:0])
		totalRefs += len(refNames)
		for _, name := range defNames {
			id, added := nt.insert(name)
			if added {
				ndefs = append(ndefs, 0)
				last = append(last, -1)
			}
			if last[id] != int32(i) {
				last[id] = int32(i)
				ndefs[id]++
			}
			defIDs = append(defIDs, id)
		}
		g.defNames[i] = defIDs[start:len(defIDs):len(defIDs)]
	}
	names := nt.count()
	nt.defOff = prefixSums(ndefs)
	nt.defs = make([]int32, nt.defOff[names])
	fill := ndefs[:names] // the counts are in defOff now
	copy(fill, nt.defOff[:names])
	for i := range g.paths {
		for _, id := range g.defNames[i] {
			if at := fill[id]; at == nt.defOff[id] || nt.defs[at-1] != int32(i) {
				nt.defs[at] = int32(i)
				fill[id]++
			}
		}
	}
	if n >= releaseGraphFiles {
		// What the names pass left (last, the name text's earlier
		// copies) is freed and returned now: on the Linux kernel the
		// heap's peak is this build's, and the arrays below, larger,
		// would not all fit in those spans (design §repository map).
		debug.FreeOSMemory()
	}
	// How many files use each name, before weighting any link by it; each
	// reference is looked up once (resolved[off[i]:off[i+1]] are file i's).
	resolved := make([]int32, 0, totalRefs)
	resolvedOff := make([]int, n+1)
	nrefs := make([]uint32, names)
	for i := range g.paths {
		drop.after(i)
		defNames, refNames = g.src[i].names(defNames[:0], refNames[:0])
		for _, r := range refNames {
			if id := nt.find(r); id >= 0 {
				nrefs[id]++
				resolved = append(resolved, id)
			}
		}
		resolvedOff[i+1] = len(resolved)
	}
	drop.now()
	nt.useOff = prefixSums(nrefs)
	nt.users = make([]int32, len(resolved))
	fill = nrefs // the counts are in useOff now
	copy(fill, nt.useOff[:names])
	for i := range g.paths {
		for _, id := range resolved[resolvedOff[i]:resolvedOff[i+1]] {
			nt.users[fill[id]] = int32(i)
			fill[id]++
		}
	}
	nt.landmark = make([]float64, names)
	nt.weight = make([]float64, names)
	for id := range names {
		ndef := int(nt.defOff[id+1] - nt.defOff[id])
		nref := int(nt.useOff[id+1] - nt.useOff[id])
		nt.landmark[id] = 1 + math.Log1p(float64(nref))*g.idf(nref)
		nt.weight[id] = g.nameWeight(unsafeString(nt.str(int32(id))), ndef, nref)
	}
	g.nameCount = names
	g.outW = make([]float64, n)
	g.pushAt = make([]float64, n)
	rb := newRowBuilder(n)
	if links != nil {
		lens := make([]uint32, n)
		var row []link
		for i := range g.paths {
			row, g.outW[i] = rb.appendRow(g, row[:0], int32(i), resolved[resolvedOff[i]:resolvedOff[i+1]])
			links.Write(bytesOf(row))
			lens[i] = uint32(len(row))
			g.pushAt[i] = pushEpsilon * float64(max(1, len(row)))
		}
		return g, lens
	}
	g.rows = make([][]link, n)
	all := make([]link, 0, len(resolved))
	for i := range g.paths {
		start := len(all)
		all, g.outW[i] = rb.appendRow(g, all, int32(i), resolved[resolvedOff[i]:resolvedOff[i+1]])
		g.rows[i] = all[start:len(all):len(all)]
		g.pushAt[i] = pushEpsilon * float64(max(1, len(g.rows[i])))
	}
	return g, nil
}

// pageDropper lets go of the pages of the tag cache a pass over every
// file has read, every dropEvery files (mappedFile.drop): a graph build
// reads all of the cache, which would otherwise stay counted in the
// process's memory (design §repository map).
type pageDropper []*mappedFile

const dropEvery = 4096

func newPageDropper(files map[string]*entry) pageDropper {
	seen := map[*mappedFile]bool{}
	var d pageDropper
	for _, e := range files {
		if e.view != nil && e.view.m != nil && !seen[e.view.m] {
			seen[e.view.m] = true
			d = append(d, e.view.m)
		}
	}
	return d
}

// after is called before file i of a pass is read.
func (d pageDropper) after(i int) {
	if i%dropEvery == 0 && i > 0 {
		d.now()
	}
}

func (d pageDropper) now() {
	for _, m := range d {
		m.drop(m.data)
	}
}

// prefixSums returns the n+1 offsets that cut an array into parts of the
// given counts.
func prefixSums(counts []uint32) []uint32 {
	off := make([]uint32, len(counts)+1)
	for i, c := range counts {
		off[i+1] = off[i] + c
	}
	return off
}

// defsCache holds the definitions of up to defsCached entries, decoded
// from the tag cache: consecutive maps score mostly the same few hundred
// files, and decoding them again was a third of a map's CPU on GOROOT/src.
type defsCache struct {
	mu sync.Mutex
	m  map[*entry]*fileTags
}

const defsCached = 4096

// defs returns e's definitions (no references), from the cache when it
// has them; a nil cache decodes every time.
func (c *defsCache) defs(e *entry) *fileTags {
	if e.tags != nil || c == nil {
		return e.defs()
	}
	c.mu.Lock()
	ft := c.m[e]
	c.mu.Unlock()
	if ft != nil {
		return ft
	}
	ft = e.defs()
	c.mu.Lock()
	if len(c.m) >= defsCached {
		clear(c.m) // a new neighbourhood: start over rather than track age
	}
	c.m[e] = ft
	c.mu.Unlock()
	return ft
}

func newDefsCache() *defsCache { return &defsCache{m: map[*entry]*fileTags{}} }

// rowBuilder turns a file's resolved references into its links.
type rowBuilder struct {
	scratch []float64 // weight towards each file, zero between rows
	touched []int32
	row     []weighted
}

type weighted struct {
	to int32
	w  float64
}

func newRowBuilder(n int) *rowBuilder { return &rowBuilder{scratch: make([]float64, n)} }

// appendRow appends the links of file i, which references the names refs
// (ids in g), to links, and returns them with the row's total weight.
func (rb *rowBuilder) appendRow(g *graph, links []link, i int32, refs []int32) ([]link, float64) {
	for _, id := range refs {
		definers := g.definers(id)
		if len(definers) > maxDefiners {
			continue
		}
		w := g.weight(id)
		for _, d := range definers {
			if d == i {
				continue
			}
			if rb.scratch[d] == 0 {
				rb.touched = append(rb.touched, d)
			}
			rb.scratch[d] += w
		}
	}
	// Heaviest first (ties in path order), so a push can stop at the
	// first link too weak to matter (pushFloor).
	rb.row = rb.row[:0]
	for _, d := range rb.touched {
		rb.row = append(rb.row, weighted{d, rb.scratch[d]})
		rb.scratch[d] = 0
	}
	rb.touched = rb.touched[:0]
	slices.SortFunc(rb.row, func(a, b weighted) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.to, b.to)
	})
	total := 0.0
	for _, l := range rb.row {
		total += l.w
	}
	for _, l := range rb.row {
		links = append(links, link{l.to, float32(l.w / total)})
	}
	return links, total
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
	ix.awaitNear(req)
	// The background rebuild of a stale graph starts once this map is
	// rendered, not before: the map is what the turn waits for.
	defer ix.rebuildIfStale()
	if !ix.FromLastSession() {
		m, _ := ix.rank(req, budget)
		return m
	}
	// Made from the last session's index while the Build has not compared
	// every file with the disk: what the map reads is checked (warm.go).
	ix.refresh(ix.nearLastSession(req))
	for round := 1; ; round++ {
		m, printed := ix.rank(req, budget)
		if round == refreshRounds || !ix.refresh(printed) {
			return m
		}
	}
}

// rank ranks the index toward req and renders the map; printed are the
// files the map names.
func (ix *Index) rank(req MapRequest, budget int) (m string, printed []string) {
	g := ix.graph()
	if len(g.paths) == 0 {
		return "", nil
	}
	for _, f := range req.Focus {
		for p, w := range ix.includedBy(path.Clean(strings.ReplaceAll(f, "\\", "/")), func(p string) bool { _, ok := g.at(p); return ok }) {
			if req.related == nil {
				req.related = map[string]float64{}
			}
			req.related[p] = max(req.related[p], w)
		}
	}
	sc := mapScratch.Get().(*scratch)
	defer mapScratch.Put(sc)
	t := g.task(req, sc)
	m = g.render(t, g.personalRank(t.pers, sc), budget, sc)
	for _, i := range sc.printed {
		printed = append(printed, g.paths[i])
	}
	// A mapped graph's file is unmapped once no graph refers to it
	// (graphfile.go): g stays reachable until every view of it is done.
	runtime.KeepAlive(g)
	return m, printed
}

// scratch holds the buffers of one Map request, reused by the next
// (mapScratch): on GOROOT/src a request needs about 3 MB of them, and
// allocating that on every turn brought the collector round over the
// index's 100 MB heap every twenty turns or so, at hundreds of ms of CPU
// each time. A nil *scratch allocates afresh (the tests' way).
type scratch struct {
	pers, uses, rank  []float64
	cells             []pushCell
	nameFlags         []uint8
	queued            []bool
	queue, candidates []int32
	defs              []scoredDef
	printed           []int32 // the files render named, in path order
}

// pushCell is a file's residual in personalRank, beside the threshold it
// is pushed at: the two are read together on every link visit.
type pushCell struct{ resid, pushAt float64 }

var mapScratch = sync.Pool{New: func() any { return new(scratch) }}

// zeroed returns buf resized to n and cleared, reallocated when too small.
func zeroed[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// scoredDef is definition def of file, scored for the map.
type scoredDef struct {
	file  int32
	def   int32
	score float64
}

// taskView is what a request names, in the graph's terms.
type taskView struct {
	focus     map[int32]bool
	mentioned map[string]bool // identifiers in the task
	// nameFlags[id] says whether the task names name id (flagMentioned) and
	// whether a focus file uses it (flagFocusRef).
	nameFlags []uint8
	pers      []float64 // the restart vector (not normalised)
	// related are the files the focus files include, with their weight
	// (includes.go): their outline is nearly the focus file's own.
	related map[int32]float64
}

const (
	flagMentioned = 1 << iota
	flagFocusRef
)

// task reads req: the focus files, the identifiers and paths the task
// names, and the restart vector they make.
func (g *graph) task(req MapRequest, sc *scratch) taskView {
	if sc == nil {
		sc = new(scratch)
	}
	n := len(g.paths)
	sc.pers = zeroed(sc.pers, n)
	sc.nameFlags = zeroed(sc.nameFlags, g.nameCount)
	t := taskView{focus: map[int32]bool{}, mentioned: map[string]bool{}, nameFlags: sc.nameFlags, pers: sc.pers}
	for _, f := range req.Focus {
		if i, ok := g.at(path.Clean(strings.ReplaceAll(f, "\\", "/"))); ok {
			t.focus[i] = true
		}
	}
	for _, id := range identRE.FindAllString(req.Task, -1) {
		// "Do" in "Client.Do" counts; "to" and "a" do not.
		if len(id) >= 3 || (len(id) == 2 && strings.ToLower(id) != id) {
			t.mentioned[id] = true
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

	pers := t.pers
	for i := range t.focus {
		pers[i] += 1
	}
	for i := range mentionedFiles {
		pers[i] += 1
	}
	for p, w := range req.related {
		if i, ok := g.at(p); ok && !t.focus[i] {
			pers[i] += w
			if t.related == nil {
				t.related = map[int32]float64{}
			}
			t.related[i] = w
		}
	}
	// In sorted order, so the sums (and the map) do not depend on map
	// iteration.
	for _, name := range slices.Sorted(maps.Keys(t.mentioned)) {
		id := g.name(name)
		if id < 0 {
			continue
		}
		t.nameFlags[id] |= flagMentioned
		if definers := g.definers(id); len(definers) <= maxDefiners {
			for _, d := range definers {
				pers[d] += 0.5 / float64(len(definers))
			}
		}
	}
	// Files that use what the focus files define (PageRank only follows
	// references forward; this brings in the callers).
	focusNames := map[string]int32{}
	for i := range t.focus {
		ft := g.ft(i)
		for j, d := range g.checkedDefs(i, ft) {
			if id := g.defNames[i][j]; len(g.definers(id)) <= maxDefiners {
				focusNames[d.Name] = id
			}
		}
		for _, r := range ft.Refs {
			if id := g.name(r); id >= 0 {
				t.nameFlags[id] |= flagFocusRef
			}
		}
	}
	if len(focusNames) > 0 {
		// Summed name by name in sorted order: each file adds its matches
		// in the order of its sorted Refs, so the sums do not depend on
		// map iteration.
		sc.uses = zeroed(sc.uses, n)
		uses := sc.uses
		names := make([]string, 0, len(focusNames))
		for name := range focusNames {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			id := focusNames[name]
			w := g.weight(id)
			for _, u := range g.usersOf(id) {
				uses[u] += w
			}
		}
		for i, s := range uses {
			if s > 0 && !t.focus[int32(i)] {
				pers[i] += 0.5 * s / (s + 1)
			}
		}
	}
	return t
}

// render scores the definitions of the best-ranked files and prints those
// that fit the budget.
func (g *graph) render(t taskView, rank []float64, budget int, sc *scratch) string {
	if sc == nil {
		sc = new(scratch)
	}
	n := len(g.paths)
	// Only the best-ranked files can make the cut: a budget of B tokens
	// holds at most about B/8 definition lines, so scoring the defs of the
	// top max(256, B/2) files loses nothing and spares sorting every
	// definition of a large workspace. Ranked files first (best first),
	// then the unranked ones in path order.
	limitFiles := min(n, max(256, budget/2))
	candidates := sc.candidates[:0]
	for i := range n {
		if rank[i] > 0 {
			candidates = append(candidates, int32(i))
		}
	}
	ranked := min(len(candidates), limitFiles)
	selectBest(candidates, ranked, func(a, b int32) int {
		if c := cmp.Compare(rank[b], rank[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	candidates = candidates[:ranked]
	for i := 0; i < n && len(candidates) < limitFiles; i++ {
		if rank[i] <= 0 {
			candidates = append(candidates, int32(i))
		}
	}
	sc.candidates = candidates
	defs := sc.defs[:0]
	// Each candidate's tags, decoded once for this map.
	tags := make(map[int32]*fileTags, len(candidates))
	for _, i := range candidates {
		ft := g.printed.defs(g.src[i])
		tags[i] = ft
		focused := t.focus[i]
		for j, d := range g.checkedDefs(i, ft) {
			id := g.defNames[i][j]
			s := rank[i] * kindWeight(d.Kind)
			specific := len(g.definers(id)) <= commonDefiners
			flags := t.nameFlags[id]
			mentioned := flags&flagMentioned != 0
			switch {
			case specific:
				// A specific name used by many files is a landmark; one
				// used by nearly all (int, len) is noise.
				s *= g.landmark(id)
			case !mentioned && !focused:
				s *= 0.1 // String, Close, Error: one of many
			}
			if mentioned {
				s *= mentionBoost
			}
			if specific && flags&flagFocusRef != 0 {
				s *= 5 // what the focus file uses
			}
			if focused {
				s *= 5 // the focus file's own outline
			} else if w := t.related[i]; w > 0 {
				s *= 1 + 4*w // what it includes: its own header ×5
			}
			defs = append(defs, scoredDef{i, int32(j), s})
		}
	}
	sc.defs = defs
	better := func(a, b scoredDef) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c // paths are sorted
		}
		return cmp.Compare(a.def, b.def)
	}

	// Fill the budget greedily, best definition first; bytes are tracked
	// as the estimate's inverse.
	limit := budget * 4
	used := 0
	chosen := map[int32][]int32{}
	headerCost := func(i int32) int { return len(g.paths[i]) + 2 }
	// Focus files always get their header first, so the map says where the
	// task is even when they define nothing.
	for i := range t.focus {
		if c := headerCost(i); used+c <= limit {
			chosen[i] = []int32{}
			used += c
		}
	}
	// The definitions are taken in sorted order, but sorted a round at a
	// time (selectBest): a round is the best selectRound of those left
	// that could still fit, so a full map sorts a few hundred definitions
	// instead of tens of thousands, and picks exactly what a full sort
	// would (a definition dropped as too big would have been skipped).
	rest := defs
	for len(rest) > 0 && limit-used >= 8 {
		room := limit - used
		fit := rest[:0]
		for _, d := range rest {
			if len(tags[d.file].Defs[d.def].Sig)+3 <= room {
				fit = append(fit, d)
			}
		}
		k := min(len(fit), selectRound)
		selectBest(fit, k, better)
		for _, d := range fit[:k] {
			if limit-used < 8 {
				break
			}
			c := len(tags[d.file].Defs[d.def].Sig) + 3
			if _, ok := chosen[d.file]; !ok {
				c += headerCost(d.file)
			}
			if used+c > limit {
				continue
			}
			used += c
			chosen[d.file] = append(chosen[d.file], d.def)
		}
		rest = fit[k:]
	}

	files := make([]int32, 0, len(chosen))
	for i := range chosen {
		files = append(files, i)
	}
	slices.Sort(files)
	sc.printed = files
	var b strings.Builder
	b.Grow(used)
	for _, i := range files {
		b.WriteString(g.paths[i])
		b.WriteString(":\n")
		ds := chosen[i]
		slices.Sort(ds) // source order
		last := int32(-1)
		for _, j := range ds {
			d := tags[i].Defs[j]
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

// selectRound is how many definitions render sorts at a time: a 1,024
// token map holds about 100 of them.
const selectRound = 128

// selectBest reorders s so that s[:k] are its k best under cmp (negative:
// a before b; a strict total order), sorted; the rest is left unordered.
// Quickselect with a median-of-three pivot, then a sort of the k.
func selectBest[T any](s []T, k int, cmp func(a, b T) int) {
	if k <= 0 {
		return
	}
	if k < len(s) {
		lo, hi := 0, len(s)-1
		for lo < hi {
			mid := lo + (hi-lo)/2
			if cmp(s[mid], s[lo]) < 0 {
				s[mid], s[lo] = s[lo], s[mid]
			}
			if cmp(s[hi], s[lo]) < 0 {
				s[hi], s[lo] = s[lo], s[hi]
			}
			if cmp(s[hi], s[mid]) < 0 {
				s[hi], s[mid] = s[mid], s[hi]
			}
			pivot := s[mid]
			i, j := lo, hi
			for i <= j {
				for cmp(s[i], pivot) < 0 {
					i++
				}
				for cmp(pivot, s[j]) < 0 {
					j--
				}
				if i <= j {
					s[i], s[j] = s[j], s[i]
					i++
					j--
				}
			}
			// s[lo:j+1] ≤ pivot ≤ s[i:hi+1]; what lies between equals it.
			switch {
			case k-1 <= j:
				hi = j
			case k-1 >= i:
				lo = i
			default:
				lo = hi
			}
		}
	}
	slices.SortFunc(s[:k], cmp)
}

// personalRank is the personalised PageRank for restart vector pers
// (uniform when empty), by forward push: every file holds a rank p and a
// residual r, the restart mass not yet spread; pushing a file moves
// (1-damping) of its residual into its rank and spreads the rest over its
// links. Files are pushed first come, first served, starting from the
// restart files in path order, so the result is the same on every call.
//
// A dangling file (no links) simply keeps its share: the power method
// restarts that mass at pers, and its result is exactly this one
// normalised (the restart only scales every rank by the same factor), so
// the ranks are normalised to sum to 1 at the end.
func (g *graph) personalRank(pers []float64, sc *scratch) []float64 {
	if sc == nil {
		sc = new(scratch)
	}
	n := len(g.paths)
	total := 0.0
	for _, p := range pers {
		total += p
	}
	uniform := total == 0
	if uniform {
		total = float64(n)
	}
	sc.rank = zeroed(sc.rank, n)
	sc.cells = zeroed(sc.cells, n)
	sc.queued = zeroed(sc.queued, n)
	rank, cells, queued, queue := sc.rank, sc.cells, sc.queued, sc.queue[:0]
	for i, p := range pers {
		cells[i].pushAt = g.pushAt[i]
		if uniform {
			p = 1
		}
		if p > 0 {
			cells[i].resid = p / total
			queued[i] = true
			queue = append(queue, int32(i))
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		queued[u] = false
		r := cells[u].resid
		cells[u].resid = 0
		rank[u] += (1 - damping) * r
		spread := damping * r
		for _, l := range g.rows[u] {
			amount := spread * float64(l.share)
			if amount < pushFloor {
				break // the rest of u's links are weaker still
			}
			c := &cells[l.to]
			c.resid += amount
			if c.resid >= c.pushAt && !queued[l.to] {
				queued[l.to] = true
				queue = append(queue, l.to)
			}
		}
	}
	sc.queue = queue
	sum := 0.0
	for _, p := range rank {
		sum += p
	}
	if sum > 0 {
		for i := range rank {
			rank[i] /= sum
		}
	}
	return rank
}

// graph returns the ranking graph of the current index. The first one is
// built now; after that a map never waits for a build: a stale graph
// (patched for the files that changed, patch.go) serves while the exact one
// is rebuilt in the background (rebuildIfStale, after the map).
func (ix *Index) graph() *graph {
	// A graph is kept while the index changes a little (a patched graph
	// serves, rebuildIfStale brings the exact one); one the index has
	// outgrown by a tenth (a build in progress published many files since)
	// is rebuilt now, so the map sees the files it waited for.
	current := func(st *state) *graph {
		if g := st.ranks; g != nil && len(st.files) <= len(g.paths)+len(g.paths)/10+16 {
			return g
		}
		return nil
	}
	st := ix.lock()
	if g := current(st); g != nil {
		ix.mu.Unlock()
		return g
	}
	ix.mu.Unlock()
	// One build at a time: a map that comes while PrepareMap builds waits
	// for that graph instead of building a second one.
	ix.graphMu.Lock()
	defer ix.graphMu.Unlock()
	st = ix.lock()
	if g := current(st); g != nil {
		ix.mu.Unlock()
		return g
	}
	files := maps.Clone(st.files)
	gen := st.gen
	ix.mu.Unlock()

	g := buildGraph(files)
	st = ix.lock()
	if st.ranks == nil || len(st.ranks.paths) < len(g.paths) {
		st.ranks = g
		st.stale = st.gen != gen
	}
	g = st.ranks
	ix.mu.Unlock()
	return g
}

// PrepareMap builds the ranking graph now, if the index has none or has
// outgrown it, so that the first map does not pay for it: the server calls
// it in the background once its build ended (a warm start of a large
// repository spends seconds here).
func (ix *Index) PrepareMap() { ix.graph() }

// rebuildIfStale starts the background rebuild of a stale graph, unless
// one is running.
func (ix *Index) rebuildIfStale() {
	st := ix.lock()
	defer ix.mu.Unlock()
	if st.ranks != nil && st.stale && !st.rebuilding {
		st.rebuilding = true
		go ix.rebuild(maps.Clone(st.files))
	}
}

// rebuild builds the exact graph of files (a copy of the index taken when
// it started) and makes it current, patched with whatever changed since.
func (ix *Index) rebuild(files map[string]*entry) {
	g := buildGraph(files)
	st := ix.lock()
	defer ix.mu.Unlock()
	st.rebuilding = false
	stale := false
	for p, e := range st.files {
		if f := files[p]; f == e || f != nil && f.hash == e.hash && f.language() == e.language() {
			continue // the same content (adoptCache swaps entries for the cache's)
		}
		stale = true // a patch is again an approximation; a new file needs a build
		if i, ok := g.at(p); ok {
			g = g.patched(i, e)
		}
	}
	for p := range files {
		if _, ok := st.files[p]; !ok {
			stale = true
			i, _ := g.at(p)
			g = g.patched(i, &entry{tags: &fileTags{}})
		}
	}
	st.ranks, st.stale = g, stale
	if ix.rebuilt != nil {
		ix.rebuilt()
	}
}
