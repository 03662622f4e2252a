package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Command is one command of contract §4 as every front end sees it. The
// table (Table) is the one list: it feeds Execute, the titles of code
// actions and progress, Commands() and contract §4's table (a test reads
// the contract against it).
type Command struct {
	Name string
	// Title names the command in menus (the code action that runs it).
	Title string
	// Progress titles its background work ($/progress begin).
	Progress string
	// Arg and Result are zero values of its argument and result structs;
	// ArgShape writes them as contract §4 does (and table_test.go the results).
	Arg, Result any
	// Async: the command returns work that runs in the background.
	Async bool

	run func(e *Engine, ctx context.Context, arg any) (any, Work, error)
}

// Titles of the code actions that run commands (contract §4, §5).
const (
	TitleArchitect   = "AIDE: Architect → Editor"
	TitleEdit        = "AIDE: Edit (one call)"
	TitleApprovePlan = "AIDE: Approve the plan (run the editor)"
	TitleReplan      = "AIDE: Re-plan"
	TitleDiscard     = "AIDE: Discard this session"
)

// The arguments and results of the commands (contract §4). Fields tagged
// aide:"internal" are the CLI's, not the contract's.

// SessionArg names a session (aide.cancel, aide.showPlan).
type SessionArg struct {
	Session string `json:"session"`
}

// ApproveArgs is the argument of aide.approvePlan.
type ApproveArgs struct {
	Session string `json:"session"`
	// EditorModel carries the plan out with this model instead
	// ("Approve with <model>").
	EditorModel string `json:"editorModel,omitempty"`
}

// ReplanArgs is the argument of aide.replan.
type ReplanArgs struct {
	Session  string `json:"session"`
	Feedback string `json:"feedback,omitempty"`
}

// AcceptArgs is the argument of aide.accept (all pending hunks when Hunks
// is empty).
type AcceptArgs struct {
	Session string   `json:"session"`
	Hunks   []string `json:"hunks,omitempty"`
}

// RejectArgs is the argument of aide.reject; Reason is told to the
// architect on the next re-plan.
type RejectArgs struct {
	Session string   `json:"session"`
	Hunks   []string `json:"hunks,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// RerunArgs is the argument of aide.rerunHunk: stale hunks to make again.
type RerunArgs struct {
	Session string   `json:"session"`
	Hunks   []string `json:"hunks"`
}

// NoArgs is the argument of the commands that take none.
type NoArgs struct{}

// AcceptResult is the reply of aide.accept.
type AcceptResult struct {
	Accepted []string `json:"accepted"`
}

// RejectResult is the reply of aide.reject.
type RejectResult struct {
	Rejected []string `json:"rejected"`
}

// ShowPlanResult is the reply of aide.showPlan.
type ShowPlanResult struct {
	URI string `json:"uri"`
}

// SessionsResult is the reply of aide.sessions.
type SessionsResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// Table is every command, in the order of contract §4.
var Table = []Command{
	{Name: CmdArchitect, Title: TitleArchitect, Progress: TitleArchitect, Arg: StartArgs{}, Result: SessionResult{}, Async: true,
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) {
			return e.startTurn(a.(*StartArgs), false)
		}},
	{Name: CmdEdit, Title: TitleEdit, Progress: TitleEdit, Arg: StartArgs{}, Result: SessionResult{}, Async: true,
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) { return e.startTurn(a.(*StartArgs), true) }},
	{Name: CmdApprovePlan, Title: TitleApprovePlan, Progress: "AIDE: carrying out the plan", Arg: ApproveArgs{}, Result: SessionResult{}, Async: true,
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) { return e.approve(a.(*ApproveArgs)) }},
	{Name: CmdReplan, Title: TitleReplan, Progress: "AIDE: re-planning", Arg: ReplanArgs{}, Result: SessionResult{}, Async: true,
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) { return e.replan(a.(*ReplanArgs)) }},
	{Name: CmdAccept, Title: "AIDE: accept", Arg: AcceptArgs{}, Result: AcceptResult{},
		run: func(e *Engine, ctx context.Context, a any) (any, Work, error) {
			arg := a.(*AcceptArgs)
			s, err := e.session(arg.Session)
			if err != nil {
				return nil, nil, err
			}
			ids, err := e.accept(ctx, s, arg.Hunks)
			return AcceptResult{Accepted: ids}, nil, err
		}},
	{Name: CmdReject, Title: "AIDE: reject", Arg: RejectArgs{}, Result: RejectResult{},
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) {
			arg := a.(*RejectArgs)
			s, err := e.session(arg.Session)
			if err != nil {
				return nil, nil, err
			}
			ids, err := e.reject(s, arg.Hunks, arg.Reason)
			return RejectResult{Rejected: ids}, nil, err
		}},
	{Name: CmdRerunHunk, Title: "AIDE: Re-run the editor", Progress: "AIDE: re-running the editor", Arg: RerunArgs{}, Result: SessionResult{}, Async: true,
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) { return e.rerun(a.(*RerunArgs)) }},
	{Name: CmdCancel, Title: TitleDiscard, Arg: SessionArg{}, Result: SessionResult{},
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) {
			s, err := e.session(a.(*SessionArg).Session)
			if err != nil {
				return nil, nil, err
			}
			e.cancel(s, "cancelled by the user")
			return SessionResult{s.id}, nil, nil
		}},
	{Name: CmdShowPlan, Title: "AIDE: Show the plan", Arg: SessionArg{}, Result: ShowPlanResult{},
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) {
			s, err := e.session(a.(*SessionArg).Session)
			if err != nil {
				return nil, nil, err
			}
			return ShowPlanResult{URI: fileURI(s.planPath)}, nil, nil
		}},
	{Name: CmdSessions, Title: "AIDE: Sessions", Arg: NoArgs{}, Result: SessionsResult{},
		run: func(e *Engine, _ context.Context, _ any) (any, Work, error) {
			return SessionsResult{Sessions: e.Sessions()}, nil, nil
		}},
	{Name: CmdCost, Title: "AIDE: Cost", Arg: NoArgs{}, Result: CostResult{},
		run: func(e *Engine, _ context.Context, _ any) (any, Work, error) {
			return e.Cost(), nil, nil
		}},
	{Name: CmdUndo, Title: "AIDE: Undo", Progress: "AIDE: undoing", Arg: UndoArgs{}, Result: UndoResult{},
		run: func(e *Engine, _ context.Context, a any) (any, Work, error) { return e.startUndo(*a.(*UndoArgs)) }},
}

// Lookup finds a command of the table.
func Lookup(name string) (Command, bool) {
	for _, c := range Table {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// NeedsArg reports whether the command needs an argument (one with fields).
func (c Command) NeedsArg() bool { return reflect.TypeOf(c.Arg).NumField() > 0 }

// ArgShape is the argument as contract §4 writes it: "{session, hunks?}".
func (c Command) ArgShape() string { return shape(reflect.TypeOf(c.Arg), false) }

// shape writes a struct's JSON fields, "?" after the optional ones, lists
// of structs in full; in a result a list of strings (hunk ids) is "[ids]".
func shape(t reflect.Type, result bool) string {
	switch t.Kind() {
	case reflect.Pointer:
		return shape(t.Elem(), result)
	case reflect.Slice:
		if inner := shape(t.Elem(), result); inner != "" {
			return "[" + inner + "]"
		}
		if result && t.Elem().Kind() == reflect.String {
			return "[ids]"
		}
		return ""
	case reflect.Struct:
	default:
		return ""
	}
	var parts []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" || f.Tag.Get("aide") == "internal" {
			continue
		}
		if f.Anonymous && name == "" {
			inner := shape(f.Type, result)
			parts = append(parts, strings.TrimSuffix(strings.TrimPrefix(inner, "{"), "}"))
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") || f.Type.Kind() == reflect.Pointer {
			name += "?"
		}
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
			if inner := shape(f.Type, result); inner != "" && f.Type.Kind() == reflect.Slice {
				name += ": " + inner
			}
		}
		parts = append(parts, name)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// decodeArg reads a command's one JSON object argument into a new value
// of its argument struct.
func (c Command) decodeArg(arg json.RawMessage) (any, error) {
	v := reflect.New(reflect.TypeOf(c.Arg)).Interface()
	if len(strings.TrimSpace(string(arg))) == 0 || string(arg) == "null" {
		arg = json.RawMessage("{}")
	}
	if err := json.Unmarshal(arg, v); err != nil {
		return nil, fmt.Errorf("%s: the argument must be one JSON object (%v)", c.Name, err)
	}
	return v, nil
}
