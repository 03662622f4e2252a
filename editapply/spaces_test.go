package editapply

import (
	"strings"
	"testing"
)

// FuzzSameSpaced: the spaces rung's comparison agrees with comparing the
// lines with their runs of blanks collapsed (on ASCII blanks, the ones it
// reads), without allocating.
func FuzzSameSpaced(f *testing.F) {
	f.Add("function   sum(a,   b)    {", "function sum(a, b) {")
	f.Add("x  ", "x")
	f.Add("x y", "xy")
	f.Add("\tif a:", "if  a:  ")
	f.Fuzz(func(t *testing.T, a, b string) {
		ascii := func(s string) string {
			return strings.Map(func(r rune) rune {
				if r == '\u0085' || r == '\u00a0' || r > 0x7f && strings.TrimSpace(string(r)) == "" {
					return 'x'
				}
				return r
			}, s)
		}
		a, b = ascii(a), ascii(b)
		if got, want := sameSpaced(a, b), collapseSpaces(a) == collapseSpaces(b); got != want {
			t.Fatalf("sameSpaced(%q, %q) = %v, collapsed %v", a, b, got, want)
		}
	})
}
