package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// fuzzSiblingID is a well-formed session that was editing when its server
// stopped; it sits beside the fuzzed file in every run, since one hostile
// file must not hide the other sessions.
const fuzzSiblingID = "20260101-000000-abcdef"

const fuzzSiblingState = `{"session":"20260101-000000-abcdef","kind":"architect","task":"old","state":"editing",` +
	`"createdAt":"2026-01-01T00:00:00Z","architectModel":"arch/big","editorModel":"arch/big"}`

// fuzzFileName is the name (without ".json") the fuzzed state file gets:
// name when it is one plain file name, else the "session" field of data
// (so the fuzzer reaches the accepted path without guessing both), else a
// fixed name.
func fuzzFileName(name string, data []byte) string {
	if name == "" {
		var probe struct {
			Session string `json:"session"`
		}
		_ = json.Unmarshal(data, &probe)
		name = probe.Session
	}
	if name == "" || len(name) > 200 || name == "." || name == ".." ||
		strings.ContainsAny(name, "/\x00") {
		return "hostile"
	}
	return name
}

// FuzzReloadSessions: .aide/sessions/*.json may come from a cloned
// repository, so the engine's start (reload, which lists the sessions and
// marks the running ones interrupted) must take any bytes. Every file is
// either listed or reported in LoadProblems; a listed session is usable by
// the commands (aide.sessions, showPlan, replan, cancel), keeps its files
// inside .aide, is never left planning/editing/proposed, and survives a
// save and a second reload unchanged. Nothing is written outside the
// workspace. The inputs that broke it once are in
// testdata/fuzz/FuzzReloadSessions (dotdot_id: an id listed, then refused
// by every command).
func FuzzReloadSessions(f *testing.F) {
	f.Add("", []byte(fuzzSiblingState))
	f.Add("", []byte(`{"session":"20260102-101010-0a0b0c","kind":"edit","task":"add a flag\n## Plan\nx","state":"waiting for approval","reason":"","createdAt":"2026-01-02T10:10:10.5+02:00","cycle":3,"architectModel":"a/b","editorModel":"c/d","focus":["main.go","../../etc/passwd","/etc/passwd"],"plan":"1. do it"}`))
	f.Add("", []byte(`{"session":"s1","state":"proposed","createdAt":"0001-01-01T00:00:00Z"}`))
	f.Add("", []byte(`{"session":"s1","state":"done","cycle":-9223372036854775808}`))
	f.Add("", []byte(`{"session":"s2","state":"bogus","kind":"bogus","task":"\u0000\ud800"}`))
	f.Add("", []byte(`{"session":"..","state":"done"}`))
	f.Add("", []byte(`{"session":"../../escape","state":"editing"}`))
	f.Add("other", []byte(`{"session":"s3","state":"done"}`))
	f.Add("s4", []byte(`{"session":"s4","createdAt":"9999-12-31T23:59:59-23:59"}`))
	f.Add("x", []byte(`{"session":`))
	f.Add("x", []byte(`null`))
	f.Add("x", []byte(`[]`))
	f.Add("x", []byte("\xff\xfe{}"))
	f.Add("x", []byte(``))
	f.Add(fuzzSiblingID, []byte(`{"session":"`+fuzzSiblingID+`","state":"cancelled","task":"replaced"}`))

	f.Fuzz(func(t *testing.T, name string, data []byte) {
		parent := t.TempDir()
		root := filepath.Join(parent, "ws")
		dir := filepath.Join(root, ".aide", "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name = fuzzFileName(name, data)
		file := name + ".json"
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Skipf("cannot write %q: %v", file, err) // a name this file system refuses
		}
		withSibling := file != fuzzSiblingID+".json"
		if withSibling {
			if err := os.WriteFile(filepath.Join(dir, fuzzSiblingID+".json"), []byte(fuzzSiblingState), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		e := fuzzEngine(t, root)

		// The fuzzed file is listed or reported, never silently dropped.
		listed := e.sessions[name] != nil
		reported := false
		for _, p := range e.LoadProblems {
			if strings.HasPrefix(p, file+": ") {
				reported = true
				if !strings.Contains(p, "not a session state file") {
					t.Errorf("load problem without a clear reason: %q", p)
				}
			}
		}
		if listed == reported {
			t.Fatalf("%s: listed %v, reported %v (problems %q)", file, listed, reported, e.LoadProblems)
		}
		if withSibling {
			if s := e.sessions[fuzzSiblingID]; s == nil || s.state != StateInterrupted {
				t.Fatalf("the well-formed session beside %s is not listed as interrupted: %+v", file, s)
			}
		}

		aide := filepath.Join(root, ".aide")
		for id, s := range e.sessions {
			if _, err := e.session(id); err != nil {
				t.Fatalf("session %q is listed but the commands refuse it: %v", id, err)
			}
			switch s.state {
			case StatePlanning, StateEditing, StateProposed:
				t.Fatalf("session %q reloaded as %q, not interrupted", id, s.state)
			}
			if filepath.Dir(s.planPath) != filepath.Join(aide, "plans") || filepath.Dir(s.statePath) != dir || filepath.Dir(s.eventPath) != dir {
				t.Fatalf("session %q has files outside .aide: %s %s %s", id, s.planPath, s.statePath, s.eventPath)
			}
		}
		if _, _, err := e.Execute(context.Background(), CmdSessions, nil); err != nil {
			t.Fatalf("aide.sessions: %v", err)
		}
		if !listed {
			assertOnlyWorkspace(t, parent)
			return
		}

		// Use the session as a user would after the restart.
		arg, _ := json.Marshal(ReplanArgs{Session: name, Feedback: "again"})
		if _, ok := e.View(name); !ok {
			t.Fatalf("no view of listed session %q", name)
		}
		if _, _, err := e.Execute(context.Background(), CmdShowPlan, arg); err != nil {
			t.Fatalf("aide.showPlan: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard only
		defer cancel()
		if _, work, err := e.Execute(ctx, CmdReplan, arg); err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("aide.replan refused with an empty message")
			}
		} else if work != nil {
			// No model answers here: the turn must end in a clear failure.
			if err := work(ctx, nil); err != nil && strings.TrimSpace(err.Error()) == "" {
				t.Fatal("the re-plan failed with an empty message")
			}
		}
		if _, _, err := e.Execute(ctx, CmdCancel, arg); err != nil {
			t.Fatalf("aide.cancel: %v", err)
		}
		s := e.sessions[name]
		s.mu.Lock()
		state, task, created := s.state, s.task, s.createdAt
		s.mu.Unlock()

		// What the engine saved reloads as the same session.
		again := fuzzEngine(t, root)
		r := again.sessions[name]
		if r == nil {
			t.Fatalf("session %q is gone after a save and reload (problems %q)", name, again.LoadProblems)
		}
		if r.state != state || r.task != task || !r.createdAt.Equal(created) {
			t.Fatalf("session %q reloaded as (%q, %q, %v), saved as (%q, %q, %v)", name, r.state, r.task, r.createdAt, state, task, created)
		}
		assertOnlyWorkspace(t, parent)
	})
}

// fuzzEngine starts an engine on root whose model calls fail at once (a
// Router with no provider and no key): enough to run a turn to its end.
func fuzzEngine(t *testing.T, root string) *Engine {
	t.Helper()
	ws, err := workspace.Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	router := model.NewRouter(nil, model.Options{Env: func(string) string { return "" }, MaxRetries: -1})
	e, err := NewEngine(Options{Workspace: ws, Config: config.Defaults(), Model: router})
	if err != nil {
		t.Fatalf("the engine does not start: %v", err)
	}
	return e
}

// assertOnlyWorkspace fails when anything but the workspace folder appeared
// in parent: the engine wrote outside its workspace.
func assertOnlyWorkspace(t *testing.T, parent string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		if ent.Name() != "ws" {
			t.Fatalf("written outside the workspace: %s", filepath.Join(parent, ent.Name()))
		}
	}
}

// TestReloadRefusesUnknownStates: a state file whose state or kind no
// command knows is reported, not listed as a session nothing can move on.
func TestReloadRefusesUnknownStates(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	dir := filepath.Join(root, ".aide", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range map[string]string{
		"20260101-000000-000001": `{"session":"20260101-000000-000001","kind":"architect","state":"bogus"}`,
		"20260101-000000-000002": `{"session":"20260101-000000-000002","kind":"bogus","state":"done"}`,
		"20260101-000000-000003": `{"session":"20260101-000000-000003","kind":"edit","state":"done"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := fuzzEngine(t, root)
	if len(e.sessions) != 1 || e.sessions["20260101-000000-000003"] == nil {
		t.Errorf("listed %d sessions, want only the known one", len(e.sessions))
	}
	problems := strings.Join(e.LoadProblems, "\n")
	for _, want := range []string{`state "bogus"`, `kind "bogus"`} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems %q do not name %s", problems, want)
		}
	}
}
