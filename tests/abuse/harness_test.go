// Package abuse_test holds the fault, abuse and hostile-input tests of
// Whole sessions through the real server (lsp.NewSetup, the same
// wiring as `aide-lsp serve`) driven by the fake editor over net.Pipe, with
// wire-level model fakes injecting provider faults; the real binary for the
// crash/restart and secrets tests. Every test is bounded by a hang guard and
// asserts behaviour, never timing.
package abuse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// hangGuard bounds every wait of these tests. It never decides a pass: a
// broken test fails after it instead of hanging CI.
const hangGuard = 90 * time.Second

// rig is one server over the fake editor, with a workspace inside a parent
// temp folder whose sibling "outside" must never change.
type rig struct {
	t       *testing.T
	ed      *fakeeditor.Editor
	fake    *modeltest.Server
	root    string
	outside string
	before  map[string]string // the outside folder at start
}

type rigOpts struct {
	files   map[string]string
	replies []modeltest.Reply
	// anthropic puts the model on the Anthropic wire (default OpenAI).
	anthropic bool
	// config is merged into the initializationOptions.
	config map[string]any
	// env is the server's environment (keys); base URLs come from config.
	env map[string]string
	// configuration answers workspace/configuration (nil: null).
	configuration func(section string) any
	// profile of the fake editor; default helix-25.1, whose codeActions
	// delivery applies nothing until the user accepts, so the workspace
	// stays as it was whatever the session did.
	profile string
	// wire receives every message the server sent (fakeeditor.Options.Wire).
	wire io.Writer
	// capabilities edits the profile's capabilities (fakeeditor.Options).
	capabilities func(caps map[string]any)
}

func newRig(t *testing.T, o rigOpts) *rig {
	t.Helper()
	parent := t.TempDir()
	r := &rig{t: t, root: filepath.Join(parent, "ws"), outside: filepath.Join(parent, "outside")}
	for _, d := range []string{r.root, r.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, r.outside, "victim.txt", "do not touch\n")
	for p, c := range o.files {
		writeFile(t, r.root, p, c)
	}
	r.before = snapshot(t, r.outside)
	kind := "openai"
	if o.anthropic {
		kind = "anthropic"
		r.fake = modeltest.NewAnthropic(t, o.replies...)
	} else {
		r.fake = modeltest.NewOpenAI(t, o.replies...)
	}
	cfg := map[string]any{
		"providers":             map[string]any{"fake": map[string]any{"kind": kind, "baseURL": r.fake.BaseURL(), "apiKeyEnv": "FAKE_KEY"}},
		"architectModel":        "fake/big",
		"editorModel":           "fake/big",
		"reviewPlan":            false,
		"requestTimeoutSeconds": 60,
	}
	for k, v := range o.config {
		cfg[k] = v
	}
	env := map[string]string{"FAKE_KEY": "fake-key"}
	for k, v := range o.env {
		env[k] = v
	}
	userReview(t, parent, env, cfg)
	profile := o.profile
	if profile == "" {
		profile = "helix-25.1"
	}
	r.ed = fakeeditor.Start(t, fakeeditor.Options{
		Profile:      profile,
		Wire:         o.wire,
		Capabilities: o.capabilities,
		Roots:        []string{r.root},
		Server: lsp.Options{Version: "abuse", Setup: lsp.NewSetup(lsp.SetupOptions{
			Env: func(k string) string { return env[k] },
			// A millisecond backoff: the retry path is the same, the test
			// does not sit through real rate-limit waits.
			RetryBaseDelay: time.Millisecond,
		})},
		InitializationOptions: cfg,
		Configuration:         o.configuration,
		Timeout:               hangGuard,
	})
	t.Cleanup(r.checkOutside)
	// Let the server's first workspace/configuration request be answered
	// before the test writes: the fake editor answers server requests on
	// its reading goroutine, and the server's reader may be writing a log
	// line at the same moment (a reader that
	// writes can deadlock against a client that does the same).
	r.ed.WaitRequest("workspace/configuration", nil)
	r.state("none")
	return r
}

// checkOutside fails the test when anything in the sibling folder changed.
func (r *rig) checkOutside() {
	after := snapshot(r.t, r.outside)
	if len(after) != len(r.before) {
		r.t.Errorf("the folder beside the workspace changed: %v -> %v", keys(r.before), keys(after))
	}
	for p, c := range r.before {
		if after[p] != c {
			r.t.Errorf("%s beside the workspace changed", p)
		}
	}
}

// start runs a command that starts a session and returns the session id.
func (r *rig) start(command string, arg map[string]any) string {
	r.t.Helper()
	res, _, err := r.ed.ExecuteCommand(command, arg)
	if err != nil {
		r.t.Fatalf("%s: %v", command, err)
	}
	var s struct{ Session string }
	if err := json.Unmarshal(res, &s); err != nil || s.Session == "" {
		r.t.Fatalf("%s: no session in %s", command, res)
	}
	return s.Session
}

// settled states end a session's background work.
var settled = map[string]bool{"proposed": true, "done": true, "failed": true, "cancelled": true, "waiting for approval": true, "interrupted": true}

// waitSettled polls aide.sessions until the session's work has ended and
// returns its state. Polling is the hang-guarded wait, not an assertion.
func (r *rig) waitSettled(id string) string {
	r.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		// The state changes just before the closing event is appended:
		// wait for both.
		if st := r.state(id); settled[st] && endsTerminal(r.root, id, st) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("session %s did not settle within %v (state %q)", id, hangGuard, r.state(id))
	return ""
}

func (r *rig) state(id string) string {
	r.t.Helper()
	res, _, err := r.ed.ExecuteCommand("aide.sessions", map[string]any{})
	if err != nil {
		r.t.Fatalf("aide.sessions: %v", err)
	}
	var out struct {
		Sessions []struct{ Session, State string }
	}
	if err := json.Unmarshal(res, &out); err != nil {
		r.t.Fatalf("aide.sessions: %v in %s", err, res)
	}
	for _, s := range out.Sessions {
		if s.Session == id {
			return s.State
		}
	}
	return "(none)"
}

func named(evs []map[string]any, name string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["event"] == name {
			out = append(out, e)
		}
	}
	return out
}

// endsTerminal reports whether the session file's last line is a terminal
// event that closes a session in state (any terminal event when state is
// "").
func endsTerminal(root, id, state string) bool {
	data, err := os.ReadFile(filepath.Join(root, ".aide", "sessions", id+".jsonl"))
	if err != nil {
		return false
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var ev struct{ Event string }
	_ = json.Unmarshal(lines[len(lines)-1], &ev)
	// A refused edit's "error" comes mid-turn: a session already shown as
	// proposed (or done) has its closing event still to come.
	if ev.Event == "error" && (state == "proposed" || state == "done") {
		return false
	}
	return terminal[ev.Event]
}

// fileEvents reads the session file's events without checking it.
func (r *rig) fileEvents(id string) []map[string]any {
	data, _ := os.ReadFile(filepath.Join(r.root, ".aide", "sessions", id+".jsonl"))
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev map[string]any
		if json.Unmarshal(line, &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// terminal events end a session file (contract §8).
var terminal = map[string]bool{"proposal": true, "done": true, "error": true, "cancelled": true, "accepted": true, "rejected": true, "stale": true}

// checkSessionFile asserts the session file is consistent: every line is a
// JSON object of this session, and the last one is a terminal event. It
// returns the events.
func (r *rig) checkSessionFile(id string) []map[string]any {
	r.t.Helper()
	return checkSessionFile(r.t, r.root, id)
}

func checkSessionFile(t *testing.T, root, id string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".aide", "sessions", id+".jsonl"))
	if err != nil {
		t.Fatalf("session file: %v", err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("session file %s does not end in a whole line", id)
	}
	var evs []map[string]any
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("session file line %d is not JSON: %v: %.200q", i+1, err, line)
		}
		if ev["session"] != id || ev["event"] == nil || ev["time"] == nil {
			t.Fatalf("session file line %d lacks session/event/time: %.200s", i+1, line)
		}
		evs = append(evs, ev)
	}
	if last := evs[len(evs)-1]["event"].(string); !terminal[last] {
		t.Fatalf("session file ends in %q, not a terminal event", last)
	}
	return evs
}

// alive proves the server still answers: a code action on an open file.
func (r *rig) alive() {
	r.t.Helper()
	if _, _, open := r.ed.Doc("alive.go"); !open {
		r.ed.Open("alive.go", "package alive\n")
	}
	acts, err := r.ed.CodeActions("alive.go", r.ed.Range("alive.go", 0, 0))
	if err != nil || len(acts) == 0 {
		r.t.Fatalf("the server no longer answers code actions: %v (%d actions)", err, len(acts))
	}
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	if rel == "" {
		return
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file under dir (relative path) to its content. A
// file that vanishes while the walk reaches it (the server's temporary
// files under .aide/, written and renamed meanwhile) is left out.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// workspaceFiles is the snapshot of the workspace without .aide/.
func (r *rig) workspaceFiles() map[string]string {
	s := snapshot(r.t, r.root)
	for k := range s {
		if strings.HasPrefix(k, ".aide") {
			delete(s, k)
		}
	}
	return s
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func editCall(id, path, old, new string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "old_text": old, "new_text": new})
	return model.ToolCall{ID: id, Name: "edit_file", Arguments: string(args)}
}

func writeCall(id, path, content string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return model.ToolCall{ID: id, Name: "write_file", Arguments: string(args)}
}

// settleGoroutines waits until the goroutine count is back to at most
// base+slack (net/http keep-alive readers and the runtime's own come and
// go) and reports the count; the wait is a hang guard.
func settleGoroutines(base, slack int) int {
	deadline := time.Now().Add(30 * time.Second)
	n := runtime.NumGoroutine()
	for n > base+slack && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		n = runtime.NumGoroutine()
	}
	return n
}

// userReview moves the review keys of cfg (reviewPlan, delivery) to the
// user's own config file in env's XDG_CONFIG_HOME (made under parent when
// unset): only that file lowers review (contract §3, "may lower review").
func userReview(t *testing.T, parent string, env map[string]string, cfg map[string]any) {
	t.Helper()
	user := map[string]any{}
	for _, k := range []string{"reviewPlan", "delivery"} {
		if v, ok := cfg[k]; ok {
			user[k] = v
			delete(cfg, k)
		}
	}
	if len(user) == 0 {
		return
	}
	if env["XDG_CONFIG_HOME"] == "" {
		env["XDG_CONFIG_HOME"] = filepath.Join(parent, "xdg-config")
	}
	file := filepath.Join(env["XDG_CONFIG_HOME"], "aide-lsp", "config.json")
	if raw, err := os.ReadFile(file); err == nil {
		var have map[string]any
		if err := json.Unmarshal(raw, &have); err != nil {
			t.Fatal(err)
		}
		for k, v := range have {
			if _, set := user[k]; !set {
				user[k] = v
			}
		}
	}
	raw, _ := json.Marshal(user)
	writeFile(t, env["XDG_CONFIG_HOME"], "aide-lsp/config.json", string(raw))
}
