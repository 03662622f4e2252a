package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"

	"github.com/aide-lsp/aide-lsp/clienttext"
)

// MaxFrameBytes is the largest message body the server accepts: 64 MiB. The
// largest legitimate frame is a didOpen or full didChange of one file; 64 MiB
// is far above any source file an editor opens, and small enough that a
// hostile or broken Content-Length cannot make us allocate gigabytes. Larger
// frames are skipped (read and discarded in small chunks, never allocated)
// with a log line, and the connection goes on.
const MaxFrameBytes = 64 << 20

// maxHeaderLine bounds one header line; real headers are under 100 bytes.
const maxHeaderLine = 4096

// errFrameHeader is a header block the stream cannot recover from: without a
// Content-Length there is no way to find the next frame.
var errFrameHeader = errors.New("lsp: malformed frame header (want \"Content-Length: N\" then an empty line)")

// Stream is the server's jsonrpc2.Stream: LSP header framing whose reader
// refuses frames above a size limit without allocating them, and answers a
// frame that is not JSON-RPC with a parse error instead of ending the
// connection. Writes use the library's header framer.
type Stream struct {
	out   jsonrpc2.Stream // writes (and Close) go through the library framer
	in    *bufio.Reader
	buf   []byte
	limit int
	log   *slog.Logger
}

// NewStream frames rwc with a limit of MaxFrameBytes.
func NewStream(rwc io.ReadWriteCloser, log *slog.Logger) *Stream {
	return NewStreamLimit(rwc, MaxFrameBytes, log)
}

// NewStreamLimit frames rwc refusing bodies longer than limit bytes.
func NewStreamLimit(rwc io.ReadWriteCloser, limit int, log *slog.Logger) *Stream {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stream{out: jsonrpc2.NewHeaderStream(rwc), in: bufio.NewReader(rwc), limit: limit, log: log}
}

// ReadFrame returns the JSON body of the next acceptable frame. The slice is
// reused by the next call. Oversized and malformed frames are skipped here.
func (s *Stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, hdr, err := readHeader(s.in)
		if err != nil {
			if errors.Is(err, errFrameHeader) {
				s.log.Error("closing the connection: unreadable frame header", "err", err)
			}
			return nil, 0, err
		}
		if length > s.limit {
			s.log.Error("refused an oversized frame", "bytes", length, "limit", s.limit)
			if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
				return nil, 0, io.ErrUnexpectedEOF
			}
			s.reply(ctx, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
				"message of %d bytes refused: the limit is %d bytes", length, s.limit))
			continue
		}
		if cap(s.buf) < length {
			s.buf = make([]byte, length)
		}
		body := s.buf[:length]
		if _, err := io.ReadFull(s.in, body); err != nil {
			return nil, 0, io.ErrUnexpectedEOF
		}
		if _, err := jsonrpc2.DecodeMessage(body); err != nil {
			code := jsonrpc2.InvalidRequest
			if !json.Valid(body) {
				code = jsonrpc2.ParseError
			}
			s.log.Error("refused a malformed message", "err", err, "bytes", length)
			s.reply(ctx, jsonrpc2.Errorf(code, "malformed JSON-RPC message: %v", err))
			continue
		}
		return body, int64(hdr + length), nil
	}
}

// reply answers a message we could not read with an error response (id null,
// as JSON-RPC 2.0 says for a message whose id cannot be known).
func (s *Stream) reply(ctx context.Context, e *jsonrpc2.Error) {
	if _, err := s.out.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, e)); err != nil {
		s.log.Warn("could not answer a refused message", "err", err)
	}
}

// Read implements jsonrpc2.Stream.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

// Write implements jsonrpc2.Stream: every message the server sends —
// request, notification or response — passes the border (send).
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	return s.send(ctx, data)
}

// WriteFrame writes an encoded body as one frame (part of the library's
// frame-stream fast path), through the border as Write.
func (s *Stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return s.send(ctx, data)
}

// frameWriter is the library framer's fast path: an encoded body in.
type frameWriter interface {
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// send is the one way out of the server (docs/contract.md §8, "The
// border"): every string of the message gets the border function of its
// field (clienttext.JSON, lspKind), then the message is framed.
func (s *Stream) send(ctx context.Context, data []byte) (int64, error) {
	safe, err := clienttext.JSON(data, lspKind)
	if err != nil {
		return 0, err
	}
	if fw, ok := s.out.(frameWriter); ok {
		return fw.WriteFrame(ctx, safe)
	}
	msg, err := jsonrpc2.DecodeMessage(safe)
	if err != nil {
		return 0, err
	}
	return s.out.Write(ctx, msg)
}

// Close closes the transport.
func (s *Stream) Close() error { return s.out.Close() }

// readHeader parses one header block and returns the Content-Length and the
// header's size in bytes. io.EOF means the peer closed between frames.
func readHeader(r *bufio.Reader) (length, size int, err error) {
	length = -1
	for {
		line, err := readLine(r)
		if err != nil {
			if err == io.EOF && size > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, err
		}
		size += len(line)
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if size <= 2 && length < 0 { // stray blank line between frames
				size = 0
				continue
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, 0, fmt.Errorf("%w: header line %q has no colon", errFrameHeader, truncate(line))
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n <= 0 {
				return 0, 0, fmt.Errorf("%w: bad Content-Length %q", errFrameHeader, truncate(value))
			}
			length = n
		}
	}
	if length < 0 {
		return 0, 0, fmt.Errorf("%w: no Content-Length", errFrameHeader)
	}
	return length, size, nil
}

// readLine reads one header line of at most maxHeaderLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderLine {
			return nil, fmt.Errorf("%w: header line longer than %d bytes", errFrameHeader, maxHeaderLine)
		}
		if err == nil {
			return line, nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
