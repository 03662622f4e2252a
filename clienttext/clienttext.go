// Package clienttext is the border between aide-lsp and every client
// (docs/contract.md §8, "The border"): every string of model or
// repository origin that leaves the process — in an LSP message, an ACP
// message or the command line's terminal output — passes one function of
// this package chosen by the kind of field it fills:
//
//   - Document: a Markdown document whose structure is ours (the plan
//     document, a hover) and whose model-written parts were defanged where
//     they were rendered (planview);
//   - Text: a message, a stream delta, a diagnostic, a tool call's input:
//     text a client may render as Markdown, cut anywhere;
//   - Title: one line (a code action's or tool call's title, a label, an
//     option, a plan entry);
//   - Terminal: the command line's output to a terminal.
//
// Each removes what can take over a terminal or hide text (C0 controls but
// newline and tab, DEL, C1, bidi overrides and isolates, zero-width
// characters; Terminal shows them as \u{…} instead), redacts keys
// (model.Redact), and, but Terminal, defangs Markdown (planview: no image,
// no HTML tag, so nothing rendered fetches a URL the model chose). What is
// left exact is the text the user reviews as the bytes to be written (a
// diff's sides, a file write, an edit's newText) and the identifiers the
// client sends back (ids, URIs, paths, command arguments): Exact.
//
// JSON applies the right function to every string of one encoded message,
// by where it stands; each protocol's send path calls it on every message
// it writes (lsp.Stream.Write, the acp package's connection writer), so no
// field is missed because someone forgot it. Stream is the same border for
// text that arrives in pieces.
package clienttext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
)

// Kind is the kind of a field a string fills.
type Kind int

const (
	// Text: a message, possibly rendered as Markdown, possibly a piece of
	// a stream.
	Text Kind = iota
	// Exact: file content the user reviews as written, or an identifier
	// the client sends back.
	Exact
	// Title: one line.
	Title
	// Document: a whole Markdown document whose structure is ours.
	Document
)

// Apply is the function of kind k.
func (k Kind) Apply(s string) string {
	switch k {
	case Exact:
		return s
	case Title:
		return TitleLine(s)
	case Document:
		return Markdown(s)
	}
	return Plain(s)
}

// Markdown makes a Markdown document safe to send: hidden characters
// removed, keys redacted, no fetch outside code (planview.DefangFetches).
// Its headings, fences and markers stay: they are the document's own.
func Markdown(s string) string {
	return planview.DefangFetches(model.Redact(Strip(s)))
}

// Plain makes text safe to send as a message a client may render as
// Markdown: hidden characters removed, keys redacted, every image and tag
// opener escaped (planview.EscapeFetches), code or not, so that a piece of
// a stream is made safe as the whole would be.
func Plain(s string) string {
	return planview.EscapeFetches(model.Redact(Strip(s)))
}

// TitleLine makes text one safe line: hidden characters removed, line
// breaks and tabs made spaces, keys redacted, defanged as a line of
// Markdown (planview.DefangLine).
func TitleLine(s string) string {
	s = Strip(s)
	if strings.ContainsAny(s, "\n\r\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return planview.DefangLine(model.Redact(s))
}

// Terminal makes text safe for a terminal: keys redacted, and every hidden
// character shown as \u{…} (an escape sequence would set the window's
// title, clear the screen or hide the text after it; showing it says
// something was there).
func Terminal(s string) string {
	s = model.Redact(s)
	if strings.IndexFunc(s, Hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Hidden(r) {
			fmt.Fprintf(&b, `\u{%x}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Strip removes every hidden character (Hidden) and makes s valid UTF-8
// (each invalid byte becomes U+FFFD, so pieces are stripped as the whole).
func Strip(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, Hidden) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if Hidden(r) {
			return -1
		}
		return r
	}, s)
}

// Hidden reports whether r can take over a terminal or make text read as
// other text: C0 controls but newline and tab, DEL and C1 (unicode.IsControl
// covers the three), bidi embeddings, overrides, isolates and marks,
// zero-width characters and the byte-order mark.
func Hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) ||
		r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C ||
		r >= 0x200B && r <= 0x200D || r == 0x2060 || r == 0xFEFF
}
