package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/clienttext"
)

// The border to the ACP client (docs/contract.md §8, "The border"): every
// message the agent writes passes borderWriter, which gives every string
// of it the border function of its field (clienttext.JSON, acpKind), and
// every line the client writes passes lineGuard, which answers a message
// longer than the SDK reads with an error instead of letting the
// connection end. Both wrap the transport, so no send path and no field is
// left out by forgetting it.

// maxLine is the longest line the SDK reads (its scanner's buffer).
const maxLine = 10<<20 - 1

// maxReviewFile bounds a file reviewed through ACP: its tool call carries
// the whole file twice (the diff's two sides), escaped, in one line.
const maxReviewFile = 4 << 20

// clientConn is the SDK's connection with the agent's own rules for
// asking the client for files.
type clientConn struct {
	*sdk.AgentSideConnection
}

// ReadTextFile asks the client for a file only when the answer can be
// received and reviewed: a file larger than maxReviewFile on disk is
// refused here with the reason, and never asked for (the answer would
// exceed the line the SDK reads).
func (c clientConn) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if st, err := os.Stat(p.Path); err == nil && st.Size() > maxReviewFile {
		return sdk.ReadTextFileResponse{}, tooLarge(st.Size())
	}
	return c.AgentSideConnection.ReadTextFile(ctx, p)
}

// tooLarge says why a file is not reviewed through ACP.
func tooLarge(n int64) error {
	return fmt.Errorf("the file is %.1f MiB, larger than the %d MiB an ACP review carries; review it in your editor with `aide-lsp serve`, or with `aide-lsp run`",
		float64(n)/(1<<20), maxReviewFile>>20)
}

// acpKind is the border kind of the string at path in an ACP message
// (clienttext.Classify). Exact: a diff's sides and a file write's content
// (the bytes the user reviews), and what the client reads back or opens
// (ids, paths, URIs, enumerations); one line: titles, names, descriptions,
// plan entries; everything else, and all of a tool call's raw input and
// output, is text.
func acpKind(path []string) clienttext.Kind {
	for _, p := range path {
		if p == "rawInput" || p == "rawOutput" || p == "_meta" {
			return clienttext.Text
		}
	}
	last := path[len(path)-1]
	switch last {
	case "oldText", "newText":
		return clienttext.Exact
	case "content":
		if len(path) == 2 && path[0] == "params" { // fs/write_text_file
			return clienttext.Exact
		}
		return clienttext.Title // a plan entry
	case "jsonrpc", "method", "id", "sessionId", "toolCallId", "optionId", "modeId", "currentModeId", "configId",
		"currentValue", "value", "path", "uri", "sessionUpdate", "kind", "status", "priority", "type", "outcome",
		"stopReason", "mimeType", "category", "version", "currency":
		return clienttext.Exact
	case "title", "name", "description":
		return clienttext.Title
	}
	return clienttext.Text
}

// borderWriter passes every message the SDK writes (one JSON line per
// Write) through the border, and refuses a line longer than a client's
// SDK reads: a request or notification fails with an error to its caller,
// a response is replaced by an error response.
type borderWriter struct {
	mu  sync.Mutex
	w   io.Writer
	log *slog.Logger
	buf []byte // a line not yet complete
}

func (b *borderWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	for {
		i := bytes.IndexByte(b.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := b.buf[:i]
		err := b.writeLine(line)
		b.buf = b.buf[i+1:]
		if len(b.buf) == 0 {
			b.buf = nil
		}
		if err != nil {
			return len(p), err
		}
	}
}

func (b *borderWriter) writeLine(line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	out, err := clienttext.JSON(line, acpKind)
	if err != nil {
		b.log.Error("a message that is not JSON was not sent", "err", err)
		return err
	}
	if len(out) > maxLine {
		head := peekHead(line)
		b.log.Warn("a message too large for the client was not sent", "bytes", len(out), "method", head.Method)
		if head.Method != "" || head.ID == nil {
			return fmt.Errorf("the message is %d bytes; a client reads lines of at most %d", len(out), maxLine)
		}
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": head.ID, "error": map[string]any{
			"code": -32603, "message": fmt.Sprintf("the answer is %d bytes; an ACP line carries at most %d", len(out), maxLine)}})
	}
	_, err = b.w.Write(append(out, '\n'))
	return err
}

// raw writes a message the agent makes itself (lineGuard's answers).
func (b *borderWriter) raw(msg any) {
	data, err := json.Marshal(msg)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, _ = b.w.Write(append(data, '\n'))
}

// head is what a JSON-RPC message says of itself.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// peekHead reads a message's id and method, skipping its other values.
func peekHead(line []byte) head {
	var h head
	_ = json.Unmarshal(line, &h)
	return h
}

// lineGuard reads the client's lines for the SDK and stands in for one
// longer than it reads (maxLine): a response becomes an error response to
// the same id (the call waiting for it fails with the reason), a request
// is answered with an error, a notification is dropped; the connection
// goes on. A line past maxGuarded is read and dropped unseen.
type lineGuard struct {
	r    *bufio.Reader
	w    *borderWriter
	log  *slog.Logger
	out  []byte // the next line for the SDK, not yet read by it
	done error
}

// maxGuarded bounds what the guard holds of one line to find its id.
const maxGuarded = 64 << 20

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.done != nil {
			return 0, g.done
		}
		g.next()
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// next reads one line into g.out (or sets g.done).
func (g *lineGuard) next() {
	var line []byte
	over := false
	for {
		chunk, err := g.r.ReadSlice('\n')
		if !over {
			line = append(line, chunk...)
			if len(line) > maxGuarded {
				over, line = true, line[:0]
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			g.done = err
		}
		break
	}
	switch {
	case over:
		g.log.Warn("dropped a message from the client larger than the agent reads", "limit", maxGuarded)
	case len(bytes.TrimRight(line, "\r\n")) <= maxLine:
		g.out = line
	default:
		h := peekHead(line)
		size := len(line)
		g.log.Warn("a message from the client is larger than the SDK reads", "bytes", size, "method", h.Method)
		why := fmt.Sprintf("the message is %d bytes; the agent reads lines of at most %d", size, maxLine)
		switch {
		case h.ID != nil && h.Method == "":
			g.out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.ID, "error": map[string]any{"code": -32603, "message": why}})
			g.out = append(g.out, '\n')
		case h.ID != nil:
			g.w.raw(map[string]any{"jsonrpc": "2.0", "id": h.ID, "error": map[string]any{"code": -32600, "message": why}})
		}
	}
}
