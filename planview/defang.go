package planview

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Model text in the plan document (contract §5, §8) is defanged so that no
// Markdown preview of it fetches anything (VS Code's "aide.planView":
// "preview" renders it with markdown-it and raw HTML on): an image or an
// HTML tag would make the editor load a URL the model chose, which can
// carry what the model read from the workspace. The invariant, tested by
// rendering with markdown-it (markdownit_test.go) and fuzzed with
// goldmark: outside code, a defanged text holds no "![" and no "<" that can
// open a tag, so it holds no image and no raw HTML at all, whatever
// attributes (src, srcset, style="background:url()", background=) a tag
// would have carried. What is code is decided by a CommonMark parser
// (goldmark), not by matching lines: escaped backticks, a backtick in a
// fence's info string, a fence its list item closes, a table cell that
// splits a code span are all what the preview sees.
//
// Code is left as written, so a plan for an HTML file still quotes its
// tags: a code span's and a code block's content only. An escape can
// change what is code (a "<" that opened a tag whose attribute held a
// backtick), so the parse runs again until nothing changes; past
// maxDefangPasses every "<" and "![" is escaped, code or not.

// mdParsers are the two readings of Markdown a preview may use: CommonMark,
// and CommonMark with GFM tables (markdown-it's default, where a "|" splits
// a cell even inside backticks). Only what both read as code is left
// unescaped.
var mdParsers = []parser.Parser{
	goldmark.New().Parser(),
	goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser(),
}

// maxDefangPasses bounds the parses of one text (see above): each pass
// escapes every fetching opener outside code, so a text needs a second
// only when an escape turned code into text.
const maxDefangPasses = 8

// Defang makes model-written Markdown safe to show as a block of the plan
// document (the plan): no output renders a fetch (see above), and a fence
// the model left open is closed, so that it cannot swallow the document's
// own text after it and change how that reads. Model text is also kept
// from speaking as the user (contract §5): outside fences, a level-2
// heading line is escaped ("\## Notes"), and so are a "Note:" at the start
// of a line and a "rejected:" anywhere ("Note\:", "rejected\:"), the
// markers ReadFeedback takes as the user's notes and reasons. A preview
// shows them as written; the reader no longer sees a marker.
// Defang(Defang(s)) == Defang(s).
func Defang(s string) string {
	if !strings.ContainsAny(s, "!<#:：`~") {
		return s
	}
	return closeFence(defangFetches(escapeLines(s), 0))
}

// DefangLine makes one line of model text (a hunk's summary, a log line)
// safe inside a line of the document's own: it is made one line, its
// markers are escaped wherever they stand, and it is read as the inline
// text it is there, never as a block of its own.
func DefangLine(s string) string {
	s = escapeMarkers(oneLine(s), true)
	if !strings.ContainsAny(s, "!<") {
		return s
	}
	// "a " makes the line a paragraph, as the text after "- `h1` " is.
	return defangFetches("a "+s, 2)[2:]
}

// DefangPlain defangs text that is shown as it streams in (the
// architect's answer so far, and ACP's agent messages): every "<" that can
// open a tag and every "![" is escaped, code or not, and markers are
// escaped line by line. Each line's output depends only on it and the lines
// before, so the defanged text of a prefix is a prefix of the defanged
// whole (a stream can send it as it arrives), and it renders no fetch in
// any context, a blockquote included.
func DefangPlain(s string) string {
	if !strings.ContainsAny(s, "!<#:：") {
		return s
	}
	return escapeFetches(escapeLines(s), nil, 0)
}

// DefangFetches is the fetch half of Defang alone: every image and tag
// opener outside code, code as the parsers read it, is escaped; markers,
// headings and fences stay as they are. It is for a whole document whose
// structure is ours and whose model-written parts Defang already made safe
// (the plan document, a hover): applied again at the border to clients
// (package clienttext) it changes nothing, and it catches what slipped.
// DefangFetches(DefangFetches(s)) == DefangFetches(s).
func DefangFetches(s string) string {
	if !strings.ContainsAny(s, "!<") {
		return s
	}
	return defangFetches(s, 0)
}

// EscapeFetches escapes every "<" that can open a tag and drops every "!"
// before a "[", code or not: what DefangPlain does besides the markers.
// Its output for a piece depends on nothing around it but a "!" run cut
// from its "[", so text cut into pieces at other places (stream deltas)
// is escaped piece by piece as a whole would be.
func EscapeFetches(s string) string {
	if !strings.ContainsAny(s, "!<") {
		return s
	}
	return escapeFetches(s, nil, 0)
}

// PlainLines is DefangPlain line by line, for text that arrives in pieces:
// the defanged lines of a text, each given whole (with its newline) in
// order to Line, are DefangPlain of the text, at a cost linear in its
// length whatever the lines.
type PlainLines struct {
	fence string // the open fence's marker, "" outside a fenced block
}

// Line defangs the next complete line (its "\n" included, or the text's
// last line).
func (p *PlainLines) Line(line string) string {
	out, fence := escapeLine(line, p.fence)
	p.fence = fence
	if !strings.ContainsAny(out, "!<") {
		return out
	}
	return escapeFetches(out, nil, 0)
}

// escapeLines escapes the markers of every line outside a fence as
// ReadFeedback sees fences (line by line).
func escapeLines(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	fence := "" // the open fence's marker, "" outside a fenced block
	for _, line := range strings.SplitAfter(s, "\n") {
		var out string
		out, fence = escapeLine(line, fence)
		b.WriteString(out)
	}
	return b.String()
}

// escapeLine is escapeLines of one line inside (fence != "") or outside a
// fenced block; it returns the fence state after the line.
func escapeLine(line, fence string) (string, string) {
	trimmed := strings.TrimLeft(line, " ")
	if m := fenceMarker(trimmed); m != "" && len(line)-len(trimmed) < 4 {
		if fence == "" {
			fence = m
		} else if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
			fence = ""
		}
		return line, fence
	}
	if fence != "" {
		return line, fence
	}
	return escapeMarkers(line, false), fence
}

// defangFetches escapes every fetching opener of s outside code, code as
// the parsers read s, from byte from on (what is before is the caller's).
func defangFetches(s string, from int) string {
	for range maxDefangPasses {
		out := escapeFetches(s, codeBytes(s), from)
		if out == s {
			return s
		}
		s = out
	}
	return escapeFetches(s, nil, from)
}

// escapeFetches writes "<" as "&lt;" where it can open a tag (a letter,
// "/", "!" or "?" follows: an HTML tag, comment, declaration or
// processing instruction, and autolinks) and drops the "!"s before a "["
// (an image becomes a link), outside the bytes code marks.
func escapeFetches(s string, code []bool, from int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:from])
	for i := from; i < len(s); i++ {
		c := s[i]
		if code != nil && code[i] {
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '<' && i+1 < len(s) && opensTag(s[i+1]):
			b.WriteString("&lt;")
			continue
		case c == '!':
			j := i
			for j < len(s) && s[j] == '!' && (code == nil || !code[j]) {
				j++
			}
			if j < len(s) && s[j] == '[' {
				i = j - 1 // the run of "!" is dropped
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func opensTag(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// codeBytes marks the bytes of s that every parser reads as the content of
// a code span or a code block.
func codeBytes(s string) []bool {
	src := []byte(s)
	var all []bool
	for _, p := range mdParsers {
		code := make([]bool, len(s))
		mark := func(seg text.Segment) {
			for i := seg.Start; i < seg.Stop && i < len(code); i++ {
				code[i] = true
			}
		}
		doc := p.Parse(text.NewReader(src))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.CodeSpan:
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok {
						mark(t.Segment)
					}
				}
				return ast.WalkSkipChildren, nil
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				lines := n.Lines()
				for i := range lines.Len() {
					mark(lines.At(i))
				}
				return ast.WalkSkipChildren, nil
			}
			return ast.WalkContinue, nil
		})
		if all == nil {
			all = code
			continue
		}
		for i := range all {
			all[i] = all[i] && code[i]
		}
	}
	return all
}

// closeFence closes a fenced code block s leaves open at its end (at the
// top level: a container's fence ends with the container), with a fence
// of the opener's kind and length.
func closeFence(s string) string {
	if !strings.ContainsAny(s, "`~") {
		return s
	}
	probe := s
	if !strings.HasSuffix(probe, "\n") {
		probe += "\n"
	}
	probe += "\nx\n"
	doc := mdParsers[0].Parse(text.NewReader([]byte(probe)))
	f, ok := doc.LastChild().(*ast.FencedCodeBlock)
	if !ok || f.Lines().Len() == 0 {
		return s
	}
	if last := f.Lines().At(f.Lines().Len() - 1); last.Stop != len(probe) {
		return s // the probe is not in the fence: it is closed
	}
	// The opener is the line before the fence's first line.
	end := strings.LastIndexByte(probe[:f.Lines().At(0).Start], '\n')
	opener := strings.TrimLeft(probe[strings.LastIndexByte(probe[:max(end, 0)], '\n')+1:max(end, 0)], " ")
	marker := fenceMarker(opener)
	if marker == "" {
		return s
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + marker
}

// rejectedMarker is the reason marker of a hunk's line (ReadFeedback).
var rejectedMarker = regexp.MustCompile(`(?i)(rejected\s*)([:：])`)

// escapeMarkers escapes, in one line outside a fence, what would open a
// heading, a step note or a reason marker (see Defang); inline, the line
// is text inside one of the document's own, where no heading opens, but a
// "Note:" after a list marker still would.
func escapeMarkers(line string, inline bool) string {
	line = rejectedMarker.ReplaceAllString(line, `$1\$2`)
	// The leading blanks as ReadFeedback trims them (any Unicode space).
	lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
	// A level-2 heading is where the document's sections start (isHeading,
	// ReadFeedback); deeper headings ("### Step 2") stay as they are.
	if t := line[lead:]; !inline && strings.HasPrefix(t, "##") && !strings.HasPrefix(t, "###") {
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
