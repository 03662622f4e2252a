package editapply

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is the unit an LSP Position.Character counts in, as negotiated in
// initialize (general.positionEncodings). UTF16 is the protocol's default.
type Encoding string

const (
	UTF16 Encoding = "utf-16"
	UTF8  Encoding = "utf-8"
	UTF32 Encoding = "utf-32"
)

// Pos is a zero-based line and character offset in the given Encoding.
type Pos struct {
	Line, Char int
}

// OffsetToPos converts a byte offset in text into a line/character position.
// Offsets past the end are clamped to the end; an offset inside a multi-byte
// rune counts as the start of that rune. "\r\n", "\n" and "\r" each end a line,
// as the LSP specification says.
func OffsetToPos(text string, offset int, enc Encoding) Pos {
	if offset > len(text) {
		offset = len(text)
	}
	if offset < 0 {
		offset = 0
	}
	if head := text[:offset]; strings.IndexByte(head, '\r') < 0 {
		// No CR before offset (most files): count lines with vectorised scans.
		lineStart := strings.LastIndexByte(head, '\n') + 1
		return Pos{Line: strings.Count(head, "\n"), Char: charCount(text[lineStart:offset], enc)}
	}
	line, lineStart := 0, 0
	for {
		br := nextBreak(text, lineStart)
		if br < 0 || br >= offset {
			break
		}
		end := br + 1
		if text[br] == '\r' && br+1 < len(text) && text[br+1] == '\n' {
			if br+1 == offset { // offset between \r and \n: stay at this line's end
				break
			}
			end = br + 2
		}
		line, lineStart = line+1, end
	}
	return Pos{Line: line, Char: charCount(text[lineStart:offset], enc)}
}

// PosToOffset converts a line/character position into a byte offset in text.
// A line past the end maps to len(text); a character past the end of its line
// maps to the line's end (before its line break), as LSP clients expect.
func PosToOffset(text string, p Pos, enc Encoding) int {
	if p.Line < 0 {
		return 0
	}
	start := 0
	if strings.IndexByte(text, '\r') < 0 {
		// No CR anywhere (most files): hop from '\n' to '\n' with
		// vectorised scans.
		for line := 0; line < p.Line; line++ {
			nl := strings.IndexByte(text[start:], '\n')
			if nl < 0 {
				return len(text)
			}
			start += nl + 1
		}
	} else {
		for line := 0; line < p.Line; line++ {
			next := lineBreakEnd(text, start)
			if next < 0 {
				return len(text)
			}
			start = next
		}
	}
	end := lineContentEnd(text, start)
	if p.Char <= 0 {
		return start
	}
	units := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(text[i:])
		units += runeUnits(r, size, enc)
		if units > p.Char {
			return i // inside a surrogate pair or past: clamp to rune start
		}
		i += size
		if units == p.Char {
			return i
		}
	}
	return end
}

// nextBreak returns the offset of the first '\r' or '\n' at or after start,
// or -1. It scans with strings.IndexByte (vectorised): documents are long and
// every didChange converts two positions, so a byte-at-a-time loop here was
// most of the server's time under a stream of edits.
func nextBreak(text string, start int) int {
	rest := text[start:]
	nl := strings.IndexByte(rest, '\n')
	limit := len(rest)
	if nl >= 0 {
		limit = nl
	}
	if cr := strings.IndexByte(rest[:limit], '\r'); cr >= 0 {
		return start + cr
	}
	if nl >= 0 {
		return start + nl
	}
	return -1
}

// lineBreakEnd returns the offset just after the line break that ends the line
// starting at start, or -1 when that line is the last.
func lineBreakEnd(text string, start int) int {
	br := nextBreak(text, start)
	if br < 0 {
		return -1
	}
	if text[br] == '\r' && br+1 < len(text) && text[br+1] == '\n' {
		return br + 2
	}
	return br + 1
}

// lineContentEnd returns the offset of the line break ending the line that
// starts at start, or len(text).
func lineContentEnd(text string, start int) int {
	if br := nextBreak(text, start); br >= 0 {
		return br
	}
	return len(text)
}

func charCount(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeUnits(r, size, enc)
		i += size
	}
	return n
}

func runeUnits(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	}
	if r == utf8.RuneError && size == 1 {
		return 1
	}
	if utf16.IsSurrogate(r) || r < 0x10000 {
		return 1
	}
	return 2
}
