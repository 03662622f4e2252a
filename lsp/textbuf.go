package lsp

import (
	"slices"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// textBuffer is the text of one open document, edited in place. An
// incremental didChange costs about the size of the edit, not of the
// document: the bytes live in a gap buffer (the gap sits where the last edit
// was, and editors type where they typed before), the start of every line is
// indexed, and the whole text is made into a string only when someone asks
// for it, then kept until the next change. Copying the whole document on
// every change (one string per version) was ~500 MB/s of garbage for a
// 10,000-line file under 1,000 changes a second.
//
// It is not safe for concurrent use: Documents guards it.
type textBuffer struct {
	// The text is buf[:gapStart] + buf[gapEnd:]. buf is nil until the first
	// incremental edit (a document that is only read never gets one).
	buf              []byte
	gapStart, gapEnd int
	size             int // length of the text in bytes

	// lines[i] is the byte offset where '\n'-separated line i starts;
	// lines[0] == 0 and there is one more entry than '\n' bytes.
	lines []int
	// loneCR counts '\r' bytes not followed by '\n'. LSP ends a line at
	// such a '\r' too, so while there is one, line i of lines is not LSP
	// line i and positions are converted on the whole text instead.
	loneCR int

	text   string // the whole text, valid while cached
	cached bool
}

// Gap sizes: growing the buffer copies the whole document, so the gap left
// after a growth must last many edits (an eighth of the document: a growth
// every ~60 KB typed into a 500 KB file), yet not waste much memory on a
// huge one.
const (
	minGap = 4 << 10
	maxGap = 1 << 20
)

func newTextBuffer(text string) *textBuffer {
	b := &textBuffer{size: len(text), text: text, cached: true}
	b.lines = appendLineStarts(make([]int, 1, strings.Count(text, "\n")+1), text, 0)
	b.loneCR = countLoneCR(text, len(text))
	return b
}

// appendLineStarts appends base+i+1 for every '\n' at i in s.
func appendLineStarts(lines []int, s string, base int) []int {
	for i := 0; ; {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return lines
		}
		i += nl + 1
		lines = append(lines, base+i)
	}
}

// countLoneCR counts the '\r' among the first n bytes of s that are not
// followed by '\n' (a '\r' ending s ends the text: s is the text, or a
// piece of it with the byte after the counted ones).
func countLoneCR(s string, n int) int {
	to := min(n, len(s))
	lone := 0
	for i := 0; i < to; {
		cr := strings.IndexByte(s[i:to], '\r')
		if cr < 0 {
			break
		}
		i += cr
		if i+1 >= len(s) || s[i+1] != '\n' {
			lone++
		}
		i++
	}
	return lone
}

// Len is the length of the text in bytes.
func (b *textBuffer) Len() int { return b.size }

// String returns the whole text (made once per version).
func (b *textBuffer) String() string {
	if !b.cached {
		var sb strings.Builder
		sb.Grow(b.size)
		sb.Write(b.buf[:b.gapStart])
		sb.Write(b.buf[b.gapEnd:])
		b.text, b.cached = sb.String(), true
	}
	return b.text
}

// slice returns a copy of the text's bytes [from, to).
func (b *textBuffer) slice(from, to int) string {
	if b.cached {
		return b.text[from:to]
	}
	if to <= b.gapStart {
		return string(b.buf[from:to])
	}
	gap := b.gapEnd - b.gapStart
	if from >= b.gapStart {
		return string(b.buf[from+gap : to+gap])
	}
	var sb strings.Builder
	sb.Grow(to - from)
	sb.Write(b.buf[from:b.gapStart])
	sb.Write(b.buf[b.gapEnd : to+gap])
	return sb.String()
}

// lineCount is the number of '\n'-separated lines (a trailing '\n' starts
// an empty last line).
func (b *textBuffer) lineCount() int { return len(b.lines) }

// lineSpan returns the byte range of '\n'-separated lines [lo, hi),
// clamped to the text; the range includes the last line's '\n'.
func (b *textBuffer) lineSpan(lo, hi int) (from, to int) {
	lo, hi = max(lo, 0), min(hi, len(b.lines))
	if lo >= hi {
		return 0, 0
	}
	from, to = b.lines[lo], b.size
	if hi < len(b.lines) {
		to = b.lines[hi]
	}
	return from, to
}

// offset converts an LSP position to a byte offset with the semantics of
// editapply.PosToOffset on the whole text, looking at one line only.
func (b *textBuffer) offset(p editapply.Pos, enc editapply.Encoding) int {
	if b.loneCR > 0 {
		return editapply.PosToOffset(b.String(), p, enc)
	}
	// Without a lone '\r', the LSP lines are the '\n' lines ("\r\n" ends
	// a line at its '\n' too).
	switch {
	case p.Line < 0:
		return 0
	case p.Line >= len(b.lines):
		return b.size
	}
	from, to := b.lineSpan(p.Line, p.Line+1)
	if p.Char <= 0 {
		return from
	}
	return from + editapply.PosToOffset(b.slice(from, to), editapply.Pos{Char: p.Char}, enc)
}

// replace replaces the bytes [from, to) (0 <= from <= to <= Len()) with s.
func (b *textBuffer) replace(from, to int, s string) {
	if b.buf == nil {
		b.buf = make([]byte, 0, b.size+gapFor(b.size, 0))
		b.buf = append(b.buf, b.text...)
		b.gapStart, b.gapEnd = b.size, cap(b.buf)
		b.buf = b.buf[:cap(b.buf)]
	}
	// Lone '\r': the ones whose next byte may change are in [from-1, to)
	// before the edit and [from-1, from+len(s)) after it.
	b.loneCR -= b.loneCRIn(from-1, to)

	// Line starts: those of the '\n' in [from, to) go, those of the '\n' in
	// s come, those after the edit move by the change in length.
	i := sort.SearchInts(b.lines, from+1)
	j := sort.SearchInts(b.lines, to+1)
	delta := len(s) - (to - from)
	added := appendLineStarts(nil, s, from)
	b.lines = slices.Replace(b.lines, i, j, added...)
	if delta != 0 {
		for k := i + len(added); k < len(b.lines); k++ {
			b.lines[k] += delta
		}
	}

	// The bytes: bring the gap to from, widen it over [from, to), fill
	// the start of it with s.
	b.moveGap(from)
	b.gapEnd += to - from
	b.ensureGap(len(s))
	copy(b.buf[b.gapStart:], s)
	b.gapStart += len(s)
	b.size += delta
	b.text, b.cached = "", false

	b.loneCR += b.loneCRIn(from-1, from+len(s))
}

// loneCRIn counts the lone '\r' at offsets [from, to) of the current text.
func (b *textBuffer) loneCRIn(from, to int) int {
	from, to = max(from, 0), min(to, b.size)
	if from >= to {
		return 0
	}
	// The bytes plus the one after them decide.
	return countLoneCR(b.slice(from, min(to+1, b.size)), to-from)
}

// moveGap puts the gap at text offset p.
func (b *textBuffer) moveGap(p int) {
	switch {
	case p < b.gapStart:
		n := b.gapStart - p
		copy(b.buf[b.gapEnd-n:b.gapEnd], b.buf[p:b.gapStart])
		b.gapStart, b.gapEnd = p, b.gapEnd-n
	case p > b.gapStart:
		n := p - b.gapStart
		copy(b.buf[b.gapStart:b.gapStart+n], b.buf[b.gapEnd:b.gapEnd+n])
		b.gapStart, b.gapEnd = p, b.gapEnd+n
	}
}

// ensureGap makes the gap at least n bytes wide.
func (b *textBuffer) ensureGap(n int) {
	if b.gapEnd-b.gapStart >= n {
		return
	}
	tail := len(b.buf) - b.gapEnd
	grown := make([]byte, b.gapStart+n+gapFor(b.size, n)+tail)
	copy(grown, b.buf[:b.gapStart])
	copy(grown[len(grown)-tail:], b.buf[b.gapEnd:])
	b.buf, b.gapEnd = grown, len(grown)-tail
}

// gapFor is the spare room to leave after growing a text of size bytes by n.
func gapFor(size, n int) int {
	return min(max((size+n)/8, minGap), maxGap)
}
