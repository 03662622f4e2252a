// Command fakemodel is a tiny scripted OpenAI chat-completions server for the
// end-to-end tests that drive a real editor (tests/neovim): the editor starts
// the real aide-lsp binary, so the model fake must be a separate process the
// binary reaches over loopback, speaking the real wire format (SSE streaming,
// tool-call deltas, usage) so the real SDK client inside aide-lsp is exercised.
//
// It is standalone on purpose (stdlib only, no import of the module's
// packages): the harness keeps working while the server's packages change.
//
// Usage:
//
//	fakemodel -script replies.json -port-file PORT [-log requests.jsonl] [-addr 127.0.0.1:0]
//
// The script is a JSON array of replies, used in order, one per
// POST /v1/chat/completions:
//
//	[{"text": "## Plan\n...\n## End Plan\n"},
//	 {"toolCalls": [{"name": "edit_file", "arguments": "{\"path\":...}"}]}]
//
// A reply may also set "status" (answer that HTTP status with an OpenAI error
// body), "expectTools" (true or false: the request must, or must not, carry
// tools; a mismatch is answered 400 so the test sees it) and "stall" (true:
// stream the text, then hold the stream open until the client goes away, a
// model still streaming when the user cancels). When the script runs
// out the server answers 500 saying so. GET /v1/models lists "m".
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// reply is one scripted answer.
type reply struct {
	Text        string     `json:"text"`
	ToolCalls   []toolCall `json:"toolCalls"`
	Status      int        `json:"status"`
	ExpectTools *bool      `json:"expectTools"`
	Stall       bool       `json:"stall"`
}

type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chunkSize is how many characters of text or tool arguments go in one SSE
// event: small enough that the client really has to reassemble fragments.
const chunkSize = 24

type server struct {
	mu      sync.Mutex
	script  []reply
	next    int
	logFile *os.File // nil: no request log
}

func main() {
	scriptPath := flag.String("script", "", "JSON file with the scripted replies (required)")
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free port)")
	portFile := flag.String("port-file", "", "write the chosen port to this file once listening")
	logPath := flag.String("log", "", "append every request body as one JSON line to this file")
	flag.Parse()
	if *scriptPath == "" {
		fmt.Fprintln(os.Stderr, "fakemodel: -script is required (a JSON array of replies)")
		os.Exit(2)
	}
	data, err := os.ReadFile(*scriptPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: %v\n", err)
		os.Exit(2)
	}
	s := &server{}
	if err := json.Unmarshal(data, &s.script); err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: %s is not a JSON array of replies: %v\n", *scriptPath, err)
		os.Exit(2)
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakemodel: %v\n", err)
			os.Exit(2)
		}
		s.logFile = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: %v\n", err)
		os.Exit(2)
	}
	if *portFile != "" {
		port := ln.Addr().(*net.TCPAddr).Port
		// Write then rename, so a reader polling for the file never sees it half written.
		tmp := *portFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d\n", port)), 0o644); err == nil {
			err = os.Rename(tmp, *portFile)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakemodel: %v\n", err)
			os.Exit(2)
		}
	}
	log.Fatal(http.Serve(ln, s.handler()))
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.chat)
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","created":0,"owned_by":"fake"}]}`)
	})
	return mux
}

func (s *server) chat(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		openAIError(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		openAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	var body struct {
		Model         string            `json:"model"`
		Stream        bool              `json:"stream"`
		Tools         []json.RawMessage `json:"tools"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		openAIError(w, http.StatusBadRequest, "request body is not JSON: "+err.Error())
		return
	}

	s.mu.Lock()
	n := s.next
	s.next++
	if s.logFile != nil {
		fmt.Fprintf(s.logFile, "%s\n", compact(raw))
	}
	s.mu.Unlock()

	if n >= len(s.script) {
		openAIError(w, http.StatusInternalServerError,
			fmt.Sprintf("fakemodel: script exhausted: request %d but only %d replies scripted", n+1, len(s.script)))
		return
	}
	rep := s.script[n]
	if rep.ExpectTools != nil && *rep.ExpectTools != (len(body.Tools) > 0) {
		openAIError(w, http.StatusBadRequest,
			fmt.Sprintf("fakemodel: request %d: expected tools=%v, got %d tools", n+1, *rep.ExpectTools, len(body.Tools)))
		return
	}
	if rep.Status >= 400 {
		openAIError(w, rep.Status, fmt.Sprintf("fakemodel: scripted status %d", rep.Status))
		return
	}
	for i := range rep.ToolCalls {
		if rep.ToolCalls[i].ID == "" {
			rep.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", n+1, i+1)
		}
	}
	modelName := body.Model
	if modelName == "" {
		modelName = "m"
	}
	id := fmt.Sprintf("chatcmpl-fake-%d", n+1)
	usage := map[string]int{
		"prompt_tokens":     len(raw) / 4,
		"completion_tokens": (len(rep.Text) + argsLen(rep.ToolCalls)) / 4,
	}
	usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		finish = "tool_calls"
	}

	if !body.Stream {
		msg := map[string]any{"role": "assistant", "content": rep.Text}
		if len(rep.ToolCalls) > 0 {
			var tcs []map[string]any
			for _, tc := range rep.ToolCalls {
				tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function",
					"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
			}
			msg["tool_calls"] = tcs
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": modelName,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(choices []any, extra map[string]any) error {
		ev := map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": modelName, "choices": choices}
		for k, v := range extra {
			ev[k] = v
		}
		b, _ := json.Marshal(ev)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	delta := func(d map[string]any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}
	}
	if err := s.stream(rep, send, delta); err != nil {
		return // the client went away
	}
	if rep.Stall {
		<-r.Context().Done() // the client cancelled or disconnected
		return
	}
	send([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	if body.StreamOptions != nil && body.StreamOptions.IncludeUsage {
		send([]any{}, map[string]any{"usage": usage})
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// stream sends the reply's text and tool calls as chunk deltas.
func (s *server) stream(rep reply, send func([]any, map[string]any) error, delta func(map[string]any) []any) error {
	if err := send(delta(map[string]any{"role": "assistant", "content": ""}), nil); err != nil {
		return err
	}
	for _, part := range chunks(rep.Text) {
		if err := send(delta(map[string]any{"content": part}), nil); err != nil {
			return err
		}
	}
	for i, tc := range rep.ToolCalls {
		head := map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}
		if err := send(delta(map[string]any{"tool_calls": []any{head}}), nil); err != nil {
			return err
		}
		for _, part := range chunks(tc.Arguments) {
			frag := map[string]any{"index": i, "function": map[string]any{"arguments": part}}
			if err := send(delta(map[string]any{"tool_calls": []any{frag}}), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunks splits s into pieces of at most chunkSize bytes, never inside a
// UTF-8 sequence.
func chunks(s string) []string {
	var out []string
	for len(s) > 0 {
		n := chunkSize
		if n >= len(s) {
			out = append(out, s)
			break
		}
		for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
			n--
		}
		if n == 0 {
			n = chunkSize
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func argsLen(tcs []toolCall) int {
	n := 0
	for _, tc := range tcs {
		n += len(tc.Arguments)
	}
	return n
}

func compact(raw []byte) string {
	var b strings.Builder
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimRight(b.String(), "\n")
}

func openAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "fakemodel_error", "param": nil, "code": nil}})
	w.Write(b)
}
