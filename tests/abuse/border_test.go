package abuse_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aide-lsp/aide-lsp/clienttext"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/planview"
)

// borderKey is a key the model read somewhere and streams back in pieces.
const borderKey = "sk-BORDERTEST-lsp-0123456789abcdefghij"

// borderText holds what must never reach an editor as it is: terminal
// controls (set the title, clear the screen, C1 CSI), BEL, bidi and
// zero-width characters, Markdown that fetches, and a key.
const borderText = "Look\x1b]0;pwned\x07 here\x1b[2J \u009b31m\u202eevil\u202c zero\u200bwidth ![t](http://evil.example/i.png) <img src=http://evil.example/j.png> key " + borderKey

// borderName is a file name the model chose: Markdown that fetches.
const borderName = "![t](http:evil.example?x).md"

// exactLSP are the fields that carry, by design, exactly what the user
// reviews or what the editor sends back or opens (clienttext.Exact): an
// edit's newText, URIs, command names and arguments, data. Every other
// string must be clean.
func exactLSP(path []string) bool {
	for _, p := range path {
		if p == "arguments" || p == "data" {
			return true
		}
	}
	switch path[len(path)-1] {
	case "newText", "uri", "oldUri", "newUri", "command":
		return true
	}
	return false
}

func walkJSON(v any, path []string, f func(path []string, s string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			walkJSON(x, append(append([]string(nil), path...), k), f)
		}
	case []any:
		for _, x := range v {
			walkJSON(x, append(append([]string(nil), path...), "*"), f)
		}
	case string:
		f(path, v)
	}
}

type wireTap struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wireTap) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestEveryStringPassesTheLSPBorder drives whole sessions with a hostile
// model through the server and the fake editor, in both deliveries
// (VS Code: applyEdit, events, the virtual plan document; Helix:
// diagnostics, code actions, hover), keeps every message the server sent,
// and walks every string of each: none carries a hidden character, the
// key, or Markdown that fetches outside code, but an edit's newText, URIs
// and what the editor sends back. It lists the message kinds it walked.
func TestEveryStringPassesTheLSPBorder(t *testing.T) {
	plan := "I read m.go. " + borderText + "\n\n## Plan\n1. In m.go, make A return 10. " + borderText + "\n2. Add a note file\n## End Plan\n"
	calls := []model.ToolCall{
		editCall("c1", "m.go", "return 1 }", "return 10 }"),
		writeCall("c2", borderName, "notes\n"),
	}
	kinds := map[string]bool{}
	for _, profile := range []string{"vscode-1.96", "helix-25.1"} {
		t.Run(profile, func(t *testing.T) {
			wire := &wireTap{}
			r := newRig(t, rigOpts{profile: profile, files: map[string]string{"m.go": mGo}, wire: wire,
				replies:      []modeltest.Reply{{Text: plan, ChunkSize: 3}, {ToolCalls: calls}},
				capabilities: func(caps map[string]any) { caps["experimental"] = map[string]any{"aidePlanDocument": true} }})
			r.ed.Open("m.go", mGo)
			id := r.start("aide.architect", map[string]any{"uri": r.ed.URI("m.go"), "task": "make A return 10 " + borderText})
			if st := r.waitSettled(id); st != "proposed" && st != "done" {
				t.Fatalf("state %s", st)
			}
			if profile == "vscode-1.96" {
				r.ed.WaitRequest("workspace/applyEdit", nil)
			} else {
				r.ed.WaitNotification("textDocument/publishDiagnostics", hasDiagnostics)
			}
			var doc json.RawMessage
			if err := r.ed.Call("aide/planDocument", map[string]any{"uri": "aide-plan:/" + id + ".md"}, &doc); err != nil {
				t.Errorf("aide/planDocument: %v", err)
			}
			if profile == "helix-25.1" {
				var actions json.RawMessage
				rng := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 9, "character": 0}}
				_ = r.ed.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": r.ed.URI("m.go")}, "range": rng,
					"context": map[string]any{"diagnostics": []any{}}}, &actions)
				var hover json.RawMessage
				_ = r.ed.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": r.ed.URI("m.go")},
					"position": map[string]any{"line": 3, "character": 2}}, &hover)
			}
			wire.mu.Lock()
			data := append([]byte(nil), wire.buf.Bytes()...)
			wire.mu.Unlock()
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				var msg map[string]any
				if err := json.Unmarshal(line, &msg); err != nil {
					t.Fatalf("not JSON: %v", err)
				}
				kind := "response"
				if m, ok := msg["method"].(string); ok {
					kind = m
				}
				if p, ok := msg["params"].(map[string]any); ok && kind == "aide/sessionEvent" {
					kind += "/" + fmt.Sprint(p["event"])
				}
				kinds[kind] = true
				walkJSON(msg, nil, func(path []string, s string) {
					if exactLSP(path) {
						return
					}
					if i := strings.IndexFunc(s, clienttext.Hidden); i >= 0 {
						t.Errorf("%s %s: hidden %U in %q", kind, strings.Join(path, "."), []rune(s[i:])[0], s)
					}
					if strings.Contains(s, borderKey[:16]) {
						t.Errorf("%s %s: the key in %q", kind, strings.Join(path, "."), s)
					}
					if planview.DefangFetches(s) != s {
						t.Errorf("%s %s: Markdown that fetches in %q", kind, strings.Join(path, "."), s)
					}
				})
			}
		})
	}
	var list []string
	for k := range kinds {
		list = append(list, k)
	}
	sort.Strings(list)
	t.Logf("message kinds walked: %s", strings.Join(list, ", "))
	for _, want := range []string{"aide/sessionEvent/plan", "aide/sessionEvent/proposal", "workspace/applyEdit", "$/progress",
		"textDocument/publishDiagnostics", "aide/planDocumentChanged", "response"} {
		if !kinds[want] {
			t.Errorf("no %s was walked: the sessions did not go where the test meant", want)
		}
	}
}
