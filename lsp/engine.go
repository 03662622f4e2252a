package lsp

import (
	"context"
	"encoding/json"

	"github.com/aide-lsp/aide-lsp/commands"
)

// Progress reports what background work is doing; lsp turns it into
// $/progress "report" notifications under the command's token.
type Progress = commands.Progress

// Engine is everything the server calls of the command engine
// (commands.Engine implements it; UnavailableEngine answers every call
// with nothing). lsp translates: the engine decides (docs/architecture.md,
// "The boundary"). None of these is called on the read loop.
type Engine interface {
	// Commands lists the command names to register in executeCommandProvider.
	Commands() []string
	// Execute checks a command's argument and returns at once with the
	// command's result. When work is non-nil the server runs it in a
	// goroutine under a $/progress token; its context is cancelled by
	// $/cancelRequest of the executeCommand request, window/workDoneProgress/cancel,
	// shutdown and the connection closing. Execute must never call a model.
	Execute(ctx context.Context, command string, arg json.RawMessage) (result any, work func(ctx context.Context, p Progress) error, err error)
	// View is a session as the plan-document actions, aide/planDocument
	// and the end of a command's progress show it.
	View(session string) (commands.View, bool)
	// SessionForPlanFile finds the session whose plan file is at abs.
	SessionForPlanFile(abs string) (string, bool)
	// DocumentsChanged judges the hunks under review in changed documents
	// and returns every session's pending hunks, which the server shows.
	DocumentsChanged(ctx context.Context, changes []commands.DocChange) []commands.SessionReview
	// Delivered is the editor's answer to the edit a proposal went out in.
	Delivered(session string, ids []string, applied bool, err error)
	// Stale withdraws hunks that can no longer be offered (their path is
	// refused now).
	Stale(session string, ids []string, reason string) ([]string, error)
}

// eng is the connection's engine (a placeholder before initialize).
func (s *Server) eng() Engine {
	s.offReadLoop("the engine")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine == nil {
		return UnavailableEngine("")
	}
	return s.engine
}
