package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aide-lsp/aide-lsp/planview"
)

// Event kinds (contract §8).
const (
	EvArchitectPass = "architect_pass"
	EvPlan          = "plan"
	EvEditorPass    = "editor_pass"
	EvFallback      = "fallback"
	EvDrift         = "drift"
	EvProposal      = "proposal"
	EvAccepted      = "accepted"
	EvRejected      = "rejected"
	EvStale         = "stale"
	EvError         = "error"
	EvCancelled     = "cancelled"
	EvDone          = "done"
	EvNotes         = "notes"
	EvUndone        = "undone"
	EvUndoConflict  = "undo_conflict"
	EvVerify        = "verify" // one verification command's result (VerifyData, verify.go)
)

// The payload of each event kind: one struct per kind, whose fields sit
// beside session, event and time on the wire and in the session files.
// Event.Data holds one of them (a pointer is never used), and ParseEvent
// decodes an event back into the struct of its kind: the one decoder of
// lsp, the CLI, the headless run and the bench.

// PassData is an architect_pass: one metered model call.
type PassData struct {
	Model            string `json:"model"`
	PromptTokens     int    `json:"promptTokens"`
	CompletionTokens int    `json:"completionTokens"`
	Ms               int64  `json:"ms"`
	Estimated        bool   `json:"estimated,omitempty"` // the provider sent no usage: counted from the text
}

// EditorPassData is an editor_pass: a metered call and what its edits did.
type EditorPassData struct {
	PassData
	Attempt        int `json:"attempt"`
	Edits          int `json:"edits"`
	Matched        int `json:"matched"`
	Failed         int `json:"failed"`
	AlreadyPresent int `json:"alreadyPresent"`
}

// PlanData is a plan: the architect's (or the user's edited) plan.
type PlanData struct {
	Plan      string `json:"plan"`
	Model     string `json:"model"`
	Cycle     int    `json:"cycle"`
	Truncated bool   `json:"truncated"`
	Edited    bool   `json:"edited,omitempty"` // the user edited it in the plan document
}

// FallbackData is a fallback: which one and why.
type FallbackData struct {
	Kind   string `json:"kind"` // collapse, one_call, cycle_cap, editor_switch, retry, rederive
	Reason string `json:"reason"`
}

// DriftFile is one drifted file of a drift event.
type DriftFile struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
}

// DriftData is a drift: the files that changed since the plan.
type DriftData struct {
	Files   []DriftFile `json:"files"`
	OnDrift string      `json:"onDrift"`
	Live    bool        `json:"live,omitempty"` // seen while the plan waited or the editor ran
}

// ProposedHunk is one hunk of a proposal event.
type ProposedHunk struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	// Step is the number of the plan step the hunk carries out; null when
	// none (or no plan). NotInPlan marks such a hunk when the editor named
	// the steps of the others: a change the plan did not ask for.
	Step      *int `json:"step"`
	NotInPlan bool `json:"notInPlan,omitempty"`
}

// ProposalData is a proposal: the hunks put up for review.
type ProposalData struct {
	Hunks     []ProposedHunk `json:"hunks"`
	AIComment bool           `json:"aiComment,omitempty"` // the removal of the AI comment the task came from
	// StepsWithoutHunks are the plan's steps no hunk carries out (when the
	// editor named steps at all).
	StepsWithoutHunks []int `json:"stepsWithoutHunks,omitempty"`
}

// DecisionData is accepted, rejected or stale: the hunks decided.
type DecisionData struct {
	Hunks  []string `json:"hunks"`
	Reason string   `json:"reason,omitempty"`
}

// NotesData is notes: what the user wrote in the plan document for a
// re-plan (the "## Notes" section and "Note:" lines under steps), sent to
// the architect as written.
type NotesData struct {
	Notes string              `json:"notes,omitempty"`
	Steps []planview.StepNote `json:"steps,omitempty"`
}

// ErrorData is an error: what went wrong, and the path when it is a file's.
type ErrorData struct {
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

// CancelledData is cancelled: why.
type CancelledData struct {
	Reason string `json:"reason"`
}

// DoneData is done: either nothing was proposed (Proposed 0, with the
// reason) or every hunk was decided (the counts).
type DoneData struct {
	Proposed *int   `json:"proposed,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Accepted *int   `json:"accepted,omitempty"`
	Rejected *int   `json:"rejected,omitempty"`
	Stale    *int   `json:"stale,omitempty"`
}

// newData is the empty payload of an event kind (nil: not a kind of §8).
func newData(kind string) any {
	switch kind {
	case EvArchitectPass:
		return &PassData{}
	case EvEditorPass:
		return &EditorPassData{}
	case EvPlan:
		return &PlanData{}
	case EvFallback:
		return &FallbackData{}
	case EvDrift:
		return &DriftData{}
	case EvProposal:
		return &ProposalData{}
	case EvAccepted, EvRejected, EvStale:
		return &DecisionData{}
	case EvError:
		return &ErrorData{}
	case EvCancelled:
		return &CancelledData{}
	case EvDone:
		return &DoneData{}
	case EvNotes:
		return &NotesData{}
	case EvUndone:
		return &UndoneData{}
	case EvUndoConflict:
		return &UndoConflictData{}
	case EvVerify:
		return &VerifyData{}
	}
	return nil
}

// ParseEvent decodes one event (a line of .aide/sessions/<session>.jsonl,
// or the params of aide/sessionEvent): Data is the struct of its kind (by
// value: PlanData, DriftData, …), or, for a kind contract §8 does not
// list, the fields as a map.
func ParseEvent(data []byte) (Event, error) {
	var head struct {
		Session string    `json:"session"`
		Event   string    `json:"event"`
		Time    time.Time `json:"time"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Event{}, fmt.Errorf("not a session event: %v", err)
	}
	if head.Event == "" {
		return Event{}, errors.New("not a session event: no \"event\"")
	}
	ev := Event{Session: head.Session, Event: head.Event, Time: head.Time}
	if p := newData(head.Event); p != nil {
		if err := json.Unmarshal(data, p); err != nil {
			return Event{}, fmt.Errorf("%s event: %v", head.Event, err)
		}
		ev.Data = deref(p)
		return ev, nil
	}
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	delete(m, "session")
	delete(m, "event")
	delete(m, "time")
	ev.Data = m
	return ev, nil
}

func deref(p any) any {
	switch x := p.(type) {
	case *PassData:
		return *x
	case *EditorPassData:
		return *x
	case *PlanData:
		return *x
	case *FallbackData:
		return *x
	case *DriftData:
		return *x
	case *ProposalData:
		return *x
	case *DecisionData:
		return *x
	case *ErrorData:
		return *x
	case *CancelledData:
		return *x
	case *DoneData:
		return *x
	case *NotesData:
		return *x
	case *VerifyData:
		return *x
	}
	return p
}

// Reason is the reason an event gives, when it gives one (a fallback's, a
// decision's, a cancel's, an error's message, a done's).
func (e Event) Reason() string {
	switch d := e.Data.(type) {
	case FallbackData:
		return d.Reason
	case DecisionData:
		return d.Reason
	case CancelledData:
		return d.Reason
	case ErrorData:
		return d.Message
	case DoneData:
		return d.Reason
	}
	return ""
}

// MarshalJSON flattens Data beside session, event and time.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if e.Data != nil {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("event %s: its data is not an object", e.Event)
		}
	}
	m["session"] = e.Session
	m["event"] = e.Event
	m["time"] = e.Time.UTC().Format(time.RFC3339Nano)
	return json.Marshal(m)
}

func intp(n int) *int { return &n }

// emit appends an event to the session file and then hands it to the
// client; data is the payload struct of the event's kind (events.go).
func (e *Engine) emit(s *session, name string, data any) {
	ev := Event{Session: s.id, Event: name, Time: e.now(), Data: data}
	s.evMu.Lock()
	defer s.evMu.Unlock()
	kept := ev
	if v, ok := data.(VerifyData); ok {
		// A verification's output is text the model's code wrote: it
		// goes to the editor, never into the workspace's files
		// (contract §2 "Running what we did not write").
		v.Output = ""
		kept.Data = v
	}
	line, err := json.Marshal(kept)
	if err == nil {
		err = e.appendPrivate(s.eventPath, line)
	}
	if err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: could not write the session file %s: %v", s.eventPath, err))
	}
	e.client.SessionEvent(ev)
}
