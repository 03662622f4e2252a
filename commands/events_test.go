package commands

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// eventSamples has one event of every kind, as the engine emits them.
var eventSamples = []Event{
	{Event: EvArchitectPass, Data: PassData{Model: "a/b", PromptTokens: 10, CompletionTokens: 2, Ms: 5}},
	{Event: EvEditorPass, Data: EditorPassData{PassData: PassData{Model: "a/b", Estimated: true}, Attempt: 1, Edits: 2, Failed: 1}},
	{Event: EvPlan, Data: PlanData{Plan: "1. do it", Model: "a/b", Cycle: 1, Edited: true}},
	{Event: EvFallback, Data: FallbackData{Kind: "collapse", Reason: "why"}},
	{Event: EvDrift, Data: DriftData{Files: []DriftFile{{Path: "a.go", Kind: "modified", Summary: "+1 -1 lines"}}, OnDrift: "continue", Live: true}},
	{Event: EvProposal, Data: ProposalData{Hunks: []ProposedHunk{{ID: "h1", Path: "a.go", Kind: "edit", Summary: "s"}}, AIComment: true}},
	{Event: EvAccepted, Data: DecisionData{Hunks: []string{"h1"}}},
	{Event: EvStale, Data: DecisionData{Hunks: []string{"h2"}, Reason: "superseded"}},
	{Event: EvError, Data: ErrorData{Message: "refused edit: .env: denied", Path: ".env"}},
	{Event: EvCancelled, Data: CancelledData{Reason: "cancelled by the user"}},
	{Event: EvDone, Data: DoneData{Accepted: intp(1), Rejected: intp(0), Stale: intp(1)}},
	{Event: EvDone, Data: DoneData{Proposed: intp(0), Reason: "no edits"}},
}

// TestEventRoundTrip: every kind's line in a session file decodes back to
// the struct it was written from, and keeps the field names of contract §8.
func TestEventRoundTrip(t *testing.T) {
	for _, ev := range eventSamples {
		ev.Session, ev.Time = "20260101-000000-abcdef", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseEvent(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("%s:\n got %#v\nwant %#v", line, got, ev)
		}
	}
	var m map[string]any
	line, _ := json.Marshal(eventSamples[1])
	_ = json.Unmarshal(line, &m)
	for _, k := range []string{"model", "promptTokens", "completionTokens", "ms", "estimated", "attempt", "edits", "matched", "failed", "alreadyPresent", "event", "session", "time"} {
		if _, ok := m[k]; !ok {
			t.Errorf("editor_pass line lacks %q: %s", k, line)
		}
	}
	if _, err := ParseEvent([]byte(`{"event":"plan","cycle":"one"}`)); err == nil {
		t.Error("a plan event whose cycle is not a number decoded")
	}
	if ev, err := ParseEvent([]byte(`{"event":"custom","x":1}`)); err != nil || ev.Data.(map[string]any)["x"] != 1.0 {
		t.Errorf("an unknown kind: %+v, %v", ev, err)
	}
}

// FuzzParseEvent: any line decodes or is refused, never a panic, and what
// decodes writes back to a line that decodes to the same event.
func FuzzParseEvent(f *testing.F) {
	for _, ev := range eventSamples {
		line, _ := json.Marshal(ev)
		f.Add(line)
	}
	f.Add([]byte(`{"event":"done","proposed":-1}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data)
		if err != nil {
			return
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return // an unknown kind's map may hold what JSON cannot write back
		}
		again, err := ParseEvent(line)
		if err != nil || again.Event != ev.Event || again.Session != ev.Session {
			t.Fatalf("%s → %s → %+v, %v", data, line, again, err)
		}
	})
}
