package commands

import (
	"testing"

	"github.com/aide-lsp/aide-lsp/editapply"
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

// TestReviewSetRelocate: the review set lists pending hunks only; a
// re-location judged on an older base loses to one judged on the newer.
func TestReviewSetRelocate(t *testing.T) {
	e := &Engine{client: nopClient{}, sessions: map[string]*session{}}
	s := &session{id: "s1", state: StateProposed, hunks: []*hunkState{
		{hunk: editapply.Hunk{ID: "h1", Start: 0, End: 1}, abs: "/a", base: "v1", status: hunkPending},
		{hunk: editapply.Hunk{ID: "h2"}, abs: "/a", base: "v1", status: hunkAccepted},
	}}
	e.sessions["s1"] = s
	if set := e.ReviewSet("s1"); len(set) != 1 || set[0].Hunk.ID != "h1" || set[0].Base != "v1" {
		t.Fatalf("review set %+v", set)
	}
	e.Relocate("s1", []ReviewHunk{{Hunk: editapply.Hunk{ID: "h1", Start: 5, End: 6}, Abs: "/a", Base: "v2"}}, []string{"v1"})
	e.Relocate("s1", []ReviewHunk{{Hunk: editapply.Hunk{ID: "h1", Start: 9, End: 9}, Abs: "/a", Base: "v2'"}}, []string{"v1"}) // judged on v1 too: too late
	if set := e.ReviewSet("s1"); set[0].Hunk.Start != 5 || set[0].Base != "v2" {
		t.Errorf("after two re-locations from v1: %+v", set[0])
	}
}
