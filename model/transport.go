package model

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// capTransport cuts every response body at limit bytes: reading past it
// returns errTooLarge, so a runaway or hostile server cannot fill memory
// (the SDKs read a JSON body whole). A server-sent event stream is read
// event by event and never kept, and its envelopes are many times the text
// they carry (an OpenAI chunk is about 200 bytes around a token of a few
// characters), so its bound is sseWireFactor × limit; the answer it
// carries is capped at limit where the backends gather it (toolArgs).
//
// With stall > 0 it is also a watchdog: a body that delivers no byte for
// that long is closed, and its reader gets errStalled.
type capTransport struct {
	base  http.RoundTripper
	limit int64
	stall time.Duration
}

func (t capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	limit := t.limit
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		limit *= sseWireFactor
	}
	b := &capBody{rc: resp.Body, left: limit, stall: t.stall}
	if t.stall > 0 {
		b.timer = time.AfterFunc(t.stall, func() {
			b.stalled.Store(true)
			_ = b.rc.Close() // unblocks the pending Read
		})
	}
	resp.Body = b
	return resp, nil
}

// sseWireFactor bounds a stream's bytes per byte of answer: 64 covers
// envelopes of 200 bytes around tokens of three characters or more.
const sseWireFactor = 64

type capBody struct {
	rc      io.ReadCloser
	left    int64
	stall   time.Duration
	timer   *time.Timer
	stalled atomic.Bool
}

func (b *capBody) Read(p []byte) (int, error) {
	n, err := b.read(p)
	if b.stalled.Load() {
		return 0, errStalled
	}
	if n > 0 && b.timer != nil {
		b.timer.Reset(b.stall)
	}
	return n, err
}

func (b *capBody) read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly limit bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *capBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	return b.rc.Close()
}

// cappedClient wraps the configured HTTP client's transport with the cap.
func cappedClient(base *http.Client, limit int64, stall time.Duration) *http.Client {
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = capTransport{base: rt, limit: limit, stall: stall}
	// The SDK's own per-call deadline comes from the context; a client-wide
	// Timeout would also cut long healthy streams.
	c.Timeout = 0
	return &c
}
