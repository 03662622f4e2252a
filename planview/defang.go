package planview

import (
	"regexp"
	"strings"
)

// fetchingTag matches the opening of an HTML tag a Markdown preview loads
// something for (or runs): images, frames, media, styles, forms.
var fetchingTag = regexp.MustCompile(`(?i)<(/?)(img|image|picture|source|video|audio|track|iframe|frame|object|embed|link|script|style|svg|meta|base|form|input|a)\b`)

// Defang makes model-written Markdown safe to preview (issue 16): opened in
// a Markdown preview (VS Code's "aide.planView": "preview"), an image or an
// HTML tag in a plan would make the editor fetch a URL the model chose, which
// can carry what the model read from the workspace. Outside code (fences and
// backtick spans, which a preview shows as text), "![alt](url)" becomes the
// link "[alt](url)" and the "<" of a fetching tag becomes "&lt;", so the tag
// shows as text. Code is left exactly as written: a plan for an HTML file
// still quotes its tags. Defang(Defang(s)) == Defang(s).
func Defang(s string) string {
	if !strings.Contains(s, "![") && !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	fence := "" // the open fence's marker, "" outside a fenced block
	lines := strings.SplitAfter(s, "\n")
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if m := fenceMarker(trimmed); m != "" && len(line)-len(trimmed) < 4 {
			if fence == "" {
				fence = m
			} else if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if fence != "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(defangLine(line))
	}
	return b.String()
}

// fenceMarker is the run of ``` or ~~~ (three or more) a line starts with.
func fenceMarker(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// defangLine defangs one line outside a fence, leaving backtick spans as
// they are.
func defangLine(line string) string {
	var b strings.Builder
	for len(line) > 0 {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(defangText(line))
			break
		}
		b.WriteString(defangText(line[:i]))
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		ticks := line[i : i+n]
		rest := line[i+n:]
		if j := strings.Index(rest, ticks); j >= 0 {
			b.WriteString(ticks + rest[:j] + ticks) // a code span
			line = rest[j+n:]
			continue
		}
		b.WriteString(ticks) // no closing run: the ticks are text
		line = rest
	}
	return b.String()
}

func defangText(s string) string {
	for strings.Contains(s, "![") { // "!![" would leave a new "!["
		s = strings.ReplaceAll(s, "![", "[")
	}
	return fetchingTag.ReplaceAllString(s, "&lt;$1$2")
}
