package lsp

import (
	"context"
	"encoding/json"

	"github.com/aide-lsp/aide-lsp/commands"
)

// Progress reports what background work is doing; lsp turns it into
// $/progress "report" notifications under the command's token.
type Progress = commands.Progress

// Engine is what the server needs from the command engine (commands.Engine
// implements it; tests use small fakes).
type Engine interface {
	// Commands lists the command names to register in executeCommandProvider.
	Commands() []string
	// Execute checks a command's argument and returns at once with the
	// command's result. When work is non-nil the server runs it in a
	// goroutine under a $/progress token; its context is cancelled by
	// $/cancelRequest of the executeCommand request, window/workDoneProgress/cancel,
	// shutdown and the connection closing. Execute must never call a model.
	Execute(ctx context.Context, command string, arg json.RawMessage) (result any, work func(ctx context.Context, p Progress) error, err error)
}
