// Package commands is the engine: the aide.* commands and the session that
// runs architect → plan → editor → proposals, with every fallback. It does not
// know which editor is on the other end: it hands events, plan documents and
// finished proposals to a Client (lsp/, or the CLI's headless client).
package commands

import (
	"context"
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

// AllCommands lists every command, in the order of contract §4 (the
// command table's).
var AllCommands = tableNames()

func tableNames() []string {
	out := make([]string, len(Table))
	for i, c := range Table {
		out[i] = c.Name
	}
	return out
}

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
	// InPlace: offer the hunks in place; otherwise send them as one edit
	// (ReviewAsEdit). The engine chooses from Client.Delivery, and offers
	// in place what the editor refused too often or could not take.
	InPlace bool
}

// Progress reports what a running command is doing ("architect: planning
// (412 tokens)"). The caller ends the progress when the work returns.
type Progress interface {
	Report(message string)
}

// Delivery is how a client reviews a proposal (Client.Delivery).
type Delivery int

const (
	// ReviewInPlace: the hunks are offered where they apply (a diagnostic
	// and accept/reject code actions each, or nothing at all for a client
	// with no editor); decisions come from the documents
	// (Engine.DocumentsChanged), aide.accept and aide.reject.
	ReviewInPlace Delivery = iota
	// ReviewAsEdit: the hunks went out in one edit the editor answers
	// later (VS Code's Refactor Preview); the client reports the answer
	// with Engine.Delivered.
	ReviewAsEdit
)

// Client is what the engine needs from the editor side: everything the
// engine calls, and nothing else (docs/architecture.md, "The boundary").
// The engine calls it from command work, from Delivered and from
// DocumentsChanged, never while it holds a session's lock, and an
// implementation never calls back into the engine from these methods:
// the engine's answers reach lsp as return values.
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
	// Delivery is how the client reviews proposals now (its editor and
	// configuration may change): asked before each Propose, so the
	// engine's review set says how its hunks are shown before they are.
	Delivery() Delivery
	// Propose puts a proposal up for review and returns at once. ctx is
	// the proposal's: it ends when the session moves on (cancel, re-plan,
	// every hunk decided); an edit still out then is abandoned (what the
	// user applies of it afterwards is judged from the documents like any
	// edit of theirs). p.InPlace says how: in place, or as an edit whose
	// answer the client reports with Engine.Delivered.
	Propose(ctx context.Context, p Proposal)
	// Message shows a message to the user; level is "error", "warning" or "info".
	Message(level, text string)
	// ApplyHunks applies accepted hunks (aide.accept): in the editor, or on
	// disk for a client without one. It returns when they are applied or
	// refused; written lists the hunks the client itself wrote to disk
	// (known to have landed). Which of the others landed the engine reads
	// from the documents: an editor may apply some and decline others.
	ApplyHunks(ctx context.Context, session, task string, hunks []editapply.Hunk) (written []string, err error)
	// PlanBuffer is the client's text of the plan file at path: its open
	// buffer, unsaved edits included; open is false when it holds none (a
	// client without buffers always answers "", false). It reports a fact
	// and decides nothing: what the text means (an edit of the user's, or
	// a text the engine wrote that the editor has not re-read) is the
	// engine's rule, the same for every front end (planbuffer.go).
	PlanBuffer(path string) (text string, open bool)
}

// ReviewHunk is one hunk of a session's review set: the hunk, its file's
// absolute path, and the content its offsets are expressed against (the
// document when it was proposed, or when it was last re-located).
type ReviewHunk struct {
	Hunk editapply.Hunk
	Abs  string
	Base string
}

// SessionReview is a session's pending hunks as the client shows them.
type SessionReview struct {
	Session string
	Task    string
	// InPlace: the hunks are offered in place (diagnostics and code
	// actions); otherwise they are out in an edit, or nothing is shown.
	InPlace bool
	Hunks   []ReviewHunk
	// Labels name each hunk's plan step ("step 2", "not in the plan").
	Labels map[string]string
}

// DocChange is one changed document or file: its path (absolute or
// workspace-relative). Its new content is read through the workspace
// (open buffers over the disk).
type DocChange struct {
	Path string
	// Disk: the file changed on disk (the watcher), not in a buffer. It
	// is told to the live drift of waiting plans only: a file being
	// written can be read half-way, so hunks are judged on the documents'
	// changes (and on the editor's answers), never on a disk event.
	Disk bool
}
