package editapply

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPositionsOnTrickyLines(t *testing.T) {
	text := "a😀b\r\n漢字x\nend"
	cases := []struct {
		offset int
		enc    Encoding
		want   Pos
	}{
		{len("a"), UTF16, Pos{0, 1}},
		{len("a😀"), UTF16, Pos{0, 3}},
		{len("a😀"), UTF8, Pos{0, 5}},
		{len("a😀"), UTF32, Pos{0, 2}},
		{len("a😀b\r\n"), UTF16, Pos{1, 0}},
		{len("a😀b\r\n漢字"), UTF16, Pos{1, 2}},
		{len("a😀b\r\n漢字"), UTF8, Pos{1, 6}},
		{len(text), UTF16, Pos{2, 3}},
	}
	for _, c := range cases {
		if got := OffsetToPos(text, c.offset, c.enc); got != c.want {
			t.Errorf("OffsetToPos(%d,%s) = %v, want %v", c.offset, c.enc, got, c.want)
		}
		if got := PosToOffset(text, c.want, c.enc); got != c.offset {
			t.Errorf("PosToOffset(%v,%s) = %d, want %d", c.want, c.enc, got, c.offset)
		}
	}
	// A character past the line's end clamps before the CRLF.
	if got := PosToOffset(text, Pos{0, 99}, UTF16); got != len("a😀b") {
		t.Errorf("clamp: got %d", got)
	}
	// A position inside the surrogate pair clamps to the rune's start.
	if got := PosToOffset(text, Pos{0, 2}, UTF16); got != len("a") {
		t.Errorf("surrogate: got %d", got)
	}
}

func FuzzPositionRoundTrip(f *testing.F) {
	f.Add("hello\r\nwörld😀\n\rx", 7)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, offset int) {
		if !utf8.ValidString(text) || offset < 0 || offset > len(text) {
			return
		}
		// Only rune starts that are not between \r and \n round-trip exactly.
		if offset < len(text) && !utf8.RuneStart(text[offset]) {
			return
		}
		if offset > 0 && offset < len(text) && text[offset-1] == '\r' && text[offset] == '\n' {
			return
		}
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			p := OffsetToPos(text, offset, enc)
			if back := PosToOffset(text, p, enc); back != offset {
				t.Fatalf("%s: offset %d -> %v -> %d in %q", enc, offset, p, back, text)
			}
		}
	})
}

// BenchmarkPositionsDeepInDocument is the cost a didChange pays on line
// 5,000 of a 10,000-line document: two conversions.
func BenchmarkPositionsDeepInDocument(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		sb.WriteString("\tx := compute(a, b, c) // a line of ordinary Go code\n")
	}
	text := sb.String()
	mid := len(text) / 2
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := OffsetToPos(text, mid, UTF16)
		if PosToOffset(text, p, UTF16) != mid {
			b.Fatal("round trip")
		}
	}
}
