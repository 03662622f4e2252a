package lsp

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec marshals params and results with protocol.Marshal/Unmarshal, so the
// protocol package's union types (DocumentChange, TextDocumentEditElement, …)
// round-trip; raw messages pass through verbatim. Our own wire structs take
// the package's json/v2 fallback.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// Codec is the codec both ends of our connections use (the fake editor too).
var Codec jsonrpc2.Codec = codec{}
