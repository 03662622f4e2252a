package treesitter

import (
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// The verifier parses every file an answer changes (editapply, the syntax
// row). A full parse of a 10,000-line file costs about 50 ms; parsing the
// file after the change incrementally, from the tree of the file before
// it, costs a fraction of that. The tree of the text before is parsed
// once and kept (a few of them, bounded like the index's recent trees):
// the same text comes back with every reading of an answer, every retry
// and every blame check, and across answers until the user accepts one.

// Region is one change of a file: bytes [Start, End) of the text before
// become Len bytes.
type Region struct {
	Start, End, Len int
}

// maxIncrementalRegions: tree-sitter's incremental parse costs more with
// every edit it is told of; past a few hundred scattered edits (in a
// 10,000-line file, 100 edits reparse in about a fifth of a full parse,
// 1,000 in as much as a full one) a full parse is as cheap.
const maxIncrementalRegions = 256

const (
	maxBeforeTrees     = 4
	maxBeforeTreeBytes = 4 << 20 // source bytes behind the kept trees
)

type beforeTree struct {
	lang  string
	src   string
	lines []int // offsets of line starts, for edit points
	tree  *sitter.Tree
}

var beforeTrees struct {
	sync.Mutex
	list  []*beforeTree // least recent first
	bytes int
}

// treeOf returns a copy of the kept tree of src (parsing and keeping it on
// a miss) with its line starts; the caller closes the copy.
func treeOf(t *tagger, g *grammar, src string) (*sitter.Tree, []int, bool) {
	beforeTrees.Lock()
	for i, b := range beforeTrees.list {
		if b.lang == g.name && b.src == src {
			beforeTrees.list = append(append(beforeTrees.list[:i:i], beforeTrees.list[i+1:]...), b)
			c := b.tree.Copy()
			beforeTrees.Unlock()
			return c, b.lines, true
		}
	}
	beforeTrees.Unlock()
	tree, err := t.parse(g, []byte(src), nil)
	if err != nil {
		return nil, nil, false
	}
	lines := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	c := tree.Copy()
	if len(src) <= maxBeforeTreeBytes {
		beforeTrees.Lock()
		beforeTrees.list = append(beforeTrees.list, &beforeTree{lang: g.name, src: src, lines: lines, tree: tree})
		beforeTrees.bytes += len(src)
		for len(beforeTrees.list) > maxBeforeTrees || beforeTrees.bytes > maxBeforeTreeBytes {
			old := beforeTrees.list[0]
			beforeTrees.list = beforeTrees.list[1:]
			beforeTrees.bytes -= len(old.src)
			old.tree.Close()
		}
		beforeTrees.Unlock()
	} else {
		tree.Close()
	}
	return c, lines, true
}

// cleanAfter reports whether after, which is before with regions changed
// (in order, not overlapping), parses without an ERROR or MISSING node,
// parsing it incrementally from before's kept tree. false means "not
// shown clean": the caller judges after with a full parse, so a refusal
// and its message are exactly those of a full parse.
func cleanAfter(t *tagger, g *grammar, before, after string, regions []Region) bool {
	if len(regions) == 0 || len(regions) > maxIncrementalRegions || !sort.SliceIsSorted(regions, func(a, b int) bool { return regions[a].Start < regions[b].Start }) {
		return false
	}
	size := len(before)
	for k, r := range regions {
		if r.Start < 0 || r.End < r.Start || r.End > len(before) || r.Len < 0 || k > 0 && r.Start < regions[k-1].End {
			return false
		}
		size += r.Len - (r.End - r.Start)
	}
	if size != len(after) {
		return false
	}
	replaced := 0
	for _, r := range regions {
		replaced += r.End - r.Start
	}
	if 2*replaced > len(before) {
		return false // mostly rewritten: nothing to reuse, parse it in full
	}
	old, lines, ok := treeOf(t, g, before)
	if !ok {
		return false
	}
	defer old.Close()
	point := func(off int) sitter.Point {
		row := sort.Search(len(lines), func(i int) bool { return lines[i] > off }) - 1
		return sitter.Point{Row: uint32(row), Column: uint32(off - lines[row])}
	}
	// Last region first: each edit's offsets are then still those of
	// before. (The binding passes the old end point as the new one; only
	// columns up to the next line break are off, which no grammar but
	// Python's indentation reads, and Python is parsed in full.)
	at := make([]int, len(regions)) // where each region's text starts in after
	delta := 0
	for k, r := range regions {
		at[k] = r.Start + delta
		delta += r.Len - (r.End - r.Start)
	}
	for k := len(regions) - 1; k >= 0; k-- {
		r := regions[k]
		text := after[at[k] : at[k]+r.Len]
		np := point(r.Start)
		if nl := strings.Count(text, "\n"); nl > 0 {
			np = sitter.Point{Row: np.Row + uint32(nl), Column: uint32(len(text) - 1 - strings.LastIndexByte(text, '\n'))}
		} else {
			np.Column += uint32(r.Len)
		}
		old.Edit(sitter.EditInput{StartIndex: uint32(r.Start), OldEndIndex: uint32(r.End), NewEndIndex: uint32(r.Start + r.Len),
			StartPoint: point(r.Start), OldEndPoint: point(r.End), NewEndPoint: np})
	}
	tree, err := t.parse(g, []byte(after), old)
	if err != nil {
		return false
	}
	defer tree.Close()
	return !tree.RootNode().HasError()
}

// Parsers for the syntax check, kept out of the sync.Pool (which a
// garbage collection empties: a new parser and its language cost about as
// much as an incremental parse).
var syntaxTaggers = make(chan *tagger, 2)

func getSyntaxTagger() *tagger {
	select {
	case t := <-syntaxTaggers:
		return t
	default:
		return taggers.Get().(*tagger)
	}
}

func putSyntaxTagger(t *tagger) {
	select {
	case syntaxTaggers <- t:
	default:
		taggers.Put(t)
	}
}

// SyntaxCheckRegions is SyntaxCheck told where after differs from before
// (regions in before's offsets, in order): when after parses clean from
// before's tree, incrementally, that settles it; otherwise SyntaxCheck
// judges it with full parses, so every refusal and its message are the
// same.
func SyntaxCheckRegions(path, before, after string, regions []Region) error {
	lang := Language(path, head([]byte(after)))
	if lang == "" || before == after {
		return nil
	}
	if lang != "python" {
		if g, err := grammarFor(lang); err == nil {
			t := getSyntaxTagger()
			clean := cleanAfter(t, g, before, after, regions)
			putSyntaxTagger(t)
			if clean {
				return nil
			}
		}
	}
	return SyntaxCheck(path, before, after)
}
