package lsp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
)

// Background work the user waits on without having asked for it (the
// repository index, built when a workspace opens) is reported as
// server-initiated work-done progress (contract §5): a begin with a
// title, reports with a message and a percentage, an end. A client
// without window.workDoneProgress gets none of it.

// BackgroundProgress is one such report; its methods are safe to call
// from any goroutine, and do nothing once End was called or when the
// client takes no progress.
type BackgroundProgress struct {
	s     *Server
	mu    sync.Mutex
	token json.RawMessage // nil: no progress notifications
}

type backgroundValue struct {
	Kind       string `json:"kind"`
	Title      string `json:"title,omitzero"`
	Message    string `json:"message,omitzero"`
	Percentage *int   `json:"percentage,omitzero"`
}

// BeginProgress creates a progress token (window/workDoneProgress/create)
// and sends the begin with title; it returns nil-safe reporting methods.
func (s *Server) BeginProgress(ctx context.Context, title string) *BackgroundProgress {
	p := &BackgroundProgress{s: s}
	if !s.Profile().WorkDoneProgress {
		return p
	}
	s.mu.Lock()
	s.nextToken++
	token := json.RawMessage(strconv.Quote("aide/bg/" + strconv.Itoa(s.nextToken)))
	s.mu.Unlock()
	if err := s.call(ctx, "window/workDoneProgress/create", workDoneProgressCreateParams{Token: token}, nil); err != nil {
		s.log.Debug("progress token refused; running without progress", "err", err)
		return p
	}
	p.token = token
	zero := 0
	s.notify("$/progress", progressParams{Token: token, Value: backgroundValue{Kind: "begin", Title: title, Percentage: &zero}})
	return p
}

// Report sends a report: message and percentage (0–100).
func (p *BackgroundProgress) Report(message string, percentage int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.token == nil {
		return
	}
	pct := min(max(percentage, 0), 100)
	p.s.notify("$/progress", progressParams{Token: p.token, Value: backgroundValue{Kind: "report", Message: message, Percentage: &pct}})
}

// End sends the end with message; later calls do nothing.
func (p *BackgroundProgress) End(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.token == nil {
		return
	}
	p.s.notify("$/progress", progressParams{Token: p.token, Value: backgroundValue{Kind: "end", Message: message}})
	p.token = nil
}
