// Package commands is the engine: the aide.* commands and the session that
// runs architect → plan → editor → proposals, with every fallback. It does not
// know which editor is on the other end: it hands events, plan documents and
// finished proposals to a Client (lsp/, or the CLI's headless client).
package commands

import (
	"time"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Command names of contract §4.
const (
	CmdArchitect   = "aide.architect"
	CmdEdit        = "aide.edit"
	CmdApprovePlan = "aide.approvePlan"
	CmdReplan      = "aide.replan"
	CmdAccept      = "aide.accept"
	CmdReject      = "aide.reject"
	CmdCancel      = "aide.cancel"
	CmdShowPlan    = "aide.showPlan"
	CmdSessions    = "aide.sessions"
	CmdCost        = "aide.cost"
	// CmdRerunHunk re-runs the editor for stale hunks (the user edited
	// their lines) against the current content: {session, hunks}.
	CmdRerunHunk = "aide.rerunHunk"
	// CmdUndo undoes a session's accepted hunks: {session, hunks?, apply?}
	// (undo.go).
	CmdUndo = "aide.undo"
)

// AllCommands lists every command, in the order of contract §4.
var AllCommands = []string{CmdArchitect, CmdEdit, CmdApprovePlan, CmdReplan, CmdAccept,
	CmdReject, CmdCancel, CmdShowPlan, CmdSessions, CmdCost, CmdRerunHunk, CmdUndo}

// Event is one session event (contract §8): aide/sessionEvent and one JSON
// line of .aide/sessions/<session>.jsonl. Data is the payload struct of
// its kind (events.go), flattened beside session, event and time.
type Event struct {
	Session string
	Event   string // architect_pass, plan, editor_pass, fallback, drift, proposal, accepted, rejected, stale, error, cancelled, done
	Time    time.Time
	Data    any
}

// PlanDoc is a session's plan document. Path is the absolute path of the
// file form (.aide/plans/<session>.md), already written when the Client hears
// of it; Version grows with every change.
type PlanDoc struct {
	Session string
	Path    string
	Version int
	Text    string
	// State is the session's state the text shows (StatePlanning, …).
	State State
	// LatestPath, when set, is the workspace's stable plan path
	// (.aide/plans/latest.md, contract §5) that was written with the same
	// text: this session is the newest.
	LatestPath string
}

// LatestPlanName is the file name of the stable plan path in .aide/plans:
// it always holds the plan document of the newest session (contract §5),
// so an editor can keep one buffer or key binding for "the plan".
const LatestPlanName = "latest.md"

// Proposal is a set of finished hunks of one session, ready for review.
type Proposal struct {
	Session string
	Task    string
	Hunks   []editapply.Hunk
	// Labels name each hunk's plan step ("step 2", "not in the plan") for
	// its diagnostic and change annotation; no entry: nothing to show.
	Labels map[string]string
}

// Progress reports what a running command is doing ("architect: planning
// (412 tokens)"). The caller ends the progress when the work returns.
type Progress interface {
	Report(message string)
}

// Client is what the engine needs from the editor side.
type Client interface {
	// SessionEvent publishes an event that is already in the session file.
	// It is called in event order with the session's event lock held: it
	// must not call back into the engine (send the notification and return).
	SessionEvent(ev Event)
	// ShowPlan is called once per session when its plan document first
	// exists: show it (virtual form, showDocument, or a message with its path).
	ShowPlan(doc PlanDoc)
	// PlanChanged is called on every later change of the plan document,
	// also while the plan streams in.
	PlanChanged(doc PlanDoc)
	// Propose delivers proposals; decisions come back through the engine's
	// Decide method (or aide.accept / aide.reject), Stale for hunks that no
	// longer apply. No engine lock is held: Propose may call Decide itself.
	Propose(p Proposal)
	// Message shows a message to the user; level is "error", "warning" or "info".
	Message(level, text string)
}
