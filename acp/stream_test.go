package acp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/planview"
)

// streamed is what a client receives for text cut into deltas of size n.
func streamed(text string, n int) string {
	var b strings.Builder
	st := &textStream{send: func(s string) { b.WriteString(s) }}
	for i := 0; i < len(text); i += n {
		st.write(text[i:min(i+n, len(text))])
	}
	st.flush()
	return b.String()
}

func TestStreamIsDefangedWhateverTheCuts(t *testing.T) {
	text := "Plan:\n![x](http://evil.example/?k=v) and <img src=x>\n```html\n<img src=ok>\n```\n!"
	want := planview.DefangPlain(text) + "\n\n"
	for n := 1; n <= len(text); n++ {
		if got := streamed(text, n); got != want {
			t.Fatalf("cut every %d bytes: %q, want %q", n, got, want)
		}
	}
}

// FuzzTextStream: the model's text, cut anywhere, reaches the client as
// exactly its defanged whole: no image or fetching tag slips through a cut.
func FuzzTextStream(f *testing.F) {
	f.Add("![a](b)\n<img>", 1)
	f.Add("```\n![x](y)\n```\n", 3)
	f.Add("a!\n[b](c)", 2)
	f.Fuzz(func(t *testing.T, text string, n int) {
		if n <= 0 || n > 64 || !utf8.ValidString(text) {
			return
		}
		want := planview.DefangPlain(text)
		if want != "" {
			want += "\n\n"
		}
		var b strings.Builder
		st := &textStream{send: func(s string) {
			if !utf8.ValidString(s) {
				t.Fatalf("sent %q: not valid UTF-8 (JSON would mangle it)", s)
			}
			b.WriteString(s)
		}}
		for i := 0; i < len(text); i += n {
			st.write(text[i:min(i+n, len(text))])
		}
		st.flush()
		if got := b.String(); got != want {
			t.Fatalf("cut every %d: %q, want %q", n, got, want)
		}
	})
}
