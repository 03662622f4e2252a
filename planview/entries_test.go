package planview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEntries(t *testing.T) {
	cases := []struct {
		plan string
		want []Entry
	}{
		{"1. Add a helper `retry` in net.go\n   with backoff\n2) Call it from fetch\n**3.** Test it\n",
			[]Entry{{1, "Add a helper `retry` in net.go"}, {2, "Call it from fetch"}, {3, "Test it"}}},
		{"### Step 1: rename the type\n  1. nested, not a step\n### Step 2: fix callers\n",
			[]Entry{{1, "rename the type"}, {2, "fix callers"}}},
		{"- change the greeting\n- keep the signature\n", []Entry{{0, "change the greeting"}, {0, "keep the signature"}}},
		{"\nJust make greet return hello.\n", []Entry{{0, "Just make greet return hello."}}},
		{"1. one\n1. again\n", []Entry{{1, "one"}}},
		{"", nil},
	}
	for _, c := range cases {
		got := Entries(c.plan)
		if len(got) != len(c.want) {
			t.Errorf("Entries(%q) = %v, want %v", c.plan, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Entries(%q)[%d] = %v, want %v", c.plan, i, got[i], c.want[i])
			}
		}
	}
}

// FuzzEntries: a plan the user edited is read into the client's to-do list:
// every entry is one line of valid UTF-8 within the bound, and there are
// never more entries than the bound.
func FuzzEntries(f *testing.F) {
	f.Add("1. a\n2. b\n")
	f.Add("- x\n* y\n")
	f.Add("### Step 9999: \xff\n")
	f.Add("**1.**\n")
	f.Fuzz(func(t *testing.T, plan string) {
		es := Entries(plan)
		if len(es) > maxEntries {
			t.Fatalf("%d entries", len(es))
		}
		for _, e := range es {
			if !utf8.ValidString(e.Text) || strings.ContainsAny(e.Text, "\r\n") {
				t.Fatalf("entry %q is not one line of UTF-8", e.Text)
			}
			if utf8.RuneCountInString(e.Text) > maxEntryChars+4 {
				t.Fatalf("entry of %d characters", utf8.RuneCountInString(e.Text))
			}
		}
	})
}
