package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// clientLogHandler writes every record to the server's log (the --log
// file) and also sends warnings and errors to the client as
// window/logMessage, where users look first.
type clientLogHandler struct {
	inner slog.Handler
	s     *Server
	attrs []slog.Attr
}

func (h *clientLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.inner.Enabled(ctx, l)
}

func (h *clientLogHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.inner.Enabled(ctx, r.Level) {
		err = h.inner.Handle(ctx, r)
	}
	if r.Level >= slog.LevelWarn {
		typ := msgWarning
		if r.Level >= slog.LevelError {
			typ = msgError
		}
		var b strings.Builder
		b.WriteString(r.Message)
		write := func(a slog.Attr) bool {
			if a.Key != "stack" { // stacks stay in the log file
				fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
			}
			return true
		}
		for _, a := range h.attrs {
			write(a)
		}
		r.Attrs(write)
		h.s.notify("window/logMessage", showMessageParams{Type: typ, Message: b.String()})
	}
	return err
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLogHandler{inner: h.inner.WithAttrs(attrs), s: h.s, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	return &clientLogHandler{inner: h.inner.WithGroup(name), s: h.s, attrs: h.attrs}
}
