package commands

import "fmt"

// State is a session's state. Its values are the strings of contract §5
// (the plan document, aide.sessions, the session files): the type only
// keeps other strings out. interrupted is a session found running in
// .aide/sessions when the server started.
type State string

// Session states.
const (
	StatePlanning    State = "planning"
	StateWaiting     State = "waiting for approval"
	StateEditing     State = "editing"
	StateProposed    State = "proposed"
	StateDone        State = "done"
	StateCancelled   State = "cancelled"
	StateFailed      State = "failed"
	StateInterrupted State = "interrupted"
	stateWaiting           = StateWaiting
)

// knownStates are the states a session file may hold.
var knownStates = map[State]bool{
	StatePlanning: true, StateWaiting: true, StateEditing: true, StateProposed: true,
	StateDone: true, StateCancelled: true, StateFailed: true, StateInterrupted: true,
}

// HunkStatus is what became of a proposed hunk; the values are those of
// the session events and the plan document.
type HunkStatus string

// Hunk statuses.
const (
	hunkPending  HunkStatus = "pending"
	hunkAccepted HunkStatus = "accepted"
	hunkRejected HunkStatus = "rejected"
	hunkStale    HunkStatus = "stale"
)

// allowedMoves is every state change a session may make: what move checks.
// A turn starts from any state a command may start one in (re-plan from
// every settled state, approve from waiting); planning may go straight to
// proposed or done when the architect wrote the edits itself (collapse);
// editing goes back to planning when onDrift is "replan"; a cancel or a
// failure can end any turn.
var allowedMoves = map[State][]State{
	StatePlanning:    {StatePlanning, StateWaiting, StateEditing, StateProposed, StateDone, StateFailed, StateCancelled},
	StateWaiting:     {StatePlanning, StateEditing, StateFailed, StateCancelled},
	StateEditing:     {StatePlanning, StateEditing, StateProposed, StateDone, StateFailed, StateCancelled},
	StateProposed:    {StatePlanning, StateEditing, StateDone, StateFailed, StateCancelled},
	StateDone:        {StatePlanning, StateEditing, StateCancelled},
	StateFailed:      {StatePlanning, StateEditing, StateCancelled},
	StateCancelled:   {StatePlanning, StateEditing, StateCancelled},
	StateInterrupted: {StatePlanning, StateEditing, StateFailed, StateCancelled},
}

// canMove reports whether allowedMoves has from → to.
func canMove(from, to State) bool {
	for _, t := range allowedMoves[from] {
		if t == to {
			return true
		}
	}
	return false
}

// move is the one writer of a session's state. Under the session's lock it
// checks from → to against allowedMoves, sets the state and runs change
// (the fields that go with the move, written under the same lock); then,
// always in this order, it emits events (to the session file, then the
// client), saves the state file and writes the plan document. A move the
// table does not have is refused: the state stays, the session log says so,
// and the error is returned (a bug, which the tests of the table catch).
func (e *Engine) move(s *session, to State, change func(), events ...Event) error {
	s.mu.Lock()
	from := s.state
	if !canMove(from, to) {
		s.log = append(s.log, fmt.Sprintf("internal: no move from %s to %s", from, to))
		s.mu.Unlock()
		return fmt.Errorf("session %s: no move from %s to %s", s.id, from, to)
	}
	s.state = to
	if change != nil {
		change()
	}
	s.mu.Unlock()
	for _, ev := range events {
		e.emit(s, ev.Event, ev.Data)
	}
	e.writePlan(s, true)
	return nil
}

// ev is an event for move: its name and payload.
func ev(name string, data any) Event { return Event{Event: name, Data: data} }
