package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults. Each is a user-visible behaviour, so each says why.
const (
	// DefaultTimeout is requestTimeoutSeconds' default (contract §3): a large
	// local model writing a long plan on a CPU can take minutes.
	DefaultTimeout = 300 * time.Second
	// DefaultMaxResponseBytes: the largest sane answer (a plan is ≤ 8 KiB,
	// an editor pass rewriting a few big files a few hundred KiB) with a wide
	// margin, yet small enough that a runaway stream cannot hurt the server.
	DefaultMaxResponseBytes = 8 << 20
	// DefaultMaxRetries: with the 1 s base below, 4 retries wait about
	// 1+2+4+8 = 15 s in all, which rides out a rate-limit window or a server
	// restart without making a user stare at a dead progress bar for minutes.
	DefaultMaxRetries = 4
	// DefaultRetryBaseDelay is the first backoff step: long enough for a
	// restarting server or a per-second rate limit to recover.
	DefaultRetryBaseDelay = time.Second
	// DefaultMaxRetryDelay caps one wait, Retry-After included: a provider
	// asking for more than a minute is better reported than waited on
	// (the user can rerun, or pick another model).
	DefaultMaxRetryDelay = 60 * time.Second
)

// Options tune a Router. Zero values mean the documented defaults.
type Options struct {
	Timeout          time.Duration       // per call, retries included; default 300 s (requestTimeoutSeconds)
	Env              func(string) string // default os.Getenv; tests inject keys and base URLs
	HTTPClient       *http.Client
	MaxResponseBytes int64 // default 8 MiB
	MaxRetries       int   // default 4; negative: no retries at all

	// RetryBaseDelay is the first backoff step (doubling, full jitter in
	// [d/2, d]); default 1 s. Tests set a millisecond.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps one backoff wait and any Retry-After; default 60 s.
	// A Retry-After longer than this is capped, not refused.
	MaxRetryDelay time.Duration
	// StallTimeout, when > 0, gives up on a response body that sends no
	// byte for this long (a hung server or proxy) instead of waiting for the
	// whole Timeout; the attempt is retried when no text reached the caller
	// yet. Default 0 (off): reasoning models may think silently for
	// minutes mid-stream, so only the per-call Timeout applies.
	StallTimeout time.Duration
	// Meter, when set, records every successful call.
	Meter *Meter
	// OnRetry, when set, is told about each retry before its wait (for the
	// session log: "rate limited, retrying in 2s").
	OnRetry func(attempt int, err error, wait time.Duration)
	// HTTPAllowed lists the plain-http base URLs the user's own
	// configuration names (config.Config.HTTPAllowed). A key is never sent
	// over plain http to a host that is not loopback unless its base URL is
	// one of these, or the user's environment set it (OPENAI_BASE_URL, ...).
	HTTPAllowed []string
}

// Router resolves "provider/rest" model ids to providers (built-ins plus the
// configured ones) and calls them.
type Router struct {
	providers map[string]ProviderConfig
	opts      Options

	mu      sync.Mutex
	replays map[string]*Replay // cassette players by provider name, loaded once
}

// NewRouter builds a Router over the configured providers (merged over the
// built-ins openai, anthropic, ollama of contract §3). A configured entry
// named like a built-in overrides only the fields it sets.
func NewRouter(providers map[string]ProviderConfig, opts Options) *Router {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.RetryBaseDelay <= 0 {
		opts.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if opts.MaxRetryDelay <= 0 {
		opts.MaxRetryDelay = DefaultMaxRetryDelay
	}
	p := make(map[string]ProviderConfig, len(providers))
	for k, v := range providers {
		p[k] = v
	}
	return &Router{providers: p, opts: opts, replays: map[string]*Replay{}}
}

// Resolved is a model id resolved against the providers: what a call would
// use. The key itself is never in it (only the variable's name).
type Resolved struct {
	Provider  string // "ollama"
	Model     string // "qwen2.5-coder:14b", sent as is
	Kind      string // "openai", "anthropic" or "replay"
	BaseURL   string
	APIKeyEnv string // "" when the provider takes no key
}

// Providers lists the provider names the Router knows, sorted (for doctor).
func (r *Router) Providers() []string {
	names := map[string]bool{"openai": true, "anthropic": true, "ollama": true}
	for k := range r.providers {
		names[k] = true
	}
	out := make([]string, 0, len(names))
	for k := range names {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Resolve splits a model id and finds its provider, base URL and key
// variable. Its errors are *Error of kind ErrConfig.
func (r *Router) Resolve(id string) (Resolved, error) {
	name, rest, ok := strings.Cut(id, "/")
	if !ok || name == "" || rest == "" {
		return Resolved{}, &Error{Kind: ErrConfig, Provider: "model", Model: id,
			Msg: fmt.Sprintf("model id %q is not provider/model", id),
			Fix: "write it as provider/model, e.g. ollama/qwen2.5-coder:14b, openai/gpt-4.1 or anthropic/claude-sonnet-4-5"}
	}
	pc, known := r.builtin(name)
	if c, ok := r.providers[name]; ok {
		known = true
		if c.Kind != "" {
			pc.Kind = c.Kind
		}
		if c.BaseURL != "" {
			pc.BaseURL = c.BaseURL
		}
		if c.APIKeyEnv != "" {
			pc.APIKeyEnv = c.APIKeyEnv
		}
	}
	res := Resolved{Provider: name, Model: rest, Kind: pc.Kind, BaseURL: strings.TrimRight(pc.BaseURL, "/"), APIKeyEnv: pc.APIKeyEnv}
	if !known {
		return res, &Error{Kind: ErrConfig, Provider: name, Model: rest,
			Msg: "unknown provider " + fmt.Sprintf("%q", name),
			Fix: fmt.Sprintf(`use one of %s, or add it to "providers": {%q: {"kind": "openai", "baseURL": "http://host:port/v1"}}`,
				strings.Join(r.Providers(), ", "), name)}
	}
	switch res.Kind {
	case "openai", "anthropic", "replay":
	default:
		return res, &Error{Kind: ErrConfig, Provider: name, Model: rest,
			Msg: fmt.Sprintf("provider kind %q is not openai, anthropic or replay", res.Kind),
			Fix: fmt.Sprintf(`set "kind" of provider %q to "openai" (OpenAI-compatible servers) or "anthropic"`, name)}
	}
	if res.BaseURL == "" {
		return res, &Error{Kind: ErrConfig, Provider: name, Model: rest, Msg: "provider has no baseURL",
			Fix: fmt.Sprintf(`set "baseURL" of provider %q`, name)}
	}
	return res, nil
}

// checkPlainHTTP refuses to send a key over plain http to a host that is
// not loopback, unless the user's own configuration or environment names
// that exact base URL (a LAN server the user set up). A repository must not
// be able to make the key travel in clear text to wherever it likes.
func (r *Router) checkPlainHTTP(res Resolved) error {
	u, err := url.Parse(res.BaseURL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || isLoopback(u.Hostname()) {
		return nil
	}
	allowed := slices.ContainsFunc(r.opts.HTTPAllowed, func(a string) bool { return strings.TrimRight(a, "/") == res.BaseURL })
	for _, v := range []string{"OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		if e := strings.TrimRight(r.opts.Env(v), "/"); e != "" && e == res.BaseURL {
			allowed = true
		}
	}
	if allowed {
		return nil
	}
	return &Error{Kind: ErrConfig, Provider: res.Provider, Model: res.Model,
		Msg: fmt.Sprintf("refused to send %s over plain http to %s", res.APIKeyEnv, hostOf(res.BaseURL)),
		Fix: fmt.Sprintf("use an https baseURL for provider %q; for a server of your own on your network, name this exact baseURL in your own config file (~/.config/aide-lsp/config.json)", res.Provider)}
}

// isLoopback: localhost names and loopback addresses never leave the machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (r *Router) builtin(name string) (ProviderConfig, bool) {
	env := r.opts.Env
	switch name {
	case "openai":
		base := env("OPENAI_BASE_URL")
		if base == "" {
			base = "https://api.openai.com/v1"
		}
		return ProviderConfig{Kind: "openai", BaseURL: base, APIKeyEnv: "OPENAI_API_KEY"}, true
	case "anthropic":
		base := env("ANTHROPIC_BASE_URL")
		if base == "" {
			base = "https://api.anthropic.com"
		}
		return ProviderConfig{Kind: "anthropic", BaseURL: base, APIKeyEnv: "ANTHROPIC_API_KEY"}, true
	case "ollama":
		return ProviderConfig{Kind: "openai", BaseURL: ollamaBase(env("OLLAMA_HOST"))}, true
	}
	return ProviderConfig{}, false
}

// ollamaBase turns OLLAMA_HOST ("", "0.0.0.0", "host:port", "http://host:port")
// into the OpenAI-compatible base URL, the way the ollama CLI reads it.
func ollamaBase(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if host == "" {
		return "http://127.0.0.1:11434/v1"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	scheme, rest, _ := strings.Cut(host, "://")
	hostport, path, _ := strings.Cut(rest, "/")
	if !strings.Contains(hostport, ":") || strings.HasSuffix(hostport, "]") {
		hostport += ":11434"
	}
	if strings.HasPrefix(hostport, "0.0.0.0:") {
		// 0.0.0.0 is where a server listens, not an address to dial.
		hostport = "127.0.0.1" + strings.TrimPrefix(hostport, "0.0.0.0")
	}
	if path == "" {
		path = "v1"
	}
	return scheme + "://" + hostport + "/" + path
}

// Chat resolves req.Model and calls its provider with retries and the timeout.
func (r *Router) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	res, err := r.Resolve(req.Model)
	if err != nil {
		return nil, err
	}
	if res.Kind == "replay" {
		rp, err := r.replay(res)
		if err != nil {
			return nil, err
		}
		resp, err := rp.Chat(ctx, req, onDelta)
		if err == nil && r.opts.Meter != nil {
			r.opts.Meter.Record(req.Role, resp)
		}
		return resp, err
	}
	info := callInfo{provider: res.Provider, kind: res.Kind, model: res.Model, baseURL: res.BaseURL,
		keyEnv: res.APIKeyEnv, role: req.Role, timeout: r.opts.Timeout, maxBytes: r.opts.MaxResponseBytes, stall: r.opts.StallTimeout}
	if req.Role == "" {
		info.role = RoleArchitect
	}
	key := ""
	if res.APIKeyEnv != "" {
		key = r.opts.Env(res.APIKeyEnv)
		if key == "" {
			return nil, &Error{Kind: ErrConfig, Provider: res.Provider, Model: res.Model,
				Msg: res.APIKeyEnv + " is not set",
				Fix: fmt.Sprintf("export it, or pick another provider in %s", info.modelSetting())}
		}
		RememberSecret(key)
		if err := r.checkPlainHTTP(res); err != nil {
			return nil, err
		}
	}
	hc := cappedClient(r.opts.HTTPClient, r.opts.MaxResponseBytes, r.opts.StallTimeout)
	var be backend
	if res.Kind == "anthropic" {
		be = newAnthropicBackend(res.BaseURL, key, hc, r.opts.MaxResponseBytes)
	} else {
		be = newOpenAIBackend(res.BaseURL, key, hc, res.Provider == "openai", r.opts.MaxResponseBytes)
	}

	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, r.opts.Timeout, errCallTimeout)
	defer cancel()

	delivered := false
	emit := func(d Delta) {
		delivered = true
		if onDelta != nil {
			onDelta(d)
		}
	}
	if onDelta == nil {
		emit = nil
	}
	for attempt := 1; ; attempt++ {
		resp, err := be.chat(ctx, req, res.Model, emit)
		if err == nil {
			r.finish(req, resp, time.Since(start))
			return resp, nil
		}
		e := info.classify(ctx, err, delivered)
		e.Attempts = attempt
		if !e.retryable || attempt > r.opts.MaxRetries || ctx.Err() != nil {
			return nil, e
		}
		wait := r.backoff(attempt, e.retryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// Waiting would run into the timeout: report the real cause now.
			return nil, e
		}
		if r.opts.OnRetry != nil {
			r.opts.OnRetry(attempt, e, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, info.classify(ctx, ctx.Err(), delivered)
		case <-t.C:
		}
	}
}

// backoff is the wait before retry n (1-based): exponential from
// RetryBaseDelay with jitter in [d/2, d] so that clients rate-limited
// together do not come back together; a Retry-After the server sent wins
// when longer. Both are capped by MaxRetryDelay.
func (r *Router) backoff(n int, retryAfter time.Duration) time.Duration {
	d := r.opts.RetryBaseDelay << min(n-1, 20)
	if d > r.opts.MaxRetryDelay || d <= 0 {
		d = r.opts.MaxRetryDelay
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	if retryAfter > d {
		d = retryAfter
	}
	return min(d, r.opts.MaxRetryDelay)
}

// finish fills in what every response carries: the full model id, the
// duration, recovered tool calls, estimated usage; and meters it.
func (r *Router) finish(req Request, resp *Response, took time.Duration) {
	resp.Model = req.Model
	resp.Duration = took
	if len(req.Tools) > 0 && len(resp.ToolCalls) == 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		if calls := RecoverToolCalls(resp.Text, names); len(calls) > 0 {
			resp.ToolCalls, resp.RecoveredToolCalls = calls, true
		}
	}
	if resp.Usage.PromptTokens == 0 && resp.Usage.CompletionTokens == 0 {
		resp.Usage = EstimateUsage(req, resp)
	}
	if r.opts.Meter != nil {
		r.opts.Meter.Record(req.Role, resp)
	}
}

func (r *Router) replay(res Resolved) (*Replay, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rp := r.replays[res.Provider]; rp != nil {
		return rp, nil
	}
	path := strings.TrimPrefix(res.BaseURL, "file://")
	rp, err := LoadReplay(path)
	if err != nil {
		return nil, &Error{Kind: ErrConfig, Provider: res.Provider, Model: res.Model, Err: err,
			Msg: "cannot load the cassette: " + oneLine(err.Error()),
			Fix: fmt.Sprintf(`point "baseURL" of provider %q at a cassette file written by model.Recorder`, res.Provider)}
	}
	r.replays[res.Provider] = rp
	return rp, nil
}

// backend is one wire protocol. emit is nil for a non-streamed call.
type backend interface {
	chat(ctx context.Context, req Request, model string, emit func(Delta)) (*Response, error)
}

// EstimateUsage counts about 4 characters a token, marked Estimated, for
// servers that send no usage.
func EstimateUsage(req Request, resp *Response) Usage {
	prompt := len(req.System)
	for _, m := range req.Messages {
		prompt += len(m.Content) + len(m.Role)
		for _, tc := range m.ToolCalls {
			prompt += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		prompt += len(t.Name) + len(t.Description) + len(fmt.Sprint(t.Parameters))
	}
	completion := len(resp.Text)
	for _, tc := range resp.ToolCalls {
		completion += len(tc.Name) + len(tc.Arguments)
	}
	return Usage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (completion + 3) / 4, Estimated: true}
}
