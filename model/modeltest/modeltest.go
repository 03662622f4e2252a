// Package modeltest provides model fakes for tests: httptest servers that
// speak the real OpenAI chat-completions and Anthropic messages wire formats
// (SSE included), scripted per test, recording what they received, so the
// real SDK clients run against them.
//
// CONTRACT NOTE: the exported declarations in this file are what commands/,
// lsp/ and tests/ code against while the package is built. Add freely; do
// not change or remove these signatures.
package modeltest

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
)

// Reply is one scripted answer. The zero Status is 200. With Status >= 400
// the server answers that status with an error body of the provider's shape
// (and Retry-After when RetryAfter is set). Text and ToolCalls are streamed
// in small chunks when the request asks for streaming.
type Reply struct {
	Text       string
	ToolCalls  []model.ToolCall
	Usage      *model.Usage // nil: the fake counts ~4 characters a token
	NoUsage    bool         // send no usage at all
	Status     int
	RetryAfter string
	// Faults, for the fault-injection tests.
	ResetAfterBytes int           // close the connection after this many body bytes (mid-stream reset)
	Stall           time.Duration // stop sending for this long mid-stream
	RawBody         string        // send this body as is (invalid JSON, truncated SSE, ...)
}

// Request is what the fake received.
type Request struct {
	Path    string
	Headers map[string]string // lower-case names; Authorization and x-api-key included, for the secrets tests
	Body    map[string]any    // the decoded JSON body
	Raw     []byte
}

// Server is a scripted fake. Replies are used in order; when the script runs
// out the server answers 500 with a message saying so (a test bug, visible).
type Server struct {
	*httptest.Server
	Kind string // "openai" or "anthropic"

	mu       sync.Mutex
	script   []Reply
	requests []Request
}

// NewOpenAI starts a fake OpenAI-compatible server (POST /v1/chat/completions,
// GET /v1/models). Its base URL for the SDK is srv.URL + "/v1". It is closed
// by t.Cleanup.
func NewOpenAI(t testing.TB, replies ...Reply) *Server { panic("modeltest: not implemented yet") }

// NewAnthropic starts a fake Anthropic server (POST /v1/messages). Its base
// URL for the SDK is srv.URL. It is closed by t.Cleanup.
func NewAnthropic(t testing.TB, replies ...Reply) *Server { panic("modeltest: not implemented yet") }

// Script appends replies to the script.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// BaseURL is the base URL to put in a provider config (with /v1 for OpenAI).
func (s *Server) BaseURL() string {
	if s.Kind == "openai" {
		return s.URL + "/v1"
	}
	return s.URL
}
