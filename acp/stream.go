package acp

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
)

// The architect's text streams to the client as agent_message_chunk
// (docs/contract.md §10). The engine calls its model client with the
// turn's context, so the model client the adapter hands the engine
// (streamTap) finds the session in that context and sends the architect's
// text as it arrives, and nothing of other calls or other clients.

type streamKey struct{}

// withStream marks ctx as a turn of s: its architect calls stream to s.
func withStream(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, streamKey{}, s)
}

// streamTap is the engine's model client: the real one, with the
// architect's text of an ACP turn copied to the client.
type streamTap struct{ next model.Client }

// Chat implements model.Client.
func (t streamTap) Chat(ctx context.Context, req model.Request, onDelta func(model.Delta)) (*model.Response, error) {
	s, _ := ctx.Value(streamKey{}).(*session)
	if s == nil || req.Role != model.RoleArchitect {
		return t.next.Chat(ctx, req, onDelta)
	}
	st := &textStream{send: func(text string) { s.sayDefanged(ctx, text) }}
	resp, err := t.next.Chat(ctx, req, func(d model.Delta) {
		st.write(d.Text)
		if onDelta != nil {
			onDelta(d)
		}
	})
	st.flush()
	return resp, err
}

// textStream sends model-written Markdown as it arrives, defanged: a
// client renders agent messages as Markdown, and an image or HTML tag there
// would fetch a URL the model chose. An agent message only grows, so it is
// defanged plain (planview.DefangPlain: every "![" and tag opener escaped,
// code or not, markers line by line), whose output for the lines so far
// never changes as more arrive: complete lines are sent defanged and the
// line still arriving up to its first "!", "<", "#" or colon (where
// DefangPlain starts to change a line), so what was sent is always the
// start of the defanged whole, and a marker split across two deltas is
// still caught.
type textStream struct {
	send  func(string)
	raw   strings.Builder
	lines string // the defanged complete lines
	ended int    // bytes of raw those lines span
	sent  int    // bytes of the defanged text already sent
}

func (t *textStream) write(s string) {
	t.raw.WriteString(s)
	all := t.raw.String()
	if strings.Contains(s, "\n") {
		t.ended = strings.LastIndexByte(all, '\n') + 1
		t.lines = planview.DefangPlain(all[:t.ended])
	}
	partial := all[t.ended:]
	if i := strings.IndexAny(partial, "!<#:："); i >= 0 {
		partial = partial[:i]
	}
	for partial != "" && !utf8.ValidString(partial) { // a rune cut by the delta: wait for its end
		partial = partial[:len(partial)-1]
	}
	t.emit(t.lines + partial)
}

// flush sends the rest, then a paragraph break.
func (t *textStream) flush() {
	t.emit(planview.DefangPlain(t.raw.String()))
	if t.sent > 0 {
		t.send("\n\n")
	}
}

func (t *textStream) emit(def string) {
	if len(def) > t.sent {
		t.send(def[t.sent:])
		t.sent = len(def)
	}
}
