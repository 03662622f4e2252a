// Package model talks to language models: a provider-agnostic chat call with
// streaming and tool calls, on the official OpenAI and Anthropic SDKs, with
// retries, metering and cassettes.
package model

import (
	"context"
	"time"
)

// Role says which pass a call belongs to; it is metered separately.
type Role string

const (
	RoleArchitect Role = "architect"
	RoleEditor    Role = "editor"
)

// Message is one turn of the conversation. Role is "user", "assistant" or
// "tool" (a tool result answering ToolCallID).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall // on assistant messages
	ToolCallID string     // on tool messages
}

// Tool is a function the model may call; Parameters is a JSON Schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ToolCall is a complete tool call; Arguments is the raw JSON text the model
// wrote (it may be invalid JSON: callers report that as a failed edit).
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Request is one chat call. Model is a full model id "provider/rest" (contract §3).
// When Tools is empty the request must carry no tools at all (the architect's
// calls are checked on the wire for this).
type Request struct {
	Model     string
	Role      Role
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int // 0: provider default (Anthropic needs one: use 8192)
}

// Delta is one streamed piece: text, or a fragment of a tool call.
type Delta struct {
	Text     string
	ToolCall *ToolCallDelta
}

// ToolCallDelta is a fragment of the Index-th tool call of the response.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string // a fragment of the JSON arguments
}

// Usage is what the call cost in tokens. Estimated is true when the server
// sent no usage and the numbers are our estimate (about 4 characters a token).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	Estimated        bool
}

// Response is a finished call.
type Response struct {
	Model      string // the full model id that answered
	Text       string
	ToolCalls  []ToolCall
	Usage      Usage
	StopReason string
	Duration   time.Duration
	// RecoveredToolCalls is true when ToolCalls were recovered from JSON written
	// in the text by a model without native tool calling.
	RecoveredToolCalls bool
}

// Client is anything that can answer a chat request: the Router over real
// providers, a cassette player, a recorder around another Client.
// onDelta may be nil; it is called from the calling goroutine's stream reader,
// in order, before Chat returns.
type Client interface {
	Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}

// ProviderConfig is one entry of the `providers` configuration map.
// Kind is "openai" or "anthropic" (and "replay" for a cassette file at BaseURL,
// used by tests and the offline demo).
type ProviderConfig struct {
	Kind      string `json:"kind"`
	BaseURL   string `json:"baseURL,omitempty"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// Price is USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// From is whose price this is when it is not the user's: the
	// workspace file the user trusted (config, contract §3). A cost shown
	// from it says so.
	From string `json:"-"`
}

// Cost is what a call of prompt and completion tokens costs at p, in USD:
// the one pricing of a call (aide.cost, run --json, the plan document, the
// estimates, ACP's usage and the benchmark reports).
func (p Price) Cost(prompt, completion int) float64 {
	return (float64(prompt)*p.Input + float64(completion)*p.Output) / 1e6
}

// CostRow is one line of the aide.cost table (contract §4).
type CostRow struct {
	Model            string  `json:"model"`
	Role             Role    `json:"role"`
	Requests         int     `json:"requests"`
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	CostUSD          float64 `json:"costUSD"`
	Estimated        bool    `json:"estimated,omitempty"`
	// PriceFrom is whose price CostUSD comes from when not the user's
	// (Price.From).
	PriceFrom string `json:"priceFrom,omitempty"`
}
