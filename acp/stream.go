package acp

import (
	"context"

	"github.com/aide-lsp/aide-lsp/clienttext"
	"github.com/aide-lsp/aide-lsp/model"
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

// Chat implements model.Client. The text passes the border's stream
// (clienttext.Stream): a client renders agent messages as Markdown, an
// image or HTML tag there would fetch a URL the model chose, and a key
// the model streams back in small pieces must not reach the client
// either; the stream sends what is safe as it arrives, in time linear in
// the text whatever the deltas, then a paragraph break.
func (t streamTap) Chat(ctx context.Context, req model.Request, onDelta func(model.Delta)) (*model.Response, error) {
	s, _ := ctx.Value(streamKey{}).(*session)
	if s == nil || req.Role != model.RoleArchitect {
		return t.next.Chat(ctx, req, onDelta)
	}
	sent := false
	st := clienttext.NewStream(func(text string) {
		sent = true
		s.sayDefanged(ctx, text)
	})
	resp, err := t.next.Chat(ctx, req, func(d model.Delta) {
		st.Write(d.Text)
		if onDelta != nil {
			onDelta(d)
		}
	})
	st.Flush()
	if sent {
		s.sayDefanged(ctx, "\n\n")
	}
	return resp, err
}
