// Package e2e drives the whole of aide-lsp the way an editor does: the fake
// editor (tests/fakeeditor) with the capabilities captured from VS Code 1.96,
// Neovim 0.7, 0.10 and 0.12 and Helix 25.1 and 25.07, the real engine wired by lsp.NewSetup, and the
// real model Router talking to modeltest fakes on the real OpenAI wire, in a
// temporary workspace.
package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// profiles are the captured clients every flow runs against.
var profiles = []string{"vscode-1.96", "neovim-0.7", "neovim-0.10", "neovim-0.12", "helix-25.1", "helix-25.07"}

// hangGuard bounds every wait: a broken test fails after it, a working one
// never comes near it (it never decides a pass).
const hangGuard = 20 * time.Second

// mainGo is the file the user works on; its AI comment is the task.
const mainGo = `package main

import "fmt"

// AI: make greet say hello
// and keep it short
func greet() string {
	return "hi"
}

func other() int {
	return 1
}

func main() { fmt.Println(greet(), other()) }
`

const task = "make greet say hello\nand keep it short"

const planText = "I read main.go.\n## Plan\n1. In main.go, make greet return \"hello\".\n## End Plan\n"

func editCall(path, old, new string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "old_text": old, "new_text": new})
	return model.ToolCall{ID: "call_" + strings.Fields(old)[0], Name: "edit_file", Arguments: string(args)}
}

var (
	greetEdit = editCall("main.go", "\treturn \"hi\"\n", "\treturn \"hello\"\n")
	otherEdit = editCall("main.go", "\treturn 1\n", "\treturn 2\n")
)

type env struct {
	t     *testing.T
	ed    *fakeeditor.Editor
	model *modeltest.Server
	root  string
}

type envOptions struct {
	config    map[string]any // merged into the user's config.json
	applyEdit func(e *fakeeditor.Editor, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult
	replies   []modeltest.Reply
	// configuration answers workspace/configuration by section.
	configuration func(section string) any
}

// start makes a workspace with main.go, a model fake scripted with replies,
// and a fake editor of the profile connected to the real server.
func start(t *testing.T, profile string, o envOptions) *env {
	t.Helper()
	root := t.TempDir()
	srv := modeltest.NewOpenAI(t, o.replies...)
	cfg := map[string]any{
		"architectModel": "fake/architect-model",
		"editorModel":    "fake/editor-model",
		"providers":      map[string]any{"fake": map[string]any{"kind": "openai", "baseURL": srv.BaseURL()}},
	}
	for k, v := range o.config {
		cfg[k] = v
	}
	// The provider is the user's (a temporary XDG_CONFIG_HOME), not the
	// workspace's: a workspace file may not route requests (contract §8).
	xdg := t.TempDir()
	write(t, filepath.Join(xdg, "config", "aide-lsp", "config.json"), mustJSON(t, cfg))
	write(t, filepath.Join(root, "main.go"), mainGo)
	if _, ok := o.config["verify"]; ok {
		// Verification runs only in a folder the user trusted (aide-lsp
		// trust records it so).
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(xdg, "state", "aide-lsp", "trusted.json"), mustJSON(t, map[string]any{
			"version": 1, "files": []map[string]any{{"path": real, "sha256": config.FolderTrust, "trustedAt": time.Now()}}}))
	}
	ed := fakeeditor.Start(t, fakeeditor.Options{
		Profile: profile,
		Roots:   []string{root},
		Capabilities: func(caps map[string]any) {
			if strings.HasPrefix(profile, "vscode") {
				// What the aide VS Code extension adds to the client's capabilities.
				caps["experimental"] = map[string]any{"aidePlanDocument": true}
			}
		},
		ApplyEdit:     o.applyEdit,
		Configuration: o.configuration,
		Server: lsp.Options{Version: "e2e", Setup: lsp.NewSetup(lsp.SetupOptions{
			Env: func(k string) string {
				switch k {
				case "XDG_CONFIG_HOME":
					return filepath.Join(xdg, "config")
				case "XDG_STATE_HOME":
					return filepath.Join(xdg, "state")
				case "XDG_CACHE_HOME":
					return filepath.Join(xdg, "cache") // the index cache, as a user has it
				}
				return ""
			},
			RetryBaseDelay: time.Millisecond,
		})},
		Timeout: hangGuard,
	})
	ed.Open("main.go", mainGo)
	return &env{t: t, ed: ed, model: srv, root: root}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lineRange(line int) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line)}}
}

// startFromAIComment picks "AIDE: Architect → Editor: <task>" on the AI
// comment and returns the session.
func (e *env) startFromAIComment() string {
	e.t.Helper()
	actions, err := e.ed.CodeActions("main.go", lineRange(4))
	if err != nil {
		e.t.Fatal(err)
	}
	a, ok := fakeeditor.FindAction(actions, lsp.TitleArchitect+": make greet say hello")
	if !ok {
		e.t.Fatalf("no architect action titled with the AI comment's task among %v", titles(actions))
	}
	res, err := e.ed.Pick(a)
	if err != nil {
		e.t.Fatal(err)
	}
	var r struct{ Session string }
	if err := json.Unmarshal(res, &r); err != nil || r.Session == "" {
		e.t.Fatalf("aide.architect answered %s (%v)", res, err)
	}
	return r.Session
}

func titles(actions []fakeeditor.CodeAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Title)
	}
	return out
}

// progressEnds waits until n progress reports of kind end were sent and
// returns their messages.
func (e *env) progressEnds(n int) []string {
	e.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		var ends []string
		for _, m := range e.ed.Notifications("$/progress") {
			var p struct {
				Value struct{ Kind, Message string }
			}
			if json.Unmarshal(m.Params, &p) == nil && p.Value.Kind == "end" {
				ends = append(ends, p.Value.Message)
			}
		}
		if len(ends) >= n {
			return ends
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d progress end(s) seen, waited for %d", len(ends), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// progressReports lists the messages of the progress reports sent so far.
func (e *env) progressReports() []string {
	var out []string
	for _, m := range e.ed.Notifications("$/progress") {
		var p struct {
			Value struct{ Kind, Message string }
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Value.Kind == "report" {
			out = append(out, p.Value.Message)
		}
	}
	return out
}

// events reads the session's event file (.aide/sessions/<s>.jsonl), which
// every client gets, aide/sessionEvent or not.
func (e *env) events(session string) []map[string]any {
	f, err := os.Open(filepath.Join(e.root, ".aide", "sessions", session+".jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// waitEvent waits for an event of the session and returns it.
func (e *env) waitEvent(session, name string) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		for _, ev := range e.events(session) {
			if ev["event"] == name {
				return ev
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no %q event in session %s; events: %v", name, session, eventNames(e.events(session)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func eventNames(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev["event"].(string))
	}
	return out
}

// hunksOf collects the hunk ids of all events with that name.
func (e *env) hunksOf(session, name string) []string {
	var out []string
	for _, ev := range e.events(session) {
		if ev["event"] != name {
			continue
		}
		list, _ := ev["hunks"].([]any)
		for _, h := range list {
			switch x := h.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				out = append(out, x["id"].(string))
			}
		}
	}
	return out
}

// planPath is the file form of a session's plan document.
func (e *env) planPath(session string) string {
	return filepath.Join(".aide", "plans", session+".md")
}

// planShown checks the plan document reached the user the way the
// profile's editor can show it (contract §5).
func (e *env) planShown(profile, session string) {
	e.t.Helper()
	switch {
	case strings.HasPrefix(profile, "vscode"):
		e.ed.WaitNotification("aide/planDocumentChanged", func(m fakeeditor.Message) bool {
			return strings.Contains(string(m.Params), session)
		})
		var doc struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
			Text    string `json:"text"`
		}
		if err := e.ed.Call("aide/planDocument", map[string]any{"uri": lsp.PlanURI(session)}, &doc); err != nil {
			e.t.Fatal(err)
		}
		if !strings.Contains(doc.Text, "make greet return") || doc.Version < 1 || doc.URI != lsp.PlanURI(session) {
			e.t.Errorf("aide/planDocument = %+v", doc)
		}
	case profile == "helix-25.07": // it would replace the code's view: told, not shown
		e.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
			return strings.Contains(string(m.Params), "space A") && strings.Contains(string(m.Params), session+".md")
		})
		// The user presses space A: the plan file opens beside the code,
		// read from disk.
		b, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
		if err != nil {
			e.t.Fatal(err)
		}
		e.ed.Open(e.planPath(session), string(b))
	case profile != "neovim-0.7": // Helix 25.01, Neovim 0.9+, Emacs
		e.ed.WaitRequest("window/showDocument", func(m fakeeditor.Message) bool {
			return strings.Contains(string(m.Params), session+".md")
		})
	default: // Neovim 0.7: no showDocument
		e.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
			return strings.Contains(string(m.Params), filepath.Join(".aide", "plans", session+".md"))
		})
	}
}

// approveInPlanFile opens the plan file (as the user does) and picks the
// approve action there; edit, when set, rewrites the buffer first.
func (e *env) approveInPlanFile(session string, edit func(text string) string) {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
	if err != nil {
		e.t.Fatal(err)
	}
	if _, _, open := e.ed.Doc(e.planPath(session)); !open { // showDocument opened it in Helix and Neovim 0.9+
		e.ed.Open(e.planPath(session), string(b))
	}
	if edit != nil {
		e.ed.Replace(e.planPath(session), edit(e.ed.Text(e.planPath(session))))
	}
	actions, err := e.ed.CodeActions(e.planPath(session), lineRange(0))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, want := range []string{lsp.TitleApprovePlan, lsp.TitleReplan, lsp.TitleDiscard} {
		if _, ok := fakeeditor.FindAction(actions, want); !ok {
			e.t.Errorf("plan file actions %v lack %q", titles(actions), want)
		}
	}
	a, _ := fakeeditor.FindAction(actions, lsp.TitleApprovePlan)
	if _, err := e.ed.Pick(a); err != nil {
		e.t.Fatal(err)
	}
}

// toPlan runs from the code action to a plan waiting for approval.
func (e *env) toPlan(profile string) string {
	e.t.Helper()
	session := e.startFromAIComment()
	e.progressEnds(1)
	e.planShown(profile, session)
	e.waitEvent(session, "plan")
	return session
}

// diagnostics waits until the proposal diagnostics of main.go number n.
func (e *env) diagnostics(n int) []fakeeditor.Diagnostic {
	e.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		d := e.ed.Diagnostics("main.go")
		if d != nil && len(d) == n {
			for _, x := range d {
				if x.Source != "aide" || x.Code != lsp.ProposalCode || x.Severity != 3 {
					e.t.Errorf("proposal diagnostic %+v: want source aide, code aide.proposal, severity 3", x)
				}
			}
			return d
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("main.go has diagnostics %+v, want %d", d, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pickOn picks the action starting with prefix on a diagnostic's range.
func (e *env) pickOn(d fakeeditor.Diagnostic, prefix string) {
	e.t.Helper()
	actions, err := e.ed.CodeActions("main.go", d.Range)
	if err != nil {
		e.t.Fatal(err)
	}
	a, ok := fakeeditor.FindAction(actions, prefix)
	if !ok {
		e.t.Fatalf("no action %q on %v among %v", prefix, d.Range, titles(actions))
	}
	if _, err := e.ed.Pick(a); err != nil {
		e.t.Fatal(err)
	}
}

// hunkOf is the hunk id a proposal diagnostic is about.
func hunkOf(d fakeeditor.Diagnostic) string {
	var ref struct{ Hunk string }
	_ = json.Unmarshal(d.Data, &ref)
	return ref.Hunk
}

// codeActionDelivery reports whether the profile reviews by code actions.
func codeActionDelivery(profile string) bool { return !strings.HasPrefix(profile, "vscode") }

// requestText is the whole text of a model request body, for assertions on
// what the model was shown.
func requestText(r modeltest.Request) string { return string(r.Raw) }
