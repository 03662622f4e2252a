package treesitter

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
)

// idents lists "name@line" for every identifier scanIdents finds.
func idents(src, lang string) []string {
	var out []string
	scanIdents([]byte(src), lexSyntaxOf(lang), func(start, end, line int) {
		out = append(out, src[start:end]+"@"+strconv.Itoa(line))
	})
	return out
}

// TestScanIdentsSkipsCommentsAndStrings: names in comments and literals do
// not link files in the map; names in code do, with their line.
func TestScanIdentsSkipsCommentsAndStrings(t *testing.T) {
	cases := []struct {
		lang, src string
		want      []string
	}{
		{"go", "x := Foo(`raw\nBar`) // Baz\n/* Qux\n*/ y.Quux('\\'')\n\"Str\\\"ing\" z",
			[]string{"x@1", "Foo@1", "y@4", "Quux@4", "z@5"}},
		{"python", "def f():\n    \"\"\"Doc\n    Mention\"\"\"\n    return g('#', h)  # note\n",
			[]string{"def@1", "f@1", "return@4", "g@4", "h@4"}},
		{"rust", "fn f<'a>(x: &'a str) -> char { 'b' }\n// c\nlet s = \"d\";",
			[]string{"fn@1", "f@1", "a@1", "x@1", "a@1", "str@1", "char@1", "let@3", "s@3"}},
		{"bash", "echo $# ${#arr} run # comment\nbuild 'quoted' \"dq\"",
			[]string{"echo@1", "arr@1", "run@1", "build@2"}},
		{"ruby", "valid? && save! # done\nx != y",
			[]string{"valid?@1", "save!@1", "x@2", "y@2"}},
		{"javascript", "const $el = jQuery(`tpl ${no}`); _x1 = 0x1F + 1e9;",
			[]string{"const@1", "$el@1", "jQuery@1", "_x1@1"}},
	}
	for _, c := range cases {
		if got := idents(c.src, c.lang); !slices.Equal(got, c.want) {
			t.Errorf("%s %q:\n got %v\nwant %v", c.lang, c.src, got, c.want)
		}
	}
}

// TestScanIdentsUnterminated: an unterminated comment or string swallows
// the rest of the file without running past it.
func TestScanIdentsUnterminated(t *testing.T) {
	for _, src := range []string{"a /* b", "a \"b\\", "a '''b", "a `b", "a 'b"} {
		got := idents(src, "python")
		if src == "a /* b" {
			got = idents(src, "go")
		}
		if len(got) == 0 || got[0] != "a@1" {
			t.Errorf("%q: got %v, want a@1 first", src, got)
		}
	}
}

// FuzzScanIdents: on any input, in any language, every reported identifier
// is inside the input, made of identifier bytes, in order, and its line is
// one more than the newlines before it.
func FuzzScanIdents(f *testing.F) {
	f.Add([]byte("package p\nfunc F() { g(`x`) } // c\n"), uint8(0))
	f.Add([]byte("def f():\n  '''d'''\n  return g('#')\n"), uint8(1))
	f.Add([]byte("fn f<'a>() -> char { '\\u{1F600}' }"), uint8(2))
	f.Add([]byte("echo $# 'x' \"y\\\"\" # z"), uint8(3))
	f.Add([]byte("/* \n \"\\\n"), uint8(4))
	langs := Languages
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		lang := langs[int(which)%len(langs)]
		syn := lexSyntaxOf(lang)
		last := 0
		scanIdents(src, syn, func(start, end, line int) {
			if start < last || end <= start || end > len(src) {
				t.Fatalf("%s: range [%d,%d) after %d in %d bytes", lang, start, end, last, len(src))
			}
			last = end
			for i, c := range src[start:end] {
				if !isIdentPart(c, syn.dollar) && !(syn.predicateSuffix && i == end-start-1 && (c == '?' || c == '!')) {
					t.Fatalf("%s: %q is not an identifier", lang, src[start:end])
				}
			}
			if want := 1 + bytes.Count(src[:start], []byte{'\n'}); line != want {
				t.Fatalf("%s: %q at byte %d reported on line %d, is on line %d", lang, src[start:end], start, line, want)
			}
		})
	})
}
