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

// FuzzTabsAsOldText: reading spaces as the old text's tabs changes only the
// indentation of the new text's lines, never their number or their text,
// and leaves no line indented with spaces.
func FuzzTabsAsOldText(f *testing.F) {
	f.Add("\t\tx = 1\n", "        if y:\n            x = 2\n        x = 1\n")
	f.Add("test:\n\tgo test ./...\n", "test:\n\tgo vet ./...\n        go test ./...\n")
	f.Add("\tx\n", "    x\n      y\n")
	f.Fuzz(func(t *testing.T, old, neu string) {
		e, ok := tabsAsOldText(Edit{Kind: KindEdit, OldText: old, NewText: neu})
		if !ok {
			if e.NewText != neu {
				t.Fatalf("no reading, yet the text changed: %q", e.NewText)
			}
			return
		}
		a, b := strings.Split(neu, "\n"), strings.Split(e.NewText, "\n")
		if len(a) != len(b) {
			t.Fatalf("%d lines became %d", len(a), len(b))
		}
		for k := range a {
			if strings.TrimLeft(a[k], " \t") != strings.TrimLeft(b[k], " \t") {
				t.Fatalf("line %d changed beyond its indentation: %q → %q", k, a[k], b[k])
			}
			if strings.TrimSpace(b[k]) != "" && strings.HasPrefix(b[k], " ") {
				t.Fatalf("line %d still indented with spaces: %q", k, b[k])
			}
		}
	})
}
