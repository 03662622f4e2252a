package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// logQueueSize bounds the log lines waiting for the client: warnings come
// in bursts of a few (a bad configuration, a refused edit); 256 absorbs any
// burst a user could read, and past it lines are dropped from the client
// (they stay in the --log file) rather than held in memory.
const logQueueSize = 256

// clientLogQueue sends log lines to the client from a goroutine of its own.
// A record is often logged on the connection's read loop (a notification
// handler that warns); writing to the client there can block while the
// client is itself blocked writing to us, and both would wait for ever.
type clientLogQueue struct {
	once sync.Once
	ch   chan showMessageParams
}

func (q *clientLogQueue) send(s *Server, p showMessageParams) {
	q.once.Do(func() {
		q.ch = make(chan showMessageParams, logQueueSize)
		go func() {
			for {
				select {
				case <-s.bg.Done():
					return
				case m := <-q.ch:
					s.notify("window/logMessage", m)
				}
			}
		}()
	})
	select {
	case q.ch <- p:
	default: // full: the line is in the log file; the client misses it
	}
}

// clientLogHandler writes every record to the server's log (the --log
// file) and also sends warnings and errors to the client as
// window/logMessage, where users look first.
type clientLogHandler struct {
	inner slog.Handler
	s     *Server
	attrs []slog.Attr
	queue *clientLogQueue // shared by the handlers WithAttrs/WithGroup derive
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
		h.queue.send(h.s, showMessageParams{Type: typ, Message: b.String()})
	}
	return err
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLogHandler{inner: h.inner.WithAttrs(attrs), s: h.s, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...), queue: h.queue}
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	return &clientLogHandler{inner: h.inner.WithGroup(name), s: h.s, attrs: h.attrs, queue: h.queue}
}
