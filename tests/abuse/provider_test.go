package abuse_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

const mGo = "package m\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n"

// good is the one correct editor answer of these tests.
var good = modeltest.Reply{ToolCalls: []model.ToolCall{editCall("call_good", "m.go", "return 1 }", "return 10 }")}}

// TestProviderFaults runs a whole one-call session (aide.edit) through the
// server against each provider fault, on both wires. Whatever the fault,
// the session ends either in a retry that succeeded (exactly the good edit
// is proposed) or in a clear error event, never in a partial proposal; the
// session file stays consistent; the workspace is unchanged; and a later
// session on the same server works.
func TestProviderFaults(t *testing.T) {
	// truncated SSE: the stream stops in the middle of a JSON event, no [DONE]
	// and no message_stop.
	truncatedOpenAI := "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"big\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_t\",\"type\":\"function\",\"function\":{\"name\":\"edit_file\",\"arguments\":\"{\\\"path\\\":\\\"m.go\\\",\\\"old_te"
	truncatedAnthropic := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"big\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"edit_file\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"m.g"
	badArgs := modeltest.Reply{ToolCalls: []model.ToolCall{{ID: "call_bad", Name: "edit_file", Arguments: `{"path": "m.go", "old_text": "return 1 }", "new_text": `}}}

	cases := []struct {
		name    string
		replies func(anthropic bool) []modeltest.Reply
		config  map[string]any
		// mustRecover: the fault is one the server must get past (the
		// good edit is proposed), not merely report.
		mustRecover bool
	}{
		{name: "429 storm", mustRecover: true, replies: func(bool) []modeltest.Reply {
			r := modeltest.Reply{Status: 429, RetryAfter: "0"}
			return []modeltest.Reply{r, r, r, good}
		}},
		{name: "5xx", mustRecover: true, replies: func(bool) []modeltest.Reply {
			return []modeltest.Reply{{Status: 500}, {Status: 503}, {Status: 502}, good}
		}},
		{name: "reset mid-stream", replies: func(bool) []modeltest.Reply {
			r := good
			r.ResetAfterBytes = 300
			return []modeltest.Reply{r, good}
		}},
		{name: "truncated SSE", replies: func(a bool) []modeltest.Reply {
			raw := truncatedOpenAI
			if a {
				raw = truncatedAnthropic
			}
			return []modeltest.Reply{{RawBody: raw}, good}
		}},
		{name: "stalled stream", config: map[string]any{"requestTimeoutSeconds": 1}, replies: func(bool) []modeltest.Reply {
			r := good
			// Far past the 1 s requestTimeoutSeconds; the fake stops
			// stalling as soon as the client hangs up.
			r.Stall = 10 * time.Minute
			return []modeltest.Reply{r}
		}},
		{name: "invalid JSON in tool arguments", mustRecover: true, replies: func(bool) []modeltest.Reply {
			return []modeltest.Reply{badArgs, good}
		}},
		{name: "50 MB response", replies: func(bool) []modeltest.Reply {
			r := good
			r.Text = "Here is a lot of text. "
			r.PadBytes = 50 << 20
			return []modeltest.Reply{r, good}
		}},
	}
	for _, wire := range []string{"openai", "anthropic"} {
		for _, c := range cases {
			t.Run(wire+"/"+c.name, func(t *testing.T) {
				anthropic := wire == "anthropic"
				// Enough replies for any retry policy: the rest of the script
				// is the good answer, so whatever the server retries, it can
				// only ever see the fault and then the good edit.
				replies := append(c.replies(anthropic), good, good, good, good)
				r := newRig(t, rigOpts{files: map[string]string{"m.go": mGo}, replies: replies, anthropic: anthropic, config: c.config})
				before := r.workspaceFiles()
				id := r.start("aide.edit", map[string]any{"uri": r.ed.URI("m.go"), "task": "make A return 10"})
				st := r.waitSettled(id)
				evs := r.checkSessionFile(id)
				checkOutcome(t, r, id, st, evs, c.mustRecover)
				if got := r.workspaceFiles(); fmt.Sprint(got) != fmt.Sprint(before) {
					t.Fatalf("the workspace changed without any accept")
				}

				// The server lives: a later session on the same connection
				// works (the rest of the script is the good answer).
				id2 := r.start("aide.edit", map[string]any{"uri": r.ed.URI("m.go"), "task": "make A return 10"})
				if st2 := r.waitSettled(id2); st2 != "proposed" {
					t.Fatalf("a session after the fault ended %q, want proposed (events %s)", st2, names(r.fileEvents(id2)))
				}
				r.alive()
			})
		}
	}
}

// checkOutcome asserts a faulted session ended in the good proposal or in a
// clear error, and never in a partial one.
func checkOutcome(t *testing.T, r *rig, id, st string, fileEvents []map[string]any, mustRecover bool) {
	t.Helper()
	evs := fileEvents
	props := named(evs, "proposal")
	errs := named(evs, "error")
	switch st {
	case "proposed":
		if len(props) != 1 {
			t.Fatalf("%d proposal events, want 1", len(props))
		}
		hunks, _ := props[0]["hunks"].([]any)
		if len(hunks) != 1 || hunks[0].(map[string]any)["path"] != "m.go" {
			t.Fatalf("proposal is not exactly the good edit: %v", props[0])
		}
	case "failed":
		if mustRecover {
			t.Fatalf("the session failed on a fault the server must retry past: %v", errs)
		}
		if len(props) != 0 {
			t.Fatalf("a failed session proposed: %v", props)
		}
		if len(errs) == 0 {
			t.Fatal("failed without an error event")
		}
		msg, _ := errs[len(errs)-1]["message"].(string)
		if len(strings.TrimSpace(msg)) < 10 {
			t.Fatalf("error event without a clear message: %v", errs[len(errs)-1])
		}
		t.Logf("clear error: %s", msg)
	default:
		t.Fatalf("session ended in state %q; want proposed or failed (events %v)", st, names(evs))
	}
}

func names(evs []map[string]any) string {
	var out []string
	for _, e := range evs {
		out = append(out, fmt.Sprint(e["event"]))
	}
	return strings.Join(out, ",")
}
