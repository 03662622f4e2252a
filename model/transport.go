package model

import (
	"io"
	"net/http"
)

// capTransport cuts every response body at limit bytes: reading past it
// returns errTooLarge, so a runaway or hostile server cannot fill memory
// (the SDKs accumulate whole answers).
type capTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &capBody{rc: resp.Body, left: t.limit}
	return resp, nil
}

type capBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *capBody) Read(p []byte) (int, error) {
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

func (b *capBody) Close() error { return b.rc.Close() }

// cappedClient wraps the configured HTTP client's transport with the cap.
func cappedClient(base *http.Client, limit int64) *http.Client {
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = capTransport{base: rt, limit: limit}
	// The SDK's own per-call deadline comes from the context; a client-wide
	// Timeout would also cut long healthy streams.
	c.Timeout = 0
	return &c
}
