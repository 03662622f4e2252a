package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
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
}

// RunEngine runs a task through commands.Engine exactly as `aide-lsp run
// --apply` does (cmd/aide-lsp/run.go): aide.architect (or aide.edit with
// one call) with the task and its focus files, the plan carried straight to
// the editor, the proposed hunks written with commands.ApplyHunks and
// accepted. run.go keeps this sequence inside its main function; when it is
// moved into a shared function, this becomes a call to it.
func RunEngine(ctx context.Context, spec EngineSpec) (EngineRun, error) {
	cfg := spec.Config
	cfg.ReviewPlan = false // nobody approves a plan in a bench: run carries it on too
	cfg.ArchitectModel, cfg.EditorModel = spec.ArchitectModel, spec.EditorModel
	ws, err := workspace.Open([]string{spec.Dir}, cfg.Deny)
	if err != nil {
		return EngineRun{}, err
	}
	eng, err := commands.NewEngine(commands.Options{
		Workspace: ws, Config: cfg, Model: spec.Model,
		Index: treesitter.NewIndex(spec.Dir, filepath.Join(spec.Dir, ".aide", "cache")),
	})
	if err != nil {
		return EngineRun{}, err
	}
	command := commands.CmdArchitect
	if spec.OneCall {
		command = commands.CmdEdit
	}
	arg, _ := json.Marshal(commands.StartArgs{Task: spec.Task.Instruction, Files: spec.Task.Files,
		ArchitectModel: spec.ArchitectModel, EditorModel: spec.EditorModel})
	res, work, err := eng.Execute(ctx, command, arg)
	if err != nil {
		return EngineRun{}, err
	}
	id := res.(commands.SessionResult).Session
	workErr := work(ctx, nil)
	view, _ := eng.View(id)
	out := EngineRun{Session: id, State: view.State, Reason: view.Reason}
	if workErr != nil && out.Reason == "" {
		out.Reason = workErr.Error()
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if view.State == commands.StateProposed {
		applied, err := commands.ApplyHunks(ws, eng.Pending(id))
		if err != nil {
			out.Reason = "could not write the edits: " + err.Error()
			return out, nil
		}
		out.Applied = applied
		if _, err := eng.Decide(id, nil, true); err != nil {
			out.Reason = err.Error()
		}
		if v, ok := eng.View(id); ok {
			out.State = v.State
		}
	}
	if out.Reason == "" && len(out.Applied) == 0 && view.State != commands.StateProposed {
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
	return r.State == commands.StateFailed || r.State == commands.StateCancelled || r.State == commands.StateInterrupted
}

func (r EngineRun) String() string {
	return fmt.Sprintf("%s %s", r.Session, r.State)
}
