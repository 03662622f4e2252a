package commands

import (
	"testing"
)

// TestMoves: the table allows what the turns do and refuses the moves no
// command makes; a refused move leaves the state and says so in the log.
func TestMoves(t *testing.T) {
	for _, m := range [][2]State{
		{StatePlanning, StateWaiting}, {StateWaiting, StateEditing}, {StateEditing, StateProposed},
		{StateProposed, StateDone}, {StatePlanning, StateProposed}, {StateEditing, StatePlanning},
		{StateDone, StatePlanning}, {StateInterrupted, StateCancelled}, {StateWaiting, StateCancelled},
	} {
		if !canMove(m[0], m[1]) {
			t.Errorf("%s → %s refused", m[0], m[1])
		}
	}
	for _, m := range [][2]State{
		{StateDone, StateWaiting}, {StateDone, StateProposed}, {StateWaiting, StateProposed},
		{StateCancelled, StateDone}, {StateFailed, StateProposed}, {StateProposed, StateWaiting},
		{StateWaiting, StateInterrupted},
	} {
		if canMove(m[0], m[1]) {
			t.Errorf("%s → %s allowed", m[0], m[1])
		}
	}
	for from := range knownStates {
		if _, ok := allowedMoves[from]; !ok {
			t.Errorf("no moves listed from %s", from)
		}
	}
	e := &Engine{client: nopClient{}}
	s := &session{id: "x", state: StateDone}
	if err := e.move(s, StateWaiting, func() { t.Error("change ran for a refused move") }); err == nil || s.state != StateDone || len(s.log) != 1 {
		t.Errorf("refused move: err %v, state %s, log %v", err, s.state, s.log)
	}
}
