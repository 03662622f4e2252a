package acp

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// FuzzLineGuard: whatever a client writes, the guard hands the SDK what it
// wrote, line for line, when no line is longer than the SDK reads; it
// never panics and never writes to the client for such lines.
func FuzzLineGuard(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"method\":\"x\"}\n"))
	f.Add([]byte("not json\n\n\r\n"))
	f.Add([]byte("no newline at the end"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var toClient bytes.Buffer
		w := &borderWriter{w: &toClient, log: slog.New(slog.DiscardHandler)}
		g := &lineGuard{r: bufio.NewReaderSize(bytes.NewReader(in), 16), w: w, log: w.log}
		got, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, in) {
			t.Fatalf("the guard changed the client's lines: %q, want %q", got, in)
		}
		if toClient.Len() > 0 {
			t.Fatalf("the guard wrote to the client: %q", toClient.String())
		}
	})
}

// TestLineGuardAnswersTooLongLines: a client's answer longer than the SDK
// reads becomes an error answer to the same id; a request that long is
// refused to the client; the lines after go on.
func TestLineGuardAnswersTooLongLines(t *testing.T) {
	huge := strings.Repeat("x", maxLine+10)
	in := `{"jsonrpc":"2.0","id":7,"result":{"content":"` + huge + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"r1","method":"session/prompt","params":{"t":"` + huge + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}` + "\n"
	var toClient bytes.Buffer
	w := &borderWriter{w: &toClient, log: slog.New(slog.DiscardHandler)}
	g := &lineGuard{r: bufio.NewReaderSize(strings.NewReader(in), 64<<10), w: w, log: w.log}
	got, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":7`) || !strings.Contains(lines[0], `"error"`) || !strings.Contains(lines[1], "session/cancel") {
		t.Fatalf("the SDK got %d lines: %.200q", len(lines), got)
	}
	if !strings.Contains(toClient.String(), `"id":"r1"`) || !strings.Contains(toClient.String(), `"error"`) {
		t.Fatalf("the long request was not refused to the client: %.200q", toClient.String())
	}
}
