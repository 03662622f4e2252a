package lsp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"testing"
)

// pipeRW feeds fixed input and swallows output (the stream's error replies).
type pipeRW struct {
	io.Reader
	out bytes.Buffer
}

func (p *pipeRW) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipeRW) Close() error                { return nil }

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// readAll reads frames until the stream ends and returns the accepted bodies.
func readAll(t testing.TB, input string, limit int) ([]string, error) {
	s := NewStreamLimit(&pipeRW{Reader: bytes.NewReader([]byte(input))}, limit, nil)
	var bodies []string
	for {
		body, _, err := s.ReadFrame(context.Background())
		if err != nil {
			return bodies, err
		}
		if len(body) > limit {
			t.Fatalf("accepted a %d-byte frame over the %d-byte limit", len(body), limit)
		}
		bodies = append(bodies, string(body))
	}
}

func TestStreamSkipsOversizedAndMalformedFrames(t *testing.T) {
	ok := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	big := `{"jsonrpc":"2.0","method":"x","params":"` + string(bytes.Repeat([]byte("a"), 200)) + `"}`
	input := frame(ok) + frame(big) + frame(`{"jsonrpc":`) + frame(`{"a":1}`) + "\r\n" + frame(ok)
	bodies, err := readAll(t, input, 100)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want io.EOF at the end", err)
	}
	if len(bodies) != 2 || bodies[0] != ok || bodies[1] != ok {
		t.Fatalf("accepted %q, want the two good frames only", bodies)
	}
}

func TestStreamRefusesUnreadableHeaders(t *testing.T) {
	for _, input := range []string{
		"Content-Length: -1\r\n\r\n{}",
		"Content-Length: 99999999999999999999999\r\n\r\n",
		"garbage\r\n\r\n",
		"Content-Type: x\r\n\r\n{}",
	} {
		if _, err := readAll(t, input, MaxFrameBytes); !errors.Is(err, errFrameHeader) {
			t.Errorf("%q: err = %v, want a header error", input, err)
		}
	}
	if _, err := readAll(t, "Content-Length: 10\r\n\r\n{}", MaxFrameBytes); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated body: err = %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzFrameReader: no input makes the frame reader panic, accept a frame
// over the limit, or return a body that is not a JSON-RPC message.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
	f.Add([]byte(frame(`{"jsonrpc":"2.0","method":"exit"}`) + frame(`[1,2]`)))
	f.Add([]byte("Content-Length: 1073741824\r\n\r\n"))
	f.Add([]byte("content-length:5\n\n{\"a\":"))
	f.Add([]byte("\r\n\r\nContent-Length: 2\r\nContent-Type: utf8\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := readAll(t, string(data), 256)
		if err == nil {
			t.Fatal("reader ended without an error")
		}
	})
}
