package model_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

const secretKey = "sk-test-SECRET-0123456789"

// wire is one provider protocol under test, with its fake.
type wire struct {
	kind   string
	keyEnv string
	start  func(testing.TB, ...modeltest.Reply) *modeltest.Server
	// authHeader is where the key must arrive.
	authHeader, authValue string
}

var wires = []wire{
	{"openai", "FAKE_OPENAI_KEY", modeltest.NewOpenAI, "authorization", "Bearer " + secretKey},
	{"anthropic", "FAKE_ANTHROPIC_KEY", modeltest.NewAnthropic, "x-api-key", secretKey},
}

// forEachWire runs body once per provider protocol.
func forEachWire(t *testing.T, body func(t *testing.T, w wire)) {
	for _, w := range wires {
		t.Run(w.kind, func(t *testing.T) { body(t, w) })
	}
}

// fastRetries keeps the backoff in milliseconds so retry tests stay quick.
func fastRetries(o *model.Options) {
	o.RetryBaseDelay = time.Millisecond
	o.MaxRetryDelay = 20 * time.Millisecond
}

func newRouter(t *testing.T, w wire, srv *modeltest.Server, tune ...func(*model.Options)) *model.Router {
	t.Helper()
	env := map[string]string{w.keyEnv: secretKey}
	opts := model.Options{Env: func(k string) string { return env[k] }}
	fastRetries(&opts)
	for _, f := range tune {
		f(&opts)
	}
	return model.NewRouter(map[string]model.ProviderConfig{
		"fake": {Kind: w.kind, BaseURL: srv.BaseURL(), APIKeyEnv: w.keyEnv},
	}, opts)
}

// ctxGuard is a hang guard only: no test asserts on time.
func ctxGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func userReq(model_ string) model.Request {
	return model.Request{Model: model_, Role: model.RoleArchitect, System: "You are the architect.",
		Messages: []model.Message{{Role: "user", Content: "Plan a rename of Foo to Bar."}}}
}

var editTools = []model.Tool{{
	Name: "edit_file", Description: "replace old_text with new_text",
	Parameters: map[string]any{"type": "object", "properties": map[string]any{
		"path": map[string]any{"type": "string"}, "old_text": map[string]any{"type": "string"}, "new_text": map[string]any{"type": "string"},
	}, "required": []string{"path", "old_text", "new_text"}},
}}

func asError(t *testing.T, err error, kind model.ErrorKind) *model.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got success", kind)
	}
	var e *model.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *model.Error, got %T: %v", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("want kind %s, got %s: %v", kind, e.Kind, err)
	}
	return e
}

func mustContain(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%q does not contain %q", s, p)
		}
	}
}

func TestStreamedText(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		const text = "## Plan\n1. Rename Foo to Bar in foo.go — carefully.\n## End Plan\n"
		srv := w.start(t, modeltest.Reply{Text: text, ChunkSize: 3})
		r := newRouter(t, w, srv)
		var got strings.Builder
		deltas := 0
		resp, err := r.Chat(ctxGuard(t), userReq("fake/big-model"), func(d model.Delta) {
			got.WriteString(d.Text)
			deltas++
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != text || got.String() != text {
			t.Fatalf("text: resp %q, streamed %q", resp.Text, got.String())
		}
		if deltas < 10 {
			t.Errorf("text arrived in %d deltas; the fake sent it in 3-byte chunks", deltas)
		}
		if resp.Model != "fake/big-model" {
			t.Errorf("Model = %q", resp.Model)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		body := reqs[0].Body
		if _, has := body["tools"]; has {
			t.Errorf("a request without Tools carried a tools field: %s", reqs[0].Raw)
		}
		if body["stream"] != true || body["model"] != "big-model" {
			t.Errorf("stream/model on the wire: %s", reqs[0].Raw)
		}
		if w.kind == "openai" {
			so, _ := body["stream_options"].(map[string]any)
			if so["include_usage"] != true {
				t.Errorf("no stream_options.include_usage: %s", reqs[0].Raw)
			}
		}
		if got := reqs[0].Headers[w.authHeader]; got != w.authValue {
			t.Errorf("%s = %q, want the key", w.authHeader, got)
		}
		if !strings.Contains(string(reqs[0].Raw), "You are the architect.") {
			t.Errorf("system prompt missing: %s", reqs[0].Raw)
		}
	})
}

func TestToolCallsStreamed(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		calls := []model.ToolCall{
			{Name: "edit_file", Arguments: `{"path":"foo.go","old_text":"func Foo()","new_text":"func Bar()"}`},
			{Name: "edit_file", Arguments: `{"path":"foo_test.go","old_text":"Foo()","new_text":"Bar()"}`},
		}
		srv := w.start(t, modeltest.Reply{Text: "Doing it.", ToolCalls: calls})
		r := newRouter(t, w, srv)
		req := userReq("fake/m")
		req.Role, req.Tools = model.RoleEditor, editTools
		argDeltas := map[int]string{}
		fragments := 0
		resp, err := r.Chat(ctxGuard(t), req, func(d model.Delta) {
			if d.ToolCall != nil {
				argDeltas[d.ToolCall.Index] += d.ToolCall.Arguments
				if d.ToolCall.Arguments != "" {
					fragments++
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 2 || resp.RecoveredToolCalls {
			t.Fatalf("tool calls: %+v (recovered %v)", resp.ToolCalls, resp.RecoveredToolCalls)
		}
		for i, c := range calls {
			if resp.ToolCalls[i].Name != c.Name || resp.ToolCalls[i].Arguments != c.Arguments || resp.ToolCalls[i].ID == "" {
				t.Errorf("call %d = %+v, want %+v with an id", i, resp.ToolCalls[i], c)
			}
			if argDeltas[i] != c.Arguments {
				t.Errorf("streamed arguments %d = %q", i, argDeltas[i])
			}
		}
		if fragments < 10 {
			t.Errorf("arguments arrived in %d fragments; the fake split them in 5-byte chunks", fragments)
		}
		if resp.Text != "Doing it." {
			t.Errorf("text %q", resp.Text)
		}
		if resp.StopReason != map[string]string{"openai": "tool_calls", "anthropic": "tool_use"}[w.kind] {
			t.Errorf("stop reason %q", resp.StopReason)
		}
		body := srv.Requests()[0].Body
		tools, _ := body["tools"].([]any)
		if len(tools) != 1 || !strings.Contains(string(srv.Requests()[0].Raw), `"edit_file"`) {
			t.Errorf("tools on the wire: %s", srv.Requests()[0].Raw)
		}
	})
}

func TestNotStreamed(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		call := model.ToolCall{Name: "edit_file", Arguments: `{"path":"a.go","old_text":"x","new_text":"y"}`}
		srv := w.start(t, modeltest.Reply{Text: "plain answer", Usage: &model.Usage{PromptTokens: 11, CompletionTokens: 7}},
			modeltest.Reply{ToolCalls: []model.ToolCall{call}})
		r := newRouter(t, w, srv)
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "plain answer" || resp.Usage != (model.Usage{PromptTokens: 11, CompletionTokens: 7}) {
			t.Errorf("resp %+v", resp)
		}
		if srv.Requests()[0].Body["stream"] == true {
			t.Errorf("nil onDelta should not stream")
		}
		req := userReq("fake/m")
		req.Tools = editTools
		resp, err = r.Chat(ctxGuard(t), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "edit_file" {
			t.Fatalf("tool calls %+v", resp.ToolCalls)
		}
		if resp.ToolCalls[0].Arguments != call.Arguments && !strings.Contains(resp.ToolCalls[0].Arguments, `"a.go"`) {
			t.Errorf("arguments %q", resp.ToolCalls[0].Arguments)
		}
	})
}

func TestUsage(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t,
			modeltest.Reply{Text: "hi", Usage: &model.Usage{PromptTokens: 1234, CompletionTokens: 56}},
			modeltest.Reply{Text: strings.Repeat("word ", 40), NoUsage: true})
		meter := &model.Meter{}
		r := newRouter(t, w, srv, func(o *model.Options) { o.Meter = meter })
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage != (model.Usage{PromptTokens: 1234, CompletionTokens: 56}) {
			t.Errorf("usage %+v", resp.Usage)
		}
		resp, err = r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Usage.Estimated || resp.Usage.CompletionTokens != 50 || resp.Usage.PromptTokens == 0 {
			t.Errorf("no usage from the server: want an estimate of 50 completion tokens, got %+v", resp.Usage)
		}
		rows, _ := meter.Rows(nil)
		if len(rows) != 1 || rows[0].Requests != 2 || rows[0].CompletionTokens != 106 || !rows[0].Estimated {
			t.Errorf("meter rows %+v", rows)
		}
	})
}

func TestRateLimitRetryThenSuccess(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Status: 429, RetryAfter: "0"}, modeltest.Reply{Status: 503}, modeltest.Reply{Text: "ok"})
		var retries []error
		r := newRouter(t, w, srv, func(o *model.Options) {
			o.OnRetry = func(_ int, err error, _ time.Duration) { retries = append(retries, err) }
		})
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "ok" || len(srv.Requests()) != 3 || len(retries) != 2 {
			t.Errorf("text %q after %d requests, %d retries", resp.Text, len(srv.Requests()), len(retries))
		}
	})
}

func TestRepeated500(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Status: 500}, modeltest.Reply{Status: 500}, modeltest.Reply{Status: 500})
		r := newRouter(t, w, srv, func(o *model.Options) { o.MaxRetries = 2 })
		_, err := r.Chat(ctxGuard(t), userReq("fake/m-large"), func(model.Delta) {})
		e := asError(t, err, model.ErrServer)
		mustContain(t, err.Error(), "fake:", "500", "after 3 attempts", "(model m-large)", "architectModel")
		if e.Attempts != 3 || len(srv.Requests()) != 3 {
			t.Errorf("%d attempts, %d requests", e.Attempts, len(srv.Requests()))
		}
	})
}

func TestAuthErrorNotRetried(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		for _, status := range []int{401, 403, 400} {
			srv := w.start(t, modeltest.Reply{Status: status}, modeltest.Reply{Text: "must not be reached"})
			r := newRouter(t, w, srv)
			_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
			if err == nil || len(srv.Requests()) != 1 {
				t.Fatalf("status %d: err %v after %d requests, want an error after 1", status, err, len(srv.Requests()))
			}
			if status != 400 {
				asError(t, err, model.ErrAuth)
				mustContain(t, err.Error(), w.keyEnv)
			}
			if strings.Contains(err.Error(), secretKey) {
				t.Errorf("the key leaked into the error: %v", err)
			}
		}
	})
}

func TestTimeout(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "a long answer that stalls", Stall: time.Hour})
		r := newRouter(t, w, srv, func(o *model.Options) { o.Timeout = 300 * time.Millisecond })
		_, err := r.Chat(ctxGuard(t), userReq("fake/slow"), func(model.Delta) {})
		asError(t, err, model.ErrTimeout)
		mustContain(t, err.Error(), "requestTimeoutSeconds", "(model slow)")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("errors.Is(err, DeadlineExceeded) is false")
		}
	})
}

func TestCancelMidStreamClosesConnection(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "first words, then a long silence", Stall: time.Hour})
		_, gone := srv.Abandoned()
		r := newRouter(t, w, srv)
		ctx, cancel := context.WithCancel(ctxGuard(t))
		defer cancel()
		sawText := false
		_, err := r.Chat(ctx, userReq("fake/m"), func(d model.Delta) {
			if d.Text != "" {
				sawText = true
				cancel()
			}
		})
		if !sawText {
			t.Fatalf("no text before the stall; err %v", err)
		}
		asError(t, err, model.ErrCancelled)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errors.Is(err, context.Canceled) is false: %v", err)
		}
		select {
		case <-gone:
		case <-time.After(30 * time.Second): // hang guard
			t.Fatal("the fake never saw the connection close")
		}
		if len(srv.Requests()) != 1 {
			t.Errorf("a cancelled call was retried: %d requests", len(srv.Requests()))
		}
	})
}

func TestInvalidJSONFromServer(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		event := map[string]string{"openai": "", "anthropic": "event: message_start\n"}[w.kind]
		srv := w.start(t,
			modeltest.Reply{RawBody: event + "data: {this is not json\n\n"},
			modeltest.Reply{RawBody: "<html><body>Welcome to nginx!</body></html>"})
		r := newRouter(t, w, srv)
		_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		asError(t, err, model.ErrBadResponse)
		mustContain(t, err.Error(), "not valid JSON", "baseURL", "(model m)")
		_, err = r.Chat(ctxGuard(t), userReq("fake/m"), nil)
		asError(t, err, model.ErrBadResponse)
		mustContain(t, err.Error(), "not valid JSON")
	})
}

func TestInvalidJSONInToolArgumentsPassesThrough(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		broken := `{"path": "a.go", "old_text": "x", "new_text": `
		srv := w.start(t, modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "edit_file", Arguments: broken}}})
		r := newRouter(t, w, srv)
		req := userReq("fake/m")
		req.Tools = editTools
		resp, err := r.Chat(ctxGuard(t), req, func(model.Delta) {})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != broken {
			t.Fatalf("want the raw broken arguments passed through, got %+v", resp.ToolCalls)
		}
	})
}

func TestOversizedResponse(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "start", PadBytes: 1 << 20})
		r := newRouter(t, w, srv, func(o *model.Options) { o.MaxResponseBytes = 64 << 10 })
		_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		asError(t, err, model.ErrTooLarge)
		mustContain(t, err.Error(), "65536 bytes", "cut")
		if len(srv.Requests()) != 1 {
			t.Errorf("an oversized answer was retried")
		}
	})
}

func TestFiftyMegabyteResponseIsCut(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 50 MB")
	}
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{PadBytes: 50 << 20}, modeltest.Reply{PadBytes: 50 << 20})
		r := newRouter(t, w, srv) // the default 8 MiB cap
		_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		asError(t, err, model.ErrTooLarge)
		_, err = r.Chat(ctxGuard(t), userReq("fake/m"), nil)
		asError(t, err, model.ErrTooLarge)
	})
}

func TestMissingKey(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t)
		r := model.NewRouter(map[string]model.ProviderConfig{
			"fake": {Kind: w.kind, BaseURL: srv.BaseURL(), APIKeyEnv: w.keyEnv},
		}, model.Options{Env: func(string) string { return "" }})
		req := userReq("fake/m")
		req.Role = model.RoleEditor
		_, err := r.Chat(ctxGuard(t), req, func(model.Delta) {})
		asError(t, err, model.ErrConfig)
		mustContain(t, err.Error(), "fake: "+w.keyEnv+" is not set", "export it", "editorModel")
		if len(srv.Requests()) != 0 {
			t.Errorf("a call went out without its key")
		}
	})
	// The built-ins name their own variables.
	r := model.NewRouter(nil, model.Options{Env: func(string) string { return "" }})
	_, err := r.Chat(ctxGuard(t), userReq("openai/gpt-4.1"), nil)
	mustContain(t, errString(err), "openai: OPENAI_API_KEY is not set", "export it, or pick another provider in architectModel")
	_, err = r.Chat(ctxGuard(t), userReq("anthropic/claude-sonnet-4-5"), nil)
	mustContain(t, errString(err), "anthropic: ANTHROPIC_API_KEY is not set")
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// deadAddress returns a loopback address nothing listens on.
func deadAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestNothingListening(t *testing.T) {
	addr := deadAddress(t)
	env := map[string]string{"OLLAMA_HOST": addr, "OPENAI_API_KEY": secretKey}
	r := model.NewRouter(nil, model.Options{Env: func(k string) string { return env[k] }})
	_, err := r.Chat(ctxGuard(t), userReq("ollama/qwen2.5-coder:14b"), func(model.Delta) {})
	asError(t, err, model.ErrUnreachable)
	mustContain(t, err.Error(), "ollama: nothing answers at http://"+addr+" (model qwen2.5-coder:14b)",
		"`ollama serve`", "`ollama pull qwen2.5-coder:14b`", "architectModel")

	forEachWire(t, func(t *testing.T, w wire) {
		env := map[string]string{w.keyEnv: secretKey}
		r := model.NewRouter(map[string]model.ProviderConfig{
			"local": {Kind: w.kind, BaseURL: "http://" + addr + "/v1", APIKeyEnv: w.keyEnv},
		}, model.Options{Env: func(k string) string { return env[k] }})
		_, err := r.Chat(ctxGuard(t), userReq("local/m"), func(model.Delta) {})
		asError(t, err, model.ErrUnreachable)
		mustContain(t, err.Error(), "local: nothing answers at http://"+addr, "baseURL", `"local"`)
	})
}

func TestResetConnectionRetried(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "lost", ResetAfterBytes: 20}, modeltest.Reply{Text: "second try"})
		r := newRouter(t, w, srv)
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "second try" || len(srv.Requests()) != 2 {
			t.Errorf("text %q after %d requests", resp.Text, len(srv.Requests()))
		}
	})
}

func TestTruncatedStream(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		// Cut before any text: retried, and the retry succeeds.
		head := map[string]string{
			"openai":    `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n",
			"anthropic": "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
		}[w.kind]
		srv := w.start(t, modeltest.Reply{RawBody: head}, modeltest.Reply{Text: "whole"})
		r := newRouter(t, w, srv)
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil || resp.Text != "whole" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		// Cut after text reached the caller: a clear error, not a retry
		// (the caller would see the text twice).
		srv.Script(modeltest.Reply{Text: "some words then the cut", ResetAfterBytes: 900}, modeltest.Reply{Text: "never"})
		var seen strings.Builder
		_, err = r.Chat(ctxGuard(t), userReq("fake/m"), func(d model.Delta) { seen.WriteString(d.Text) })
		if seen.Len() == 0 {
			t.Skip("the cut came before any text; adjust ResetAfterBytes")
		}
		asError(t, err, model.ErrReset)
		mustContain(t, err.Error(), "cut before the answer was complete")
		if srv.Remaining() != 1 {
			t.Errorf("a half-delivered stream was retried")
		}
	})
}

func TestRateLimitStorm(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		var storm []modeltest.Reply
		for range 5 {
			storm = append(storm, modeltest.Reply{Status: 429, RetryAfter: "1"})
		}
		srv := w.start(t, storm...)
		r := newRouter(t, w, srv) // 4 retries, Retry-After capped at 20 ms by fastRetries
		_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		e := asError(t, err, model.ErrRateLimited)
		mustContain(t, err.Error(), "rate limited", "429", "after 5 attempts")
		if e.Attempts != 5 || srv.Remaining() != 0 {
			t.Errorf("%d attempts, %d replies left", e.Attempts, srv.Remaining())
		}
	})
}

func TestRetryAfterHonoured(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Status: 429, RetryAfter: "2"}, modeltest.Reply{Text: "ok"})
		var waits []time.Duration
		r := newRouter(t, w, srv, func(o *model.Options) {
			o.MaxRetryDelay = 40 * time.Millisecond // caps Retry-After: 2 s → 40 ms
			o.OnRetry = func(_ int, _ error, d time.Duration) { waits = append(waits, d) }
		})
		if _, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {}); err != nil {
			t.Fatal(err)
		}
		if len(waits) != 1 || waits[0] != 40*time.Millisecond {
			t.Errorf("waits %v: want Retry-After 2s capped to 40ms", waits)
		}
	})
}

func TestConversationOnTheWire(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "done"})
		r := newRouter(t, w, srv)
		req := model.Request{Model: "fake/m", Role: model.RoleEditor, System: "sys", Tools: editTools, MaxTokens: 1000,
			Messages: []model.Message{
				{Role: "user", Content: "edit it"},
				{Role: "assistant", Content: "ok", ToolCalls: []model.ToolCall{{ID: "call_1", Name: "edit_file", Arguments: `{"path":"a.go"}`}}},
				{Role: "tool", ToolCallID: "call_1", Content: "old_text not found"},
				{Role: "user", Content: "try again"},
			}}
		if _, err := r.Chat(ctxGuard(t), req, func(model.Delta) {}); err != nil {
			t.Fatal(err)
		}
		raw := string(srv.Requests()[0].Raw)
		mustContain(t, raw, "call_1", "old_text not found", "try again", "1000")
		msgs, _ := srv.Requests()[0].Body["messages"].([]any)
		want := map[string]int{"openai": 5, "anthropic": 3}[w.kind] // system + 4 / user, assistant, user(tool result + text)
		if len(msgs) != want {
			t.Errorf("%d messages on the wire, want %d: %s", len(msgs), want, raw)
		}
	})
}

func TestOllamaBuiltinNeverGetsOtherKeys(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.Reply{Text: "local answer"})
	t.Setenv("OPENAI_API_KEY", secretKey) // the SDK's own autoload must not pick it up
	env := map[string]string{"OLLAMA_HOST": srv.URL, "OPENAI_API_KEY": secretKey, "ANTHROPIC_API_KEY": secretKey}
	r := model.NewRouter(nil, model.Options{Env: func(k string) string { return env[k] }})
	resp, err := r.Chat(ctxGuard(t), userReq("ollama/qwen2.5-coder:14b"), func(model.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "local answer" {
		t.Errorf("text %q", resp.Text)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" || got.Body["model"] != "qwen2.5-coder:14b" {
		t.Errorf("path %s model %v", got.Path, got.Body["model"])
	}
	for k, v := range got.Headers {
		if strings.Contains(v, secretKey) {
			t.Errorf("header %s carried a key to ollama", k)
		}
	}
}

func TestOllamaModelNotFound(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.Reply{Status: 404})
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	r := model.NewRouter(nil, model.Options{Env: func(k string) string { return env[k] }})
	_, err := r.Chat(ctxGuard(t), userReq("ollama/llama3:8b"), nil)
	asError(t, err, model.ErrBadRequest)
	mustContain(t, err.Error(), "`ollama pull llama3:8b`")
}

func TestStalledStream(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		srv := w.start(t, modeltest.Reply{Text: "words, then silence", Stall: time.Hour}, modeltest.Reply{Text: "never"})
		r := newRouter(t, w, srv, func(o *model.Options) { o.StallTimeout = 200 * time.Millisecond })
		var seen strings.Builder
		_, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(d model.Delta) { seen.WriteString(d.Text) })
		asError(t, err, model.ErrStalled)
		mustContain(t, err.Error(), "sent nothing for 200ms", "(model m)")
		if seen.Len() == 0 || srv.Remaining() != 1 {
			t.Errorf("streamed %q, %d replies left: a half-delivered stream must not be retried", seen.String(), srv.Remaining())
		}
	})
}

// BenchmarkStreamedToolArgs: one editor answer of 2 MiB of tool-call
// arguments in 90-byte fragments through the real SDKs and the fake wire.
func BenchmarkStreamedToolArgs(b *testing.B) {
	args := `{"path":"big.go","content":"` + strings.Repeat("x", 2<<20) + `"}`
	for _, w := range wires {
		b.Run(w.kind, func(b *testing.B) {
			replies := make([]modeltest.Reply, b.N)
			for i := range replies {
				replies[i] = modeltest.Reply{ToolCalls: []model.ToolCall{{Name: "write_file", Arguments: args}}, ChunkSize: 90}
			}
			srv := w.start(b, replies...)
			env := map[string]string{w.keyEnv: secretKey}
			r := model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: w.kind, BaseURL: srv.BaseURL(), APIKeyEnv: w.keyEnv}},
				model.Options{Env: func(k string) string { return env[k] }})
			req := userReq("fake/m")
			req.Role, req.Tools = model.RoleEditor, editTools
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.Chat(context.Background(), req, func(model.Delta) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAnswerCapCountsTheAnswerNotTheWire: MaxResponseBytes caps the answer
// a user gets, not the stream's envelopes. An answer three quarters of the
// cap, streamed in the fake's 5-character events, is many times the cap on
// the wire (each event is a JSON envelope) and arrives whole; one over the
// cap is cut.
func TestAnswerCapCountsTheAnswerNotTheWire(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		const limit = 32 << 10
		fits := strings.Repeat("func f() {}\n", limit*3/4/12)
		over := fits + strings.Repeat("x", limit/2)
		srv := w.start(t, modeltest.Reply{Text: fits}, modeltest.Reply{Text: over})
		r := newRouter(t, w, srv, func(o *model.Options) { o.MaxResponseBytes = limit })
		resp, err := r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		if err != nil {
			t.Fatalf("an answer of %d bytes under a cap of %d: %v", len(fits), limit, err)
		}
		if resp.Text != fits {
			t.Fatalf("the answer arrived with %d bytes, want %d", len(resp.Text), len(fits))
		}
		_, err = r.Chat(ctxGuard(t), userReq("fake/m"), func(model.Delta) {})
		asError(t, err, model.ErrTooLarge)
	})
}
