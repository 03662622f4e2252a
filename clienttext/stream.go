package clienttext

import (
	"strings"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
)

// Stream is the border for text that reaches a client as it arrives (the
// architect's answer as ACP agent messages): hidden characters removed,
// keys redacted however the model cut them, and defanged plain
// (planview.DefangPlain), so that what was sent is always the start of the
// border's text of the whole. It costs time linear in the text, whatever
// the pieces (docs/performance.md, "Streaming to a client").
//
// Redaction holds back the last holdBytes of the text: a cut is made only
// where redacting the two sides apart gives what redacting them together
// gives, so no key (nor its reversed, split or base64 form that
// model.Redact knows) is sent in two pieces that each look harmless.
// Defanging holds back the line still arriving from its first "!", "<",
// "#" or colon on (where DefangPlain starts to change a line).
type Stream struct {
	send func(string)

	carry   []byte // the bytes of a rune the last piece cut
	pending string // stripped text not yet redacted
	tryAt   int    // len(pending) at which a cut is tried next

	lines   planview.PlainLines
	partial strings.Builder // redacted text of the line still arriving
	scanned int             // bytes of partial searched for a marker
	held    bool            // partial holds a marker: wait for its line's end
	sent    int             // bytes of partial already sent

	work int // bytes handled by each pass, for the test that counts work
}

// holdBytes is what redaction holds back: longer than any key of a
// provider in any form Redact catches (an OpenAI project key is about 170
// bytes, 230 in base64).
const holdBytes = 512

// NewStream returns a stream that sends its safe text with send.
func NewStream(send func(string)) *Stream {
	return &Stream{send: send, tryAt: 2 * holdBytes}
}

// Write takes the next piece of the text.
func (t *Stream) Write(piece string) {
	if len(t.carry) > 0 {
		piece = string(t.carry) + piece
		t.carry = t.carry[:0]
	}
	if cut := incompleteTail(piece); cut > 0 {
		t.carry = append(t.carry, piece[len(piece)-cut:]...)
		piece = piece[:len(piece)-cut]
	}
	t.work += len(piece)
	t.pending += Strip(piece)
	if len(t.pending) < t.tryAt {
		return
	}
	c := len(t.pending) - holdBytes
	for c > 0 && !utf8.RuneStart(t.pending[c]) {
		c--
	}
	a, b := t.pending[:c], t.pending[c:]
	ra := model.Redact(a)
	t.work += 2 * len(t.pending)
	if ra+model.Redact(b) != model.Redact(t.pending) {
		// A match crosses the cut: try again when the text has doubled
		// (the tries cost linear time in all).
		t.tryAt = 2 * len(t.pending)
		return
	}
	t.pending = b
	t.tryAt = len(b) + 2*holdBytes
	t.defang(ra)
}

// Flush sends the rest of the text.
func (t *Stream) Flush() {
	rest := t.pending + string(t.carry)
	t.pending, t.carry = "", t.carry[:0]
	t.defang(model.Redact(Strip(rest)))
	if t.partial.Len() > 0 {
		t.line(t.partial.String())
	}
}

// defang takes redacted text: complete lines are defanged and sent, the
// line still arriving is sent up to its first marker.
func (t *Stream) defang(s string) {
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.partial.WriteString(s)
			break
		}
		t.partial.WriteString(s[:i+1])
		s = s[i+1:]
		t.line(t.partial.String())
	}
	if t.held {
		return
	}
	p := t.partial.String()
	if j := strings.IndexAny(p[t.scanned:], "!<#:："); j >= 0 {
		t.held = true
		p = p[:t.scanned+j]
	}
	t.work += len(p) - t.scanned
	t.scanned = len(p)
	if len(p) > t.sent {
		t.send(p[t.sent:])
		t.sent = len(p)
	}
}

// line sends the rest of a complete line, defanged.
func (t *Stream) line(l string) {
	t.work += len(l)
	out := t.lines.Line(l)
	if len(out) > t.sent {
		t.send(out[t.sent:])
	}
	t.partial.Reset()
	t.scanned, t.held, t.sent = 0, false, 0
}

// incompleteTail is the number of bytes at the end of s that start a rune
// the next piece completes (0 when s ends on a whole rune).
func incompleteTail(s string) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(s); i++ {
		if c := s[len(s)-i]; utf8.RuneStart(c) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}
