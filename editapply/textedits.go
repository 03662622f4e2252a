package editapply

import (
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// span is a byte-range replacement in a document.
type span struct {
	start, end int
	text       string
}

// refineLimit: a replaced run of at most this many lines on each side is
// narrowed to the characters that differ. Bigger runs stay whole lines,
// which reads better in a review than scattered character edits.
const refineLimit = 3

// minimalSpans diffs a hunk's old and new text and returns the smallest
// replacements, as absolute byte ranges of the document.
func minimalSpans(h Hunk) []span {
	a, b := splitKeep(h.OldText), splitKeep(h.NewText)
	var out []span
	offA := make([]int, len(a)+1)
	for i, l := range a {
		offA[i+1] = offA[i] + len(l)
	}
	offB := make([]int, len(b)+1)
	for i, l := range b {
		offB[i+1] = offB[i] + len(l)
	}
	for _, o := range diffLines(a, b) {
		if o.kind == '=' {
			continue
		}
		s, e := offA[o.i1], offA[o.i2]
		oldT, newT := h.OldText[s:e], h.NewText[offB[o.j1]:offB[o.j2]]
		if o.i2-o.i1 <= refineLimit && o.j2-o.j1 <= refineLimit {
			p, q := commonAffixes(oldT, newT)
			out = append(out, span{h.Start + s + p, h.Start + e - q, newT[p : len(newT)-q]})
			continue
		}
		out = append(out, span{h.Start + s, h.Start + e, newT})
	}
	return out
}

// commonAffixes returns the lengths of the common prefix and suffix of a and
// b, on rune boundaries, never overlapping, and never splitting a CRLF.
func commonAffixes(a, b string) (int, int) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && (p < len(a) && !utf8.RuneStart(a[p]) || p < len(b) && !utf8.RuneStart(b[p])) {
		p--
	}
	for p > 0 && a[p-1] == '\r' {
		p-- // keep a CRLF whole
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	for q > 0 && (!utf8.RuneStart(a[len(a)-q]) || !utf8.RuneStart(b[len(b)-q])) {
		q--
	}
	for q > 0 && a[len(a)-q] == '\n' && len(a)-q-1 >= p && a[len(a)-q-1] == '\r' {
		q--
	}
	return p, q
}

func textEditsIndexed(h Hunk, content string, enc Encoding, idx *lineIndex) []protocol.TextEdit {
	if h.Kind != KindEdit && h.Kind != KindWrite {
		return nil
	}
	if h.Start < 0 || h.End > len(content) || h.Start > h.End || content[h.Start:h.End] != h.OldText {
		return nil
	}
	spans := minimalSpans(h)
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	out := make([]protocol.TextEdit, 0, len(spans))
	for _, s := range spans {
		out = append(out, protocol.TextEdit{
			Range:   protocol.Range{Start: idx.pos(s.start, enc), End: idx.pos(s.end, enc)},
			NewText: s.text,
		})
	}
	return out
}

// lineIndex converts offsets to positions without rescanning the document
// for every edit.
type lineIndex struct {
	text   string
	starts []int
}

func newLineIndex(text string) *lineIndex {
	idx := &lineIndex{text: text, starts: []int{0}}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			idx.starts = append(idx.starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			idx.starts = append(idx.starts, i+1)
		}
	}
	return idx
}

func (idx *lineIndex) pos(off int, enc Encoding) protocol.Position {
	if off > len(idx.text) {
		off = len(idx.text)
	}
	line := sort.Search(len(idx.starts), func(i int) bool { return idx.starts[i] > off }) - 1
	start := idx.starts[line]
	if off > start && idx.text[off-1] == '\r' && off < len(idx.text) && idx.text[off] == '\n' {
		off-- // between \r and \n: the end of the line
	}
	return protocol.Position{Line: uint32(line), Character: uint32(charCount(idx.text[start:off], enc))}
}

// HunkRange is the range a hunk covers in content, in enc: where to put the
// hunk's diagnostic in the code-action delivery. A created, renamed or
// deleted file's hunk covers the start of the document.
func HunkRange(h Hunk, content string, enc Encoding) protocol.Range {
	if h.Kind != KindEdit && h.Kind != KindWrite || h.Created {
		return protocol.Range{}
	}
	idx := newLineIndex(content)
	return protocol.Range{Start: idx.pos(h.Start, enc), End: idx.pos(h.End, enc)}
}
