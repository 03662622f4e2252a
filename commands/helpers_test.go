package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/workspace"
	"github.com/aide-lsp/aide-lsp/written"
)

// recClient records what the engine tells the editor side.
type recClient struct {
	ws        *workspace.Workspace // ApplyHunks writes here
	mu        sync.Mutex
	events    []commands.Event
	shown     []commands.PlanDoc
	changed   int
	lastDoc   string
	proposals []commands.Proposal
	messages  []string
}

func (c *recClient) SessionEvent(ev commands.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
}
func (c *recClient) ShowPlan(d commands.PlanDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shown = append(c.shown, d)
}
func (c *recClient) PlanChanged(d commands.PlanDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed++
	c.lastDoc = d.Text
}
func (c *recClient) Delivery() commands.Delivery { return commands.ReviewInPlace }
func (c *recClient) Propose(_ context.Context, p commands.Proposal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.proposals = append(c.proposals, p)
}

// ApplyHunks writes accepted hunks to disk, as the headless client does.
func (c *recClient) ApplyHunks(_ context.Context, _, _ string, hunks []editapply.Hunk) ([]string, error) {
	ids, _, err := commands.ApplyHunkIDs(c.ws, hunks)
	return ids, err
}
func (c *recClient) PlanBuffer(string) (string, bool) { return "", false }
func (c *recClient) Message(level, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, level+": "+text)
}

func (c *recClient) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.events {
		out = append(out, e.Event)
	}
	return out
}

func (c *recClient) eventsNamed(name string) []commands.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []commands.Event
	for _, e := range c.events {
		if e.Event == name {
			out = append(out, e)
		}
	}
	return out
}

func (c *recClient) proposalCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.proposals)
}

// env is a workspace in a temp folder with an engine over wire-level fakes:
// provider "arch" (OpenAI wire) and, when asked, "ed" (Anthropic wire).
type env struct {
	t      *testing.T
	root   string
	ws     *workspace.Workspace
	arch   *modeltest.Server
	ed     *modeltest.Server
	router *model.Router
	meter  *model.Meter
	client *recClient
	eng    *commands.Engine
	cfg    config.Config
	// written is the user's state folder's record of the plan documents
	// written (envOpts.remember), shared by the engines of a restart.
	written *written.Store
}

type envOpts struct {
	files       map[string]string
	config      string // JSON layer over the defaults
	separateEd  bool   // editor on its own Anthropic fake as "ed/small"
	archReplies []modeltest.Reply
	edReplies   []modeltest.Reply
	remember    bool // the engine remembers its plan documents in a state folder (Options.Written)
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	root := t.TempDir()
	for p, c := range o.files {
		writeFile(t, root, p, c)
	}
	e := &env{t: t, root: root, client: &recClient{}, meter: &model.Meter{}}
	e.arch = modeltest.NewOpenAI(t, o.archReplies...)
	providers := map[string]model.ProviderConfig{"arch": {Kind: "openai", BaseURL: e.arch.BaseURL()}}
	cfg := config.Defaults()
	layer := map[string]any{"architectModel": "arch/big", "editorModel": "arch/big"}
	if o.separateEd {
		e.ed = modeltest.NewAnthropic(t, o.edReplies...)
		providers["ed"] = model.ProviderConfig{Kind: "anthropic", BaseURL: e.ed.BaseURL()}
		layer["editorModel"] = "ed/small"
	}
	raw, _ := json.Marshal(layer)
	if p := cfg.Apply("test", raw); p != nil {
		t.Fatal(p)
	}
	if o.config != "" {
		if p := cfg.Apply("test", json.RawMessage(o.config)); p != nil {
			t.Fatal(p)
		}
	}
	e.cfg = cfg
	ws, err := workspace.Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	e.client.ws = ws
	// No retries: a scripted failure is meant to reach the engine at once.
	e.router = model.NewRouter(providers, model.Options{Env: func(string) string { return "" }, MaxRetries: -1, Timeout: time.Minute})
	if o.remember {
		w, err := written.Open(t.TempDir(), root)
		if err != nil {
			t.Fatal(err)
		}
		e.written = w
	}
	e.eng = e.newEngine()
	return e
}

func (e *env) newEngine() *commands.Engine {
	eng, err := commands.NewEngine(commands.Options{Workspace: e.ws, Config: e.cfg, Model: e.router, Meter: e.meter, Client: e.client, Written: e.written})
	if err != nil {
		e.t.Fatal(err)
	}
	return eng
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exec runs a command and its work to the end (as lsp would, in order).
func (e *env) exec(command string, arg any) (any, error) {
	e.t.Helper()
	raw, _ := json.Marshal(arg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	defer cancel()
	res, work, err := e.eng.Execute(ctx, command, raw)
	if err != nil {
		return nil, err
	}
	if work != nil {
		if werr := work(ctx, nil); werr != nil {
			return res, werr
		}
	}
	return res, nil
}

func (e *env) start(command string, arg map[string]any) string {
	e.t.Helper()
	res, err := e.exec(command, arg)
	if res == nil {
		e.t.Fatalf("%s: %v", command, err)
	}
	return sessionOf(e.t, res)
}

func sessionOf(t *testing.T, res any) string {
	t.Helper()
	raw, _ := json.Marshal(res)
	var r struct{ Session string }
	if err := json.Unmarshal(raw, &r); err != nil || r.Session == "" {
		t.Fatalf("no session in %s", raw)
	}
	return r.Session
}

func (e *env) state(id string) commands.State {
	for _, s := range e.eng.Sessions() {
		if s.Session == id {
			return s.State
		}
	}
	return "(none)"
}

func (e *env) uri(rel string) string { return "file://" + filepath.ToSlash(filepath.Join(e.root, rel)) }

// hasTools reports whether a request carried tools on the wire.
func hasTools(r modeltest.Request) bool {
	t, ok := r.Body["tools"]
	if !ok || t == nil {
		return false
	}
	if l, ok := t.([]any); ok {
		return len(l) > 0
	}
	return true
}

// systemOf is the system prompt of a request on either wire.
func systemOf(r modeltest.Request) string {
	if s, ok := r.Body["system"]; ok {
		switch v := s.(type) {
		case string:
			return v
		case []any:
			var b strings.Builder
			for _, part := range v {
				if m, ok := part.(map[string]any); ok {
					b.WriteString(fmt.Sprint(m["text"]))
				}
			}
			return b.String()
		}
	}
	if msgs, ok := r.Body["messages"].([]any); ok {
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] == "system" || mm["role"] == "developer" {
				return contentText(mm["content"])
			}
		}
	}
	return ""
}

// userText is all user-message text of a request.
func userText(r modeltest.Request) string {
	var b strings.Builder
	msgs, _ := r.Body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "user" {
			b.WriteString(contentText(mm["content"]))
		}
	}
	return b.String()
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, part := range v {
			if m, ok := part.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

func modelOf(r modeltest.Request) string { s, _ := r.Body["model"].(string); return s }

func editCall(path, old, new string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "old_text": old, "new_text": new})
	return model.ToolCall{ID: "call_" + path, Name: "edit_file", Arguments: string(args)}
}

func writeCall(path, content string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return model.ToolCall{ID: "call_w_" + path, Name: "write_file", Arguments: string(args)}
}

func indexOf(list []string, name string) int {
	for i, n := range list {
		if n == name {
			return i
		}
	}
	return -1
}

const mainGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"

func plan(body string) string {
	return "I read main.go.\n\n## Plan\n" + body + "\n## End Plan\n"
}

// eventFields is an event as its JSON line in the session file reads.
func eventFields(t *testing.T, ev commands.Event) map[string]any {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
