package planview

import (
	"strings"
	"testing"
)

func TestReadFeedbackFromARenderedAndEditedDocument(t *testing.T) {
	doc := Render(Doc{Session: "s1", Task: "rename x", State: "proposed", MaxCycles: 8,
		Plan: Plan{Text: "1. Rename x to count in main.go.\n2. Update the call site.\n   Note: the call site is in a generated file"},
		Hunks: []HunkLine{
			{ID: "h1", Summary: "main.go:3 change 1 line", Status: "accepted"},
			{ID: "h2", Summary: "main.go:6 change 1 line", Status: "rejected"},
			{ID: "h3", Summary: "gen.go:1 change 2 lines - refresh", Status: "pending"},
		}})
	// The user's edits: a reason on h2's and h3's lines, a Notes section.
	doc = strings.Replace(doc, "main.go:6 change 1 line — rejected", "main.go:6 change 1 line — rejected: keep the call site", 1)
	doc = strings.Replace(doc, "refresh — pending", "refresh — rejected: generated code, do not edit", 1)
	doc += "\n## Notes\n\nPrefer small steps.\n\n- and keep the tests green\n"
	f := ReadFeedback(doc)
	if f.Reasons["h2"] != "keep the call site" || f.Reasons["h3"] != "generated code, do not edit" || len(f.Reasons) != 2 {
		t.Errorf("reasons %q", f.Reasons)
	}
	if f.Notes != "Prefer small steps.\n\n- and keep the tests green" {
		t.Errorf("notes %q", f.Notes)
	}
	if len(f.Steps) != 1 || f.Steps[0] != (StepNote{Step: 2, Text: "the call site is in a generated file"}) {
		t.Errorf("step notes %+v", f.Steps)
	}
}

func TestNotesAreRenderedAsWrittenAndReadBackTheSame(t *testing.T) {
	notes := "Prefer small steps.\n\n  * keep `x` exported\n### not a section of ours"
	d := Doc{Session: "s1", Task: "t", State: "waiting for approval", Plan: Plan{Text: "1. do it"}, Notes: notes,
		Hunks: []HunkLine{{ID: "h2", Summary: "a.go:1 change", Status: "rejected", Reason: "keep the call site"}}}
	doc := Render(d)
	if !strings.Contains(doc, "\n## Notes\n\n"+notes+"\n") {
		t.Fatalf("notes not rendered verbatim:\n%s", doc)
	}
	if !strings.Contains(doc, "- `h2` a.go:1 change — rejected: keep the call site\n") {
		t.Fatalf("the reason is not on the hunk's line:\n%s", doc)
	}
	f := ReadFeedback(doc)
	if f.Notes != notes || f.Reasons["h2"] != "keep the call site" {
		t.Errorf("read back %q, %q", f.Notes, f.Reasons)
	}
	// Rendering what was read back gives the same document: nothing the user wrote moves.
	d.Notes = f.Notes
	if Render(d) != doc {
		t.Error("a second render changed the document")
	}
	// The notes do not become part of the plan, even with "## End Plan" deleted.
	p, err := ExtractPlan(strings.Replace(doc, "## End Plan\n", "", 1))
	if err != nil || p.Text != "1. do it" {
		t.Errorf("plan %q, %v", p.Text, err)
	}
}

func TestNoFeedback(t *testing.T) {
	doc := Render(Doc{Session: "s1", Task: "t", State: "waiting for approval", Plan: Plan{Text: "1. do it\n2. and this"},
		Hunks: []HunkLine{{ID: "h1", Summary: "main.go:6 change 1 line", Status: "pending"}, {ID: "h2", Summary: "a.go:1 delete 2 lines", Status: "rejected"}}})
	f := ReadFeedback(doc)
	if len(f.Reasons) != 0 || f.Notes != "" || len(f.Steps) != 0 {
		t.Errorf("feedback in an unedited document: %+v", f)
	}
	if !ReadFeedback("").Empty() {
		t.Error("empty document has feedback")
	}
}

func TestLongNotesAreCut(t *testing.T) {
	f := ReadFeedback("## Notes\n\n" + strings.Repeat("é", MaxNotesChars+10))
	if !strings.HasSuffix(f.Notes, " […]") || len([]rune(f.Notes)) > MaxNotesChars+4 {
		t.Errorf("notes of %d runes", len([]rune(f.Notes)))
	}
}

func TestSteps(t *testing.T) {
	got := Steps("Intro line.\n1. First.\n   1. a nested list item\n2) Second.\n### Step 3: third\n**4.** fourth\n2. again\n- 5. not a step")
	want := []int{1, 2, 3, 4}
	if len(got) != len(want) {
		t.Fatalf("Steps = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Steps = %v, want %v", got, want)
		}
	}
}

// A reason typed by hand against "H2" reaches hunk h2, and a broken
// character in it is replaced rather than sent to the model as is.
func TestReasonForAHunkIDTypedInCapitals(t *testing.T) {
	f := ReadFeedback("## Proposed changes\n- H2 main.go:6 - rejected: keep it \xe2\n")
	if f.Reasons["h2"] != "keep it \uFFFD" || len(f.Reasons) != 1 {
		t.Errorf("reasons %q", f.Reasons)
	}
}

// Empty reports whether the document held no feedback.
func (f Feedback) Empty() bool { return len(f.Reasons) == 0 && f.Notes == "" && len(f.Steps) == 0 }
