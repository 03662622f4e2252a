package commands_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/planview"
)

const threeFuncs = "package main\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n\nfunc c() int { return 3 }\n"

// reviewEnv is a session whose plan was approved and whose three hunks
// (h1 a, h2 b, h3 c) wait for review; the architect's third reply is the
// re-plan's.
func reviewEnv(t *testing.T) (*env, string) {
	t.Helper()
	first := modeltest.Reply{Text: plan("1. Make a return 10.\n2. Make b return 20.\n3. Make c return 30.")}
	edits := modeltest.Reply{ToolCalls: []model.ToolCall{editCall("m.go", "return 1 }", "return 10 }"),
		editCall("m.go", "return 2 }", "return 20 }"), editCall("m.go", "return 3 }", "return 30 }")}}
	again := modeltest.Reply{Text: plan("1. Make a return 10 only.")}
	e := newEnv(t, envOpts{files: map[string]string{"m.go": threeFuncs}, archReplies: []modeltest.Reply{first, edits, again}})
	id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("m.go"), "task": "bigger numbers"})
	if _, err := e.exec(commands.CmdApprovePlan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.eng.Pending(id)); n != 3 {
		t.Fatalf("%d hunks pending, want 3", n)
	}
	return e, id
}

func (e *env) planDoc(id string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, ".aide", "plans", id+".md"))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) editPlanDoc(id string, edit func(string) string) {
	e.t.Helper()
	p := filepath.Join(e.root, ".aide", "plans", id+".md")
	if err := os.WriteFile(p, []byte(edit(e.planDoc(id))), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func TestTheArchitectIsToldWhatWasRejectedAndWhy(t *testing.T) {
	e, id := reviewEnv(t)
	if _, err := e.exec(commands.CmdAccept, map[string]any{"session": id, "hunks": []string{"h1"}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.exec(commands.CmdReject, map[string]any{"session": id, "hunks": []string{"h2"}, "reason": "keep  the call site"})
	if err != nil || !strings.Contains(mustJSON(res), `["h2"]`) {
		t.Fatalf("reject h2 with a reason: %v %s", err, mustJSON(res))
	}
	if rej := e.client.eventsNamed("rejected"); len(rej) != 1 || rej[0].Reason() != "keep the call site" {
		t.Fatalf("rejected events %+v", rej)
	}
	doc := e.planDoc(id)
	if !strings.Contains(doc, "— rejected: keep the call site\n") {
		t.Fatalf("the plan document does not show the reason:\n%s", doc)
	}
	// Helix: the user writes h3's rejection, a Notes section and a Note:
	// line under step 3 in the plan document, then re-plans.
	notes := "Only `a` may change.\n\n- b and c are part of the public API"
	e.editPlanDoc(id, func(d string) string {
		d = strings.Replace(d, "3. Make c return 30.", "3. Make c return 30.\n   Note: c is used by the tests", 1)
		d = regexpReplace(d, "(`h3` [^\n]*— )pending", "${1}rejected: not this one")
		return d + "\n## Notes\n\n" + notes + "\n"
	})
	if _, err := e.exec(commands.CmdReplan, map[string]any{"session": id}); err != nil {
		t.Fatal(err)
	}
	reqs := e.arch.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	prompt := userText(reqs[2])
	for _, want := range []string{
		"The user accepted h1",
		"The user rejected h2: keep the call site",
		"The user rejected h3: not this one",
		"as they wrote them:\n\n" + notes + "\n",
		"On step 3: c is used by the tests",
		"Your previous plan:",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the re-plan's prompt lacks %q:\n%s", want, prompt)
		}
	}
	if rej := e.client.eventsNamed("rejected"); len(rej) != 2 || rej[1].Reason() != "not this one" {
		t.Errorf("the rejection written in the document: rejected events %+v", rej)
	}
	ne := e.client.eventsNamed(commands.EvNotes)
	if len(ne) != 1 {
		t.Fatalf("notes events %+v", ne)
	}
	nd := ne[0].Data.(commands.NotesData)
	if nd.Notes != notes || len(nd.Steps) != 1 || nd.Steps[0] != (planview.StepNote{Step: 3, Text: "c is used by the tests"}) {
		t.Errorf("notes event %+v", nd)
	}
	// The event reads back from the session file as the same struct.
	if back, err := commands.ParseEvent([]byte(mustJSON(ne[0]))); err != nil || back.Data.(commands.NotesData).Notes != notes {
		t.Errorf("notes event does not read back: %v %+v", err, back)
	}
	// The new plan's document keeps the user's Notes as written.
	if doc := e.planDoc(id); !strings.Contains(doc, "## Notes\n\n"+notes+"\n") || !strings.Contains(doc, "Make a return 10 only.") {
		t.Errorf("after the re-plan the document lost the notes:\n%s", doc)
	}
}

// VS Code: the preview's unticking rejects first, the reason comes after.
func TestReasonAfterTheRejection(t *testing.T) {
	e, id := reviewEnv(t)
	if _, err := e.eng.Decide(id, []string{"h2"}, false); err != nil {
		t.Fatal(err)
	}
	res, err := e.exec(commands.CmdReject, map[string]any{"session": id, "hunks": []string{"h2"}, "reason": "keep the call site"})
	if err != nil || !strings.Contains(mustJSON(res), `["h2"]`) {
		t.Fatalf("reason for a rejected hunk: %v %s", err, mustJSON(res))
	}
	rej := e.client.eventsNamed("rejected")
	if len(rej) != 2 || rej[0].Reason() != "" || rej[1].Reason() != "keep the call site" {
		t.Fatalf("rejected events %+v", rej)
	}
	if !strings.Contains(e.planDoc(id), "— rejected: keep the call site\n") {
		t.Error("the plan document does not show the reason")
	}
	if e.state(id) != commands.StateProposed || len(e.eng.Pending(id)) != 2 {
		t.Errorf("state %s, %d pending: a reason decided more hunks", e.state(id), len(e.eng.Pending(id)))
	}
	// A reason cannot turn an accepted hunk into a rejected one.
	e.exec(commands.CmdAccept, map[string]any{"session": id, "hunks": []string{"h1"}})
	if _, err := e.exec(commands.CmdReject, map[string]any{"session": id, "hunks": []string{"h1"}, "reason": "oops"}); err == nil || !strings.Contains(err.Error(), "already accepted") {
		t.Errorf("reject an accepted hunk with a reason: %v", err)
	}
}

// The server never rewrites the user's Notes: every later write of the
// plan document (here a decision) keeps them as written.
func TestNotesSurviveTheServersWrites(t *testing.T) {
	e, id := reviewEnv(t)
	notes := "keep *this*  exactly\n\n\tas typed"
	e.editPlanDoc(id, func(d string) string { return d + "\n## Notes\n\n" + notes + "\n" })
	if _, err := e.exec(commands.CmdReject, map[string]any{"session": id, "hunks": []string{"h3"}}); err != nil {
		t.Fatal(err)
	}
	if doc := e.planDoc(id); !strings.Contains(doc, "## Notes\n\n"+notes+"\n") || !strings.Contains(doc, "`h3` ") {
		t.Errorf("the server's write lost the notes:\n%s", doc)
	}
	if len(e.client.eventsNamed(commands.EvNotes)) != 0 {
		t.Error("notes recorded without a re-plan")
	}
}

func regexpReplace(s, pattern, repl string) string {
	return regexp.MustCompile(pattern).ReplaceAllString(s, repl)
}
