package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// maxSignature bounds a signature in bytes: one line of a map must stay one
// short line even for a one-line function body or a minified file.
const maxSignature = 120

// def is a definition as the index keeps it (the path is the file's).
type def struct {
	Name string
	Kind string
	Sig  string
	Line int32
}

// fileTags is what the index keeps per file content: tags, not trees.
type fileTags struct {
	Lang     string
	Defs     []def    // in source order
	Refs     []string // each referenced name once, sorted
	refLines []int32  // first line of each ref; only for Tags, not cached
}

// tagger owns one parser and one query cursor; a worker uses one tagger.
type tagger struct {
	parser *sitter.Parser
	cursor *sitter.QueryCursor
	lang   string
	// names, when set (by Build's workers), shares one string per name
	// across the files a worker tags: the same few thousand names recur in
	// every file, and a cold index of GOROOT/src holds 1.7 million references.
	names map[string]string
	// skipBodies, when set (by Build's workers), leaves the insides of
	// C and C++ function bodies out of the parse (blank.go).
	skipBodies bool
}

// intern returns name as a string, shared with earlier calls when t.names
// is set.
func (t *tagger) intern(name []byte) string {
	if t.names == nil {
		return string(name)
	}
	if s, ok := t.names[string(name)]; ok {
		return s
	}
	if len(t.names) >= maxInterned {
		// Most names are rare (the Linux kernel has 2.4 million); a table
		// of all of them costs a cache miss per lookup. Starting over
		// keeps the frequent ones, which come back at once.
		clear(t.names)
	}
	s := string(name)
	t.names[s] = s
	return s
}

// maxInterned bounds a tagger's table of shared names.
const maxInterned = 1 << 16

func newTagger() *tagger {
	return &tagger{parser: sitter.NewParser(), cursor: sitter.NewQueryCursor()}
}

var taggers = sync.Pool{New: func() any { return newTagger() }}

// parse parses src as lang with this tagger's parser, reusing the
// unchanged parts of old (already edited to match src) when it is not nil;
// the caller closes the tree.
func (t *tagger) parse(g *grammar, src []byte, old *sitter.Tree) (*sitter.Tree, error) {
	if t.lang != g.name {
		t.parser.SetLanguage(g.lang)
		t.lang = g.name
	}
	tree, err := t.parser.ParseCtx(context.Background(), old, src)
	if err != nil {
		return nil, err
	}
	if tree == nil {
		return nil, errors.New("treesitter: parse failed")
	}
	return tree, nil
}

// tag parses src and extracts its tags; the tree is freed before return.
func (t *tagger) tag(lang string, src []byte) (fileTags, error) {
	g, err := grammarFor(lang)
	if err != nil {
		return fileTags{}, err
	}
	var tree *sitter.Tree
	if skip := t.skippable(g, src); skip != nil {
		t.parser.SetIncludedRanges(includedRanges(src, skip))
		tree, err = t.parse(g, src, nil)
		t.parser.SetIncludedRanges(wholeFile)
	} else {
		tree, err = t.parse(g, src, nil)
	}
	if err != nil {
		return fileTags{}, err
	}
	defer tree.Close()
	return t.tagTree(g, tree, src), nil
}

// skippable is what this tagger need not parse of src (blank.go).
func (t *tagger) skippable(g *grammar, src []byte) [][2]int {
	if !t.skipBodies || !g.prototypes {
		return nil
	}
	return skippable(src, g.name == "cpp")
}

// tagTree extracts the tags of src from its syntax tree.
func (t *tagger) tagTree(g *grammar, tree *sitter.Tree, src []byte) fileTags {
	var (
		defs     []def
		defStart = map[uint32]int{} // name start byte → index in defs
		protos   []bool             // with g.prototypes: defs[i] is a declaration without a body
	)
	lines := newLineIndex(src)
	setMaxStartDepth(t.cursor, g.maxDepth)
	t.cursor.Exec(g.query, tree.RootNode())
	for {
		m, ok := t.cursor.NextMatch()
		if !ok {
			break
		}
		kind := ""
		var name, whole *sitter.Node
		for _, c := range m.Captures {
			if k := g.captureKind[c.Index]; k == "" {
				name = c.Node
			} else {
				kind, whole = k, c.Node
			}
		}
		if kind == "" || name == nil {
			continue
		}
		start, end := name.StartByte(), name.EndByte()
		if end <= start || int(end) > len(src) {
			continue
		}
		if i, seen := defStart[start]; seen {
			// The same name matched a general and a specific pattern
			// (a Python function that is a method, a JavaScript const
			// that holds a function): keep the specific.
			if more := defs[i].Kind; (more == "function" && kind == "method") ||
				((more == "constant" || more == "variable") && kind == "function") {
				defs[i].Kind = kind
			}
			continue
		}
		line := lines.line(start)
		defStart[start] = len(defs)
		if g.prototypes {
			protos = append(protos, whole.Type() != "function_definition")
		}
		defs = append(defs, def{
			Name: t.intern(src[start:end]),
			Kind: kind,
			Sig:  signature(lines.text(src, line)),
			Line: int32(line),
		})
	}
	if g.prototypes {
		defs = onePerName(defs, protos, g.name == "cpp")
	}
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].Line < defs[j].Line })
	for i := range defs {
		if k := defs[i].Kind; k == "constant" || k == "variable" || k == "field" || k == "property" {
			defs[i].Sig = withoutValue(defs[i].Sig)
		}
	}

	ft := fileTags{Lang: g.name, Defs: defs}
	seen := map[string]struct{}{}
	scanIdents(src, g.syntax, func(start, end, line int) {
		if _, isDef := defStart[uint32(start)]; isDef {
			return // a definition's own name
		}
		name := src[start:end]
		if _, ok := seen[string(name)]; ok {
			return
		}
		s := t.intern(name)
		seen[s] = struct{}{}
		ft.Refs = append(ft.Refs, s)
		ft.refLines = append(ft.refLines, int32(line))
	})
	// Sorted refs make the cache deterministic and lookups cheap.
	idx := make([]int, len(ft.Refs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ft.Refs[idx[a]] < ft.Refs[idx[b]] })
	sortedRefs := make([]string, len(idx))
	sortedLines := make([]int32, len(idx))
	for i, j := range idx {
		sortedRefs[i], sortedLines[i] = ft.Refs[j], ft.refLines[j]
	}
	ft.Refs, ft.refLines = sortedRefs, sortedLines
	return ft
}

// onePerName keeps one definition of each function and name in a C or C++
// file: a prototype whose function the file also defines (a static
// function declared at the top of its .c file) and the alternatives of one
// definition under #ifdef branches would otherwise be listed twice in the
// map. A prototype gives way to a definition with a body; else the first
// in source order stays. C++ overloads differ in their signatures and are
// all kept. A header's prototypes, defined elsewhere, are the header's
// interface and stay.
func onePerName(defs []def, protos []bool, overloads bool) []def {
	type key struct{ name, kind, sig string }
	keyOf := func(d def) key {
		if overloads { // C++: the parameters tell overloads apart
			return key{d.Name, d.Kind, strings.TrimRight(d.Sig, " ;{")}
		}
		return key{d.Name, d.Kind, ""}
	}
	best := make(map[key]int, len(defs))
	for i, d := range defs {
		k := keyOf(d)
		j, ok := best[k]
		if !ok || (protos[j] && !protos[i]) || (protos[j] == protos[i] && d.Line < defs[j].Line) {
			best[k] = i
		}
	}
	if len(best) == len(defs) {
		return defs
	}
	out := make([]def, 0, len(best))
	for i, d := range defs {
		if best[keyOf(d)] == i {
			out = append(out, d)
		}
	}
	return out
}

// lineIndex maps byte offsets to 1-based lines without asking the tree
// (each question to the tree is a cgo call).
type lineIndex struct{ starts []uint32 }

func newLineIndex(src []byte) lineIndex {
	starts := make([]uint32, 1, 1+len(src)/32)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, uint32(off))
	}
	return lineIndex{starts}
}

// line is the 1-based line of a byte offset.
func (l lineIndex) line(off uint32) int {
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
}

// text is the content of a 1-based line without its newline.
func (l lineIndex) text(src []byte, line int) []byte {
	start := int(l.starts[line-1])
	end := len(src)
	if line < len(l.starts) {
		end = int(l.starts[line]) - 1
	}
	if start > end {
		return nil
	}
	return src[start:end]
}

// withoutValue cuts a constant's or variable's signature before its value
// (contract §8): `const apiToken = "…"` is `const apiToken` in the map, so a
// literal (a token, a DSN) in the source never reaches the architect's
// prompt through the repository map. The cut is at the first "=" outside
// brackets that is not part of ==, =>, <=, >=, != or :=.
func withoutValue(sig string) string {
	depth := 0
	for i := 0; i < len(sig); i++ {
		switch c := sig[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '=':
			if depth != 0 {
				continue
			}
			if i+1 < len(sig) && (sig[i+1] == '=' || sig[i+1] == '>') {
				i++
				continue
			}
			if i > 0 && strings.ContainsRune("=<>!:", rune(sig[i-1])) {
				continue
			}
			return strings.TrimSpace(sig[:i])
		}
	}
	return sig
}

// signature is a definition's line, trimmed, without an opening brace or a
// one-line body,
// bounded to maxSignature bytes, valid UTF-8 on one line.
func signature(line []byte) string {
	s := strings.TrimSpace(string(line))
	s = strings.TrimSpace(strings.TrimSuffix(s, "{"))
	// A one-line body ("func (e *E) Done() bool { return e.done }") is not
	// part of the signature.
	if strings.HasSuffix(s, "}") {
		if i := strings.Index(s, " { "); i > 0 {
			s = s[:i]
		}
	}
	if len(s) > maxSignature {
		cut := maxSignature
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Tags parses src as the language of path (extension, else shebang) and
// returns its definitions in source order, then its references: each
// referenced name once, at its first line. Unsupported languages give an
// error.
func Tags(path string, src []byte) ([]Tag, error) {
	lang := Language(path, head(src))
	if lang == "" {
		return nil, fmt.Errorf("treesitter: %s: unsupported language", path)
	}
	t := taggers.Get().(*tagger)
	defer taggers.Put(t)
	ft, err := t.tag(lang, src)
	if err != nil {
		return nil, fmt.Errorf("treesitter: %s: %w", path, err)
	}
	tags := make([]Tag, 0, len(ft.Defs)+len(ft.Refs))
	for _, d := range ft.Defs {
		tags = append(tags, Tag{Path: path, Name: d.Name, Kind: d.Kind, Line: int(d.Line), Signature: d.Sig, Def: true})
	}
	for i, r := range ft.Refs {
		tags = append(tags, Tag{Path: path, Name: r, Kind: "reference", Line: int(ft.refLines[i])})
	}
	return tags, nil
}

// head is the part of a file a shebang can be in.
func head(src []byte) []byte {
	if len(src) > 256 {
		return src[:256]
	}
	return src
}
