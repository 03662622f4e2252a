package planview

import (
	"regexp"
	"strings"
	"unicode"
)

// fetchingTag matches the opening of an HTML tag a Markdown preview loads
// something for (or runs): images, frames, media, styles, forms.
var fetchingTag = regexp.MustCompile(`(?i)<(/?)(img|image|picture|source|video|audio|track|iframe|frame|object|embed|link|script|style|svg|meta|base|form|input|a)\b`)

// Defang makes model-written Markdown safe to preview (contract §8): opened in
// a Markdown preview (VS Code's "aide.planView": "preview"), an image or an
// HTML tag in a plan would make the editor fetch a URL the model chose, which
// can carry what the model read from the workspace. Outside code (fences and
// backtick spans, which a preview shows as text), "![alt](url)" becomes the
// link "[alt](url)" and the "<" of a fetching tag becomes "&lt;", so the tag
// shows as text. Code is left exactly as written: a plan for an HTML file
// still quotes its tags. Defang(Defang(s)) == Defang(s).
//
// Model text is also kept from speaking as the user (contract §5): outside
// fences, a level-2 heading line is escaped ("\## Notes"), and so are a "Note:" at
// the start of a line and a "rejected:" anywhere ("Note\:", "rejected\:"),
// the markers ReadFeedback takes as the user's notes and reasons. A
// preview shows them as written; the reader no longer sees a marker.
func Defang(s string) string {
	if !strings.Contains(s, "![") && !strings.Contains(s, "<") && !strings.Contains(s, "#") && !strings.Contains(s, ":") && !strings.Contains(s, "：") {
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
		b.WriteString(defangLine(escapeMarkers(line)))
	}
	return b.String()
}

// rejectedMarker is the reason marker of a hunk's line (ReadFeedback).
var rejectedMarker = regexp.MustCompile(`(?i)(rejected\s*)([:：])`)

// escapeMarkers escapes, in one line outside a fence, what would open a
// heading, a step note or a reason marker (see Defang).
func escapeMarkers(line string) string {
	line = rejectedMarker.ReplaceAllString(line, `$1\$2`)
	// The leading blanks as ReadFeedback trims them (any Unicode space).
	lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
	// A level-2 heading is where the document's sections start (isHeading,
	// ReadFeedback); deeper headings ("### Step 2") stay as they are.
	if t := line[lead:]; strings.HasPrefix(t, "##") && !strings.HasPrefix(t, "###") {
		line = line[:lead] + `\` + t
	}
	rest := line[lead:]
	text := lead + len(rest) - len(strings.TrimLeft(rest, "-*+> \t"))
	if len(line)-text >= 5 && strings.EqualFold(line[text:text+5], "note:") {
		line = line[:text+4] + `\` + line[text+4:]
	}
	return line
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
