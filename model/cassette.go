package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// Cassettes record model exchanges as JSON and play them back, so tests and
// the offline demo run with no model. The file format (version 1):
//
//	{
//	  "version": 1,
//	  "exchanges": [
//	    {
//	      "request":  {"model": "ollama/qwen2.5-coder:14b", "role": "architect",
//	                   "systemChars": 1234, "messages": 1, "lastMessage": "first 500 chars…",
//	                   "tools": ["edit_file", "write_file"]},
//	      "response": {"text": "## Plan\n…", "toolCalls": [{"id": "call_1", "name": "edit_file", "arguments": "{…}"}],
//	                   "usage": {"promptTokens": 900, "completionTokens": 120, "estimated": false},
//	                   "stopReason": "stop", "recoveredToolCalls": false},
//	      "error": "only when the call failed: its message"
//	    }
//	  ]
//	}
//
// The request part is a summary, to read and to match roles by; it never
// holds keys or headers (a Client never sees them: they live in the
// Router's environment). Hand-written cassettes need only "request.role"
// and "response".
type Cassette struct {
	Version   int        `json:"version"`
	Exchanges []Exchange `json:"exchanges"`
}

// Exchange is one recorded call.
type Exchange struct {
	Request  RequestSummary   `json:"request"`
	Response CassetteResponse `json:"response"`
	Error    string           `json:"error,omitempty"`
}

// RequestSummary describes a recorded request without its bulk.
type RequestSummary struct {
	Model       string   `json:"model,omitempty"`
	Role        Role     `json:"role,omitempty"`
	SystemChars int      `json:"systemChars,omitempty"`
	Messages    int      `json:"messages,omitempty"`
	LastMessage string   `json:"lastMessage,omitempty"`
	Tools       []string `json:"tools,omitempty"`
}

// CassetteResponse is the recorded answer.
type CassetteResponse struct {
	Text               string             `json:"text"`
	ToolCalls          []CassetteToolCall `json:"toolCalls,omitempty"`
	Usage              *CassetteUsage     `json:"usage,omitempty"`
	StopReason         string             `json:"stopReason,omitempty"`
	RecoveredToolCalls bool               `json:"recoveredToolCalls,omitempty"`
}

// CassetteToolCall is a ToolCall with JSON names.
type CassetteToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// CassetteUsage is a Usage with JSON names.
type CassetteUsage struct {
	PromptTokens     int  `json:"promptTokens"`
	CompletionTokens int  `json:"completionTokens"`
	Estimated        bool `json:"estimated,omitempty"`
}

// lastMessageChars: enough of the last message to recognise the exchange
// when reading a cassette, not so much that cassettes carry whole files.
const lastMessageChars = 500

func summarize(req Request) RequestSummary {
	s := RequestSummary{Model: req.Model, Role: req.Role, SystemChars: len(req.System), Messages: len(req.Messages)}
	if n := len(req.Messages); n > 0 {
		last := []rune(req.Messages[n-1].Content)
		if len(last) > lastMessageChars {
			last = append(last[:lastMessageChars], '…')
		}
		s.LastMessage = string(last)
	}
	for _, t := range req.Tools {
		s.Tools = append(s.Tools, t.Name)
	}
	return s
}

// Recorder is a Client that passes calls to Inner and appends each exchange
// to the cassette at Path (rewritten whole after each call, so a crash keeps
// every finished exchange).
type Recorder struct {
	Inner Client
	Path  string

	mu       sync.Mutex
	cassette Cassette // guarded by mu
}

// NewRecorder records the calls made through inner into a new cassette file.
func NewRecorder(inner Client, path string) *Recorder {
	return &Recorder{Inner: inner, Path: path, cassette: Cassette{Version: cassetteVersion}}
}

// Chat calls Inner and records the exchange.
func (r *Recorder) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	resp, err := r.Inner.Chat(ctx, req, onDelta)
	ex := Exchange{Request: summarize(req)}
	if err != nil {
		ex.Error = err.Error()
	} else {
		ex.Response = CassetteResponse{Text: resp.Text, StopReason: resp.StopReason, RecoveredToolCalls: resp.RecoveredToolCalls,
			Usage: &CassetteUsage{resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.Estimated}}
		for _, tc := range resp.ToolCalls {
			ex.Response.ToolCalls = append(ex.Response.ToolCalls, CassetteToolCall(tc))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cassette.Exchanges = append(r.cassette.Exchanges, ex)
	if werr := writeCassette(r.Path, r.cassette); werr != nil {
		return resp, errors.Join(err, fmt.Errorf("cassette: cannot write %s: %w", r.Path, werr))
	}
	return resp, err
}

func writeCassette(path string, c Cassette) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// Replay is a Client that answers from a cassette: each call takes the first
// unused exchange recorded for the same role (or, when none is left for that
// role, the first unused one), streaming its text through onDelta in chunks.
type Replay struct {
	path string

	mu   sync.Mutex
	ex   []Exchange
	used []bool
}

// replayChunk is the size of the text pieces a replay streams: small
// enough that consumers see a real stream of many deltas.
const replayChunk = 16

// cassetteVersion is the format version this build writes and reads.
const cassetteVersion = 1

// LoadReplay reads a cassette file; one of another version is refused.
func LoadReplay(path string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Cassette
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s is not a cassette: %w", path, err)
	}
	if c.Version != cassetteVersion {
		return nil, fmt.Errorf("%s is not a cassette this aide-lsp reads: version %d, want %d: record it again", path, c.Version, cassetteVersion)
	}
	return NewReplay(path, c), nil
}

// NewReplay plays a cassette held in memory (path only names it in errors).
func NewReplay(path string, c Cassette) *Replay {
	return &Replay{path: path, ex: c.Exchanges, used: make([]bool, len(c.Exchanges))}
}

// Remaining is the number of exchanges not played yet.
func (p *Replay) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.used {
		if !u {
			n++
		}
	}
	return n
}

// Chat answers req from the next matching exchange.
func (p *Replay) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	start := time.Now()
	p.mu.Lock()
	pick := -1
	for i, ex := range p.ex {
		if !p.used[i] && (ex.Request.Role == req.Role || ex.Request.Role == "") {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i := range p.ex {
			if !p.used[i] {
				pick = i
				break
			}
		}
	}
	if pick >= 0 {
		p.used[pick] = true
	}
	p.mu.Unlock()
	provider, model := splitID(req.Model)
	if pick < 0 {
		return nil, &Error{Kind: ErrConfig, Provider: provider, Model: model,
			Msg: fmt.Sprintf("the cassette %s has no exchange left (all %d played)", p.path, len(p.ex)),
			Fix: "record the session again, or add an exchange to the cassette"}
	}
	ex := p.ex[pick]
	if ex.Error != "" {
		return nil, &Error{Kind: ErrServer, Provider: provider, Model: model, Msg: "recorded failure: " + ex.Error,
			Fix: "this cassette replays a failed call on purpose"}
	}
	r := ex.Response
	resp := &Response{Model: req.Model, Text: r.Text, StopReason: r.StopReason, RecoveredToolCalls: r.RecoveredToolCalls}
	for _, tc := range r.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, ToolCall(tc))
	}
	if onDelta != nil {
		text := []rune(r.Text)
		for i := 0; i < len(text); i += replayChunk {
			if err := ctx.Err(); err != nil {
				return nil, &Error{Kind: ErrCancelled, Provider: provider, Model: model, Msg: "the call was cancelled", Err: err}
			}
			onDelta(Delta{Text: string(text[i:min(i+replayChunk, len(text))])})
		}
		for i, tc := range resp.ToolCalls {
			onDelta(Delta{ToolCall: &ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: ErrCancelled, Provider: provider, Model: model, Msg: "the call was cancelled", Err: err}
	}
	if r.Usage != nil {
		resp.Usage = Usage{r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.Estimated}
	} else {
		resp.Usage = EstimateUsage(req, resp)
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

func splitID(id string) (provider, model string) {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return id[:i], id[i+1:]
		}
	}
	return "replay", id
}
