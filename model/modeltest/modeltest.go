// Package modeltest provides model fakes for tests: httptest servers that
// speak the real OpenAI chat-completions and Anthropic messages wire formats
// (SSE included), scripted per test, recording what they received, so the
// real SDK clients run against them.
//
// Point a model.Router at a fake with a provider entry:
//
//	srv := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n...\n## End Plan"})
//	r := model.NewRouter(map[string]model.ProviderConfig{
//		"fake": {Kind: "openai", BaseURL: srv.BaseURL()},
//	}, model.Options{})
//	resp, err := r.Chat(ctx, model.Request{Model: "fake/gpt-test", ...}, nil)
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
	// Message is the error body's message with Status (a provider's
	// words, which the server shows the user defanged); "" says which
	// status was scripted.
	Message string
	// Faults, for the fault-injection tests.
	ResetAfterBytes int           // close the connection after this many body bytes (mid-stream reset)
	Stall           time.Duration // stop sending for this long mid-stream
	RawBody         string        // send this body as is (invalid JSON, truncated SSE, ...)

	// StopReason overrides the finish/stop reason the fake reports
	// ("" = "stop"/"end_turn", or "tool_calls"/"tool_use" with tool calls).
	StopReason string
	// ChunkSize is how many characters of text (and of tool-call arguments)
	// go into one streamed event; 0 means 5, small enough that every test
	// sees text and arguments split across chunks.
	ChunkSize int
	// Pace, when > 0, waits this long after each event of text or
	// tool-call arguments: a stream at a model's speed instead of as fast
	// as the client reads (the load benchmarks).
	Pace time.Duration
	// PadBytes, when > 0, streams that many extra bytes of text (in 64 KiB
	// events) after Text, for the oversized-response tests, without holding
	// them in the script.
	PadBytes int64
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
	gone     int           // responses the client abandoned before the fake finished writing them
	goneCh   chan struct{} // closed and replaced each time gone grows
}

// NewOpenAI starts a fake OpenAI-compatible server (POST /v1/chat/completions,
// GET /v1/models). Its base URL for the SDK is srv.URL + "/v1". It is closed
// by t.Cleanup.
func NewOpenAI(t testing.TB, replies ...Reply) *Server { return start(t, "openai", replies) }

// NewAnthropic starts a fake Anthropic server (POST /v1/messages). Its base
// URL for the SDK is srv.URL. It is closed by t.Cleanup.
func NewAnthropic(t testing.TB, replies ...Reply) *Server { return start(t, "anthropic", replies) }

func start(t testing.TB, kind string, replies []Reply) *Server {
	s := &Server{Kind: kind, script: append([]Reply(nil), replies...), goneCh: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		// Abandoned streams may still be stalling: close client connections
		// first so Close does not wait for them.
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

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

// Abandoned reports how many responses the client stopped reading (closed
// the connection) before the fake finished writing them, and a channel that
// is closed the next time that number grows. The cancel tests wait on it.
func (s *Server) Abandoned() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone, s.goneCh
}

// Remaining is how many scripted replies have not been used yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

func (s *Server) markGone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone++
	close(s.goneCh)
	s.goneCh = make(chan struct{})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Path: r.URL.Path, Headers: map[string]string{}, Raw: raw}
	for name, vals := range r.Header {
		rec.Headers[strings.ToLower(name)] = strings.Join(vals, ", ")
	}
	_ = json.Unmarshal(raw, &rec.Body)

	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"modeltest"}]}`)
		return
	}
	want := "/v1/chat/completions"
	if s.Kind == "anthropic" {
		want = "/v1/messages"
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != want {
		s.writeError(w, http.StatusNotFound, "", fmt.Sprintf("modeltest: no route %s %s (the %s fake serves POST %s)", r.Method, r.URL.Path, s.Kind, want))
		return
	}
	if !ok {
		s.writeError(w, http.StatusInternalServerError, "", "modeltest: the script ran out of replies (a test bug: script one more Reply)")
		return
	}
	if reply.Status >= 400 {
		msg := reply.Message
		if msg == "" {
			msg = fmt.Sprintf("modeltest: scripted status %d", reply.Status)
		}
		s.writeError(w, reply.Status, reply.RetryAfter, msg)
		return
	}
	stream, _ := rec.Body["stream"].(bool)
	out := &faultWriter{w: w, flusher: w.(http.Flusher), reply: reply, ctx: r}
	if reply.RawBody != "" {
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		out.write(reply.RawBody)
		out.end(s)
		return
	}
	promptChars := len(raw)
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		if s.Kind == "openai" {
			openAIStream(out, rec, reply, promptChars)
		} else {
			anthropicStream(out, rec, reply, promptChars)
		}
	} else {
		w.Header().Set("Content-Type", "application/json")
		if s.Kind == "openai" {
			openAIWhole(out, rec, reply, promptChars)
		} else {
			anthropicWhole(out, rec, reply, promptChars)
		}
	}
	out.end(s)
}

func (s *Server) writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	m, _ := json.Marshal(msg)
	if s.Kind == "anthropic" {
		typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
			404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}[status]
		if typ == "" {
			typ = "api_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%s}}`, typ, m)
		return
	}
	fmt.Fprintf(w, `{"error":{"message":%s,"type":"modeltest_error","param":null,"code":null}}`, m)
}

// faultWriter writes the body, injecting the scripted faults: a connection
// reset after ResetAfterBytes, a Stall once the first event is out.
type faultWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	reply   Reply
	ctx     *http.Request
	written int
	dead    bool // the connection is gone (reset injected, or the client left)
	stalled bool
}

func (f *faultWriter) write(s string) {
	if f.dead {
		return
	}
	if n := f.reply.ResetAfterBytes; n > 0 && f.written+len(s) >= n {
		if cut := n - f.written; cut > 0 {
			_, _ = io.WriteString(f.w, s[:cut])
			f.flusher.Flush()
		}
		f.reset()
		return
	}
	if _, err := io.WriteString(f.w, s); err != nil {
		f.dead = true
		return
	}
	f.written += len(s)
	f.flusher.Flush()
	if f.ctx.Context().Err() != nil {
		f.dead = true
	}
}

// content is called after each event that carries text or tool-call
// arguments: it paces the stream (Pace), and the Stall fault starts after
// the first one, so the client has seen a first delta — the "mid-stream"
// of the cancel and timeout tests.
func (f *faultWriter) content() {
	if f.reply.Pace > 0 && !f.dead {
		select {
		case <-time.After(f.reply.Pace):
		case <-f.ctx.Context().Done():
			f.dead = true
		}
	}
	if f.reply.Stall <= 0 || f.stalled || f.dead {
		return
	}
	f.stalled = true
	select {
	case <-time.After(f.reply.Stall):
	case <-f.ctx.Context().Done():
		f.dead = true
	}
}

// reset closes the TCP connection abruptly, like a proxy dying mid-stream.
func (f *faultWriter) reset() {
	f.dead = true
	if hj, ok := f.w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	panic(http.ErrAbortHandler)
}

// end records whether the client abandoned the response.
func (f *faultWriter) end(s *Server) {
	injected := f.reply.ResetAfterBytes > 0 && f.dead
	if !injected && (f.dead || f.ctx.Context().Err() != nil) {
		s.markGone()
	}
}

func chunks(s string, size int) []string {
	if size <= 0 {
		size = 5
	}
	var out []string
	for len(s) > 0 {
		n := size
		if n > len(s) {
			n = len(s)
		}
		// keep UTF-8 sequences whole
		for n < len(s) && n > 0 && s[n]&0xC0 == 0x80 {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func usageOf(reply Reply, promptChars int) model.Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	completion := len(reply.Text) + int(reply.PadBytes)
	for _, tc := range reply.ToolCalls {
		completion += len(tc.Name) + len(tc.Arguments)
	}
	return model.Usage{PromptTokens: (promptChars + 3) / 4, CompletionTokens: (completion + 3) / 4}
}

func modelOf(rec Request) string {
	m, _ := rec.Body["model"].(string)
	return m
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func toolID(kind string, i int, tc model.ToolCall) string {
	if tc.ID != "" {
		return tc.ID
	}
	if kind == "anthropic" {
		return fmt.Sprintf("toolu_%02d", i+1)
	}
	return fmt.Sprintf("call_%02d", i+1)
}

func padText(f *faultWriter, reply Reply, emit func(string)) {
	const event = 64 << 10
	block := strings.Repeat("x", event)
	// Stop once the client is gone: a 50 MB pad must not be built for nobody.
	for left := reply.PadBytes; left > 0 && !f.dead; left -= event {
		if left < event {
			emit(block[:left])
		} else {
			emit(block)
		}
	}
}

// openAIStream writes a chat.completion.chunk SSE stream: a role chunk,
// content chunks, tool-call chunks (id and name first, then the arguments in
// fragments), a finish chunk, the include_usage chunk, and [DONE].
func openAIStream(f *faultWriter, rec Request, reply Reply, promptChars int) {
	m := modelOf(rec)
	chunk := func(delta map[string]any, finish any) {
		f.write("data: " + js(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": m,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}) + "\n\n")
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, c := range chunks(reply.Text, reply.ChunkSize) {
		chunk(map[string]any{"content": c}, nil)
		f.content()
	}
	padText(f, reply, func(s string) { chunk(map[string]any{"content": s}, nil) })
	for i, tc := range reply.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": toolID("openai", i, tc), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}, nil)
		for _, a := range chunks(tc.Arguments, reply.ChunkSize) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": a},
			}}}, nil)
			f.content()
		}
	}
	finish := reply.StopReason
	if finish == "" {
		finish = "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	chunk(map[string]any{}, finish)
	if opts, _ := rec.Body["stream_options"].(map[string]any); opts != nil && opts["include_usage"] == true && !reply.NoUsage {
		u := usageOf(reply, promptChars)
		f.write("data: " + js(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": m,
			"choices": []any{},
			"usage": map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
				"total_tokens": u.PromptTokens + u.CompletionTokens},
		}) + "\n\n")
	}
	f.write("data: [DONE]\n\n")
}

func openAIWhole(f *faultWriter, rec Request, reply Reply, promptChars int) {
	text := reply.Text
	if reply.PadBytes > 0 {
		text += strings.Repeat("x", int(reply.PadBytes))
	}
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
	finish := reply.StopReason
	if finish == "" {
		finish = "stop"
	}
	if len(reply.ToolCalls) > 0 {
		var calls []any
		for i, tc := range reply.ToolCalls {
			calls = append(calls, map[string]any{"id": toolID("openai", i, tc), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
		if reply.StopReason == "" {
			finish = "tool_calls"
		}
	}
	body := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": modelOf(rec),
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
	}
	if !reply.NoUsage {
		u := usageOf(reply, promptChars)
		body["usage"] = map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
			"total_tokens": u.PromptTokens + u.CompletionTokens}
	}
	f.write(js(body))
}

// anthropicStream writes the Messages SSE stream: message_start (with input
// usage), per block content_block_start / content_block_delta (text_delta or
// input_json_delta) / content_block_stop, message_delta (stop reason and
// output usage), message_stop.
func anthropicStream(f *faultWriter, rec Request, reply Reply, promptChars int) {
	u := usageOf(reply, promptChars)
	if reply.NoUsage {
		u = model.Usage{}
	}
	event := func(name string, data map[string]any) {
		data["type"] = name
		f.write("event: " + name + "\ndata: " + js(data) + "\n\n")
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": modelOf(rec), "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.PromptTokens, "output_tokens": min(u.CompletionTokens, 1)},
	}})
	index := 0
	if reply.Text != "" || reply.PadBytes > 0 || len(reply.ToolCalls) == 0 {
		event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		event("ping", map[string]any{})
		for _, c := range chunks(reply.Text, reply.ChunkSize) {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": c}})
			f.content()
		}
		padText(f, reply, func(s string) {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": s}})
		})
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	for i, tc := range reply.ToolCalls {
		event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{
			"type": "tool_use", "id": toolID("anthropic", i, tc), "name": tc.Name, "input": map[string]any{}}})
		for _, a := range chunks(tc.Arguments, reply.ChunkSize) {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": a}})
			f.content()
		}
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	stop := reply.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(reply.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.CompletionTokens}})
	event("message_stop", map[string]any{})
}

func anthropicWhole(f *faultWriter, rec Request, reply Reply, promptChars int) {
	u := usageOf(reply, promptChars)
	if reply.NoUsage {
		u = model.Usage{}
	}
	var content []any
	text := reply.Text
	if reply.PadBytes > 0 {
		text += strings.Repeat("x", int(reply.PadBytes))
	}
	if text != "" || len(reply.ToolCalls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	for i, tc := range reply.ToolCalls {
		var input any = map[string]any{}
		if err := json.Unmarshal([]byte(tc.Arguments), &input); err != nil {
			input = map[string]any{}
		}
		content = append(content, map[string]any{"type": "tool_use", "id": toolID("anthropic", i, tc), "name": tc.Name, "input": input})
	}
	stop := reply.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(reply.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	f.write(js(map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": modelOf(rec), "content": content,
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens},
	}))
}
