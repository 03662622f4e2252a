package model

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Options tune a Router. Zero values mean the documented defaults.
type Options struct {
	Timeout          time.Duration       // per call; default 300 s (requestTimeoutSeconds)
	Env              func(string) string // default os.Getenv; tests inject keys and base URLs
	HTTPClient       *http.Client
	MaxResponseBytes int64 // default 8 MiB
	MaxRetries       int   // default 4
}

// Router resolves "provider/rest" model ids to providers (built-ins plus the
// configured ones) and calls them.
type Router struct {
	providers map[string]ProviderConfig
	opts      Options
}

// NewRouter builds a Router over the configured providers (merged over the
// built-ins openai, anthropic, ollama of contract §3).
func NewRouter(providers map[string]ProviderConfig, opts Options) *Router {
	return &Router{providers: providers, opts: opts}
}

// Chat resolves req.Model and calls its provider with retries and the timeout.
func (r *Router) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	return nil, errors.New("model: not implemented yet")
}

// Meter records every call; it is safe for concurrent use.
type Meter struct{}

// Record adds one finished call.
func (m *Meter) Record(role Role, resp *Response) {}

// Rows returns the cost table, one row per (model, role), in a stable order,
// with costs from prices (model id → price); unknown prices cost 0.
func (m *Meter) Rows(prices map[string]Price) (rows []CostRow, totalUSD float64) { return nil, 0 }
