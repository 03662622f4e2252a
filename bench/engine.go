package bench

import (
	"context"
	"strings"

	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// EngineRun is what driving the engine on one copy gave.
type EngineRun struct {
	Session string
	State   string   // the session's final state (proposed, done, failed, ...)
	Reason  string   // why it failed or did nothing, when it did
	Applied []string // files written
}

// EngineSpec says how to run one task on one copy.
type EngineSpec struct {
	Dir            string // the copy (absolute, symlinks resolved)
	Task           Task
	OneCall        bool
	ArchitectModel string
	EditorModel    string
	Config         config.Config // effective; models are overridden per run
	Model          model.Client
	// StateDir is the run's state folder (apply journal, undo records):
	// the bench's own, inside its throwaway folder, never the user's.
	StateDir string
}

// RunEngine runs a task through app.Open and commands.RunHeadless exactly
// as `aide-lsp run --apply` does: aide.architect (or aide.edit with one call) with the
// task and its focus files, the plan carried straight to the editor, the
// proposed hunks written with commands.ApplyHunks and accepted.
func RunEngine(ctx context.Context, spec EngineSpec) (EngineRun, error) {
	var hc *commands.HeadlessClient
	opened, err := app.Open(app.Options{Roots: []string{spec.Dir}, Config: &spec.Config, Model: spec.Model,
		StateDir: spec.StateDir,
		ClientFor: func(ws *workspace.Workspace) commands.Client {
			hc = commands.NewHeadlessClient(ws, nil)
			return hc
		}})
	if err != nil {
		return EngineRun{}, err
	}
	go opened.BuildIndex(ctx, nil, func(string) {})
	res, err := commands.RunHeadless(ctx, commands.HeadlessOptions{
		Engine: opened.Engine, Client: hc,
		Task: spec.Task.Instruction, Files: spec.Task.Files,
		ArchitectModel: spec.ArchitectModel, EditorModel: spec.EditorModel,
		OneCall: spec.OneCall, Apply: true,
	})
	if err != nil {
		return EngineRun{}, err
	}
	out := EngineRun{Session: res.Session, State: string(res.View.State), Reason: res.Reason, Applied: res.Applied}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	switch {
	case res.Proposed && res.Problem != "":
		out.Reason = res.Problem // the edits could not be written or accepted
	case !res.Proposed && out.Reason == "":
		out.Reason = "no edits proposed"
	}
	out.Reason = strings.Join(strings.Fields(out.Reason), " ")
	if len(out.Reason) > 400 {
		out.Reason = out.Reason[:400] + "…"
	}
	return out, nil
}

// sessionError says whether the engine stopped on an error (model
// unreachable, mistake limit) rather than with a result.
func (r EngineRun) sessionError() bool {
	s := commands.State(r.State)
	return s == commands.StateFailed || s == commands.StateCancelled || s == commands.StateInterrupted
}
