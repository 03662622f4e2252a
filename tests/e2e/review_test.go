package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// afterGreet is main.go once the greet change and the AI comment's removal
// are accepted.
var afterGreet = strings.Replace(strings.Replace(mainGo, "// AI: make greet say hello\n// and keep it short\n", "", 1),
	"return \"hi\"", "return \"hello\"", 1)

func replies(calls ...model.ToolCall) []modeltest.Reply {
	return []modeltest.Reply{{Text: planText}, {ToolCalls: calls}}
}

// TestAcceptAll: code action on the AI comment → plan → approve in the
// plan file → proposal → everything accepted → the file is as planned.
func TestAcceptAll(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				diags := e.diagnostics(2) // the change and the AI comment's removal
				e.pickOn(diags[0], "AIDE: Accept all 2 changes")
			}
			e.waitEvent(session, "done")
			if got := e.ed.Text("main.go"); got != afterGreet {
				t.Errorf("main.go after accepting everything:\n%s\nwant:\n%s", got, afterGreet)
			}
			if acc := e.hunksOf(session, "accepted"); len(acc) != 2 {
				t.Errorf("accepted hunks %v, want the change and the AI comment's removal; events %v", acc, e.events(session))
			}
			if codeActionDelivery(profile) {
				e.diagnostics(0) // withdrawn once decided
			} else if len(e.ed.Requests("workspace/applyEdit")) != 1 {
				t.Errorf("want exactly one workspace/applyEdit")
			} else {
				checkAnnotatedEdit(t, e.ed.Requests("workspace/applyEdit")[0])
			}
			// The turn ends once the proposal is made, whatever reviews it:
			// the review goes on without it (docs/architecture.md, "The boundary").
			// (The review may be over before the end is sent: the count
			// is of the changes still to review then.)
			ends := e.progressEnds(2)
			wantFirst, wantLast := "plan ready", "proposed: "
			if !strings.HasPrefix(ends[0], wantFirst) || !strings.HasPrefix(ends[1], wantLast) {
				t.Errorf("progress ended with %q, want %q… then %q…", ends, wantFirst, wantLast)
			}
			// Progress says what is happening, with numbers.
			reports := strings.Join(e.progressReports(), "\n")
			for _, want := range []string{`(?m)^architect: planning`, `(?m)^architect: plan ready for approval \([1-9][0-9]* tokens\)$`, `(?m)^editor: 1 edits$`} {
				if !regexp.MustCompile(want).MatchString(reports) {
					t.Errorf("progress reports lack %s:\n%s", want, reports)
				}
			}
			// The editor pass was given the plan.
			reqs := e.model.Requests()
			if len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), "make greet return") {
				t.Errorf("model requests: %d; the editor request must carry the plan", len(reqs))
			}
		})
	}
}

// checkAnnotatedEdit: one applyEdit labelled AIDE: <task>, versioned
// TextDocumentEdits, one needsConfirmation annotation per hunk (contract §6).
func checkAnnotatedEdit(t *testing.T, m fakeeditor.Message) {
	t.Helper()
	var p protocol.ApplyWorkspaceEditParams
	if err := m.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.Label == nil || !strings.HasPrefix(*p.Label, "AIDE: make greet say hello") {
		t.Errorf("applyEdit label %v", p.Label)
	}
	if len(p.Edit.ChangeAnnotations) != 2 {
		t.Errorf("annotations %v, want one per hunk (2)", p.Edit.ChangeAnnotations)
	}
	for id, a := range p.Edit.ChangeAnnotations {
		if a.NeedsConfirmation == nil || !*a.NeedsConfirmation {
			t.Errorf("annotation %s does not need confirmation", id)
		}
	}
	for _, ch := range p.Edit.DocumentChanges {
		if te, ok := ch.(*protocol.TextDocumentEdit); ok && te.TextDocument.Version == nil {
			t.Errorf("the open main.go was sent unversioned")
		}
	}
}

// TestRejectAll: everything rejected, nothing changes.
func TestRejectAll(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			o := envOptions{replies: replies(greetEdit)}
			if !codeActionDelivery(profile) {
				// The user presses Discard in the Refactor Preview.
				o.applyEdit = func(*fakeeditor.Editor, protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
					return protocol.ApplyWorkspaceEditResult{Applied: false}
				}
			}
			e := start(t, profile, o)
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				diags := e.diagnostics(2)
				e.pickOn(diags[1], "AIDE: Reject all 2 changes")
				e.diagnostics(0)
			}
			e.waitEvent(session, "done")
			if got := e.ed.Text("main.go"); got != mainGo {
				t.Errorf("main.go changed although everything was rejected:\n%s", got)
			}
			if rej := e.hunksOf(session, "rejected"); len(rej) != 2 || len(e.hunksOf(session, "accepted")) != 0 {
				t.Errorf("rejected %v accepted %v", rej, e.hunksOf(session, "accepted"))
			}
		})
	}
}

// TestAcceptSome: of three hunks (greet, other, the AI comment) only the
// greet change is accepted.
func TestAcceptSome(t *testing.T) {
	want := strings.Replace(mainGo, "return \"hi\"", "return \"hello\"", 1)
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			o := envOptions{replies: replies(greetEdit, otherEdit)}
			if !codeActionDelivery(profile) {
				// The Refactor Preview with only the first change ticked.
				o.applyEdit = func(ed *fakeeditor.Editor, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
					return ed.ApplyAnnotated(p.Edit, func(id string) bool { return id == "h1" })
				}
			}
			e := start(t, profile, o)
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				diags := e.diagnostics(3)
				var greetDiag fakeeditor.Diagnostic
				for _, d := range diags {
					if hunkOf(d) == "h1" {
						greetDiag = d
					}
				}
				e.pickOn(greetDiag, "AIDE: Accept h1")
				diags = e.diagnostics(2) // h1 landed and is withdrawn; the others moved with the text
				for _, d := range diags {
					e.pickOn(d, "AIDE: Reject "+hunkOf(d))
				}
			}
			e.waitEvent(session, "done")
			if got := e.ed.Text("main.go"); got != want {
				t.Errorf("main.go:\n%s\nwant:\n%s", got, want)
			}
			acc, rej := e.hunksOf(session, "accepted"), e.hunksOf(session, "rejected")
			slices.Sort(rej)
			if !slices.Equal(acc, []string{"h1"}) || !slices.Equal(rej, []string{"h2", "h3"}) {
				t.Errorf("accepted %v rejected %v, want [h1] and [h2 h3]", acc, rej)
			}
		})
	}
}

// TestStaleHunk: the user types inside a proposed change meanwhile; that
// hunk is withdrawn as stale and never applied, the other still lands.
func TestStaleHunk(t *testing.T) {
	typed := func(ed *fakeeditor.Editor) {
		text := ed.Text("main.go")
		at := strings.Index(text, "return \"hi\"") + len("return \"hi")
		r := ed.Range("main.go", at, at)
		ed.Change("main.go", fakeeditor.Edit{Range: r, Text: " there"})
	}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			o := envOptions{replies: replies(greetEdit, otherEdit)}
			if !codeActionDelivery(profile) {
				first := true
				o.applyEdit = func(ed *fakeeditor.Editor, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
					if first {
						// The user typed while the preview was opening: VS Code
						// refuses the now stale version and applies nothing.
						first = false
						typed(ed)
					}
					return ed.ApplyWorkspaceEdit(p.Edit)
				}
			}
			e := start(t, profile, o)
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			if codeActionDelivery(profile) {
				e.diagnostics(3)
				typed(e.ed)
				diags := e.diagnostics(2)
				for _, d := range diags {
					if hunkOf(d) == "h1" {
						t.Errorf("the stale hunk h1 is still offered")
					}
				}
				e.pickOn(diags[0], "AIDE: Accept all 2 changes")
			}
			e.waitEvent(session, "done")
			if stale := e.hunksOf(session, "stale"); !slices.Equal(stale, []string{"h1"}) {
				t.Errorf("stale hunks %v, want [h1]", stale)
			}
			got := e.ed.Text("main.go")
			if !strings.Contains(got, "return \"hi there\"") || strings.Contains(got, "hello") || !strings.Contains(got, "return 2") {
				t.Errorf("main.go must keep the user's typing, never get the stale change, and get the other:\n%s", got)
			}
		})
	}
}

// TestEditedPlan: the user rewrites the plan in the plan file before
// approving; the editor pass is given the edited plan.
func TestEditedPlan(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(otherEdit)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, func(text string) string {
				return strings.Replace(text, "1. In main.go, make greet return \"hello\".", "1. Leave greet alone; make other return 2 (USER-EDITED STEP).", 1)
			})
			e.progressEnds(2)
			reqs := e.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want architect and editor", len(reqs))
			}
			if ed := requestText(reqs[1]); !strings.Contains(ed, "USER-EDITED STEP") || strings.Contains(ed, "make greet return") {
				t.Errorf("the editor was not given the edited plan")
			}
			plan := e.waitEvent(session, "proposal")
			_ = plan
			found := false
			for _, ev := range e.events(session) {
				if ev["event"] == "plan" && ev["edited"] == true {
					found = true
				}
			}
			if !found {
				t.Errorf("no plan event marked edited: %v", eventNames(e.events(session)))
			}
		})
	}
}

// TestHelixWithoutCustomMethods replays the whole Helix path (AI comment,
// plan shown with showDocument, approve in the plan file, per-hunk accept
// through code actions) and checks that no aide/* method ever went to it.
func TestHelixWithoutCustomMethods(t *testing.T) {
	const profile = "helix-25.1"
	e := start(t, profile, envOptions{replies: replies(greetEdit)})
	session := e.toPlan(profile)
	e.approveInPlanFile(session, nil)
	for n := 2; n > 0; n-- {
		diags := e.diagnostics(n)
		e.pickOn(diags[0], "AIDE: Accept "+hunkOf(diags[0]))
	}
	e.waitEvent(session, "done")
	if got := e.ed.Text("main.go"); got != afterGreet {
		t.Errorf("main.go:\n%s\nwant:\n%s", got, afterGreet)
	}
	for _, m := range e.ed.Messages() {
		if strings.HasPrefix(m.Method, "aide/") {
			t.Errorf("Helix was sent %s", m.Method)
		}
	}
	if _, err := os.Stat(filepath.Join(e.root, e.planPath(session))); err != nil {
		t.Errorf("the plan file form is missing: %v", err)
	}
	if len(e.ed.Requests("window/showDocument")) == 0 {
		t.Errorf("the plan was not shown with window/showDocument")
	}
	_ = lsp.PlanURI
}
