package planview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// renderedPlans are real plan documents as Render writes them, in the
// states a user edits them in.
func renderedPlans() []string {
	plan, _ := Parse("## Plan\n1. In `main.go`, add a --verbose flag.\n2. Log each request when it is set.\n## End Plan")
	long := Cut(strings.Repeat("- step é\n", MaxPlanChars/8))
	full := fullDoc("20260101-000000-abcdef", plan)
	truncated := full
	truncated.Plan = long
	streaming := Doc{Session: "s", Task: "t", State: "planning", PlanNote: "The architect is writing the plan…", Streaming: "## Plan\n1. half"}
	oneCall := Doc{Session: "s", Task: "t", State: "proposed", OneCall: true, EditorModel: "m", Plan: plan, Diff: "```diff\n-a\n+b\n```"}
	return []string{Render(full), Render(truncated), Render(streaming), Render(oneCall)}
}

// FuzzExtractPlan: the plan document is the user's to edit, so ExtractPlan
// takes any text. It either refuses with ErrNoPlan or ErrEmptyPlan (and no
// plan), or returns a non-empty plan within MaxPlanChars, valid UTF-8 when
// the document was, with no CRLF left, that renders and extracts again
// unchanged (what the user approves is what is carried out, every time).
// The inputs that broke it once are in testdata/fuzz/FuzzExtractPlan.
func FuzzExtractPlan(f *testing.F) {
	for _, doc := range renderedPlans() {
		f.Add(doc)
		// The edits users make: End Plan deleted, CRLF line ends, the plan
		// rewritten, headings retyped, everything after the plan deleted.
		f.Add(strings.Replace(doc, "## End Plan\n", "", 1))
		f.Add(strings.ReplaceAll(doc, "\n", "\r\n"))
		f.Add(strings.Replace(doc, "2. Log each request", "2. Log only failures\n3. ## Log", 1))
		f.Add(strings.Replace(strings.Replace(doc, "## End Plan", "##end plan:", 1), "## Plan", "## PLAN", 1))
		if i := strings.Index(doc, "## End Plan"); i >= 0 {
			f.Add(doc[:i])
			f.Add(doc[:i] + "*Note: kept?*\n## Cost\n")
		}
	}
	f.Add("")
	f.Add("## Plan")
	f.Add("## Plan\n\n*Note: only a note*\n")
	f.Add("## Plan\n\xff\xfe\n## Drift")

	f.Fuzz(func(t *testing.T, doc string) {
		p, err := ExtractPlan(doc)
		if err != nil {
			if err != ErrNoPlan && err != ErrEmptyPlan {
				t.Fatalf("ExtractPlan refused with %v; want ErrNoPlan or ErrEmptyPlan", err)
			}
			if p != (Plan{}) {
				t.Fatalf("refusal %v with a plan %+v", err, p)
			}
			return
		}
		n := utf8.RuneCountInString(p.Text)
		switch {
		case strings.TrimSpace(p.Text) == "":
			t.Fatalf("empty plan accepted from %q", doc)
		case n > MaxPlanChars:
			t.Fatalf("plan of %d characters, over the limit", n)
		case p.Truncated != (p.Original > MaxPlanChars) || p.Original < n:
			t.Fatalf("cut marked wrong: truncated %v, original %d, kept %d", p.Truncated, p.Original, n)
		case strings.Contains(p.Text, "\r\n"):
			t.Fatalf("CRLF left in the plan %q", p.Text)
		case utf8.ValidString(doc) && !utf8.ValidString(p.Text):
			t.Fatalf("a rune was split: %q", p.Text)
		}
		// The plan as approved renders and extracts again unchanged.
		for _, state := range []string{"waiting for approval", "proposed"} {
			again := Render(Doc{Session: "s", Task: doc, State: state, Plan: p, Log: []string{doc}})
			back, err := ExtractPlan(again)
			if err != nil || back.Text != p.Text {
				t.Fatalf("round trip (%s): %q → %q (%v)", state, p.Text, back.Text, err)
			}
		}
	})
}

// FuzzReadFeedback: any plan document (as the user may leave it) is read
// without a panic; reasons and notes stay within their bounds, and a
// document rendered with what was read gives the same notes back.
func FuzzReadFeedback(f *testing.F) {
	f.Add("## Plan\n1. a\nNote: b\n## End Plan\n## Notes\n\nc\n## Proposed changes\n- `h1` x — rejected: d\n")
	f.Add("## Proposed changes\n- h2 — rejected:\n## Notes\n")
	f.Add("## Proposed changes\n- H0 x - rejected: \xe2\n")
	f.Fuzz(func(t *testing.T, doc string) {
		fb := ReadFeedback(doc)
		for id, r := range fb.Reasons {
			if !strings.HasPrefix(id, "h") || r == "" || !utf8.ValidString(r) || utf8.RuneCountInString(r) > MaxReasonChars+4 {
				t.Fatalf("reason %q: %q", id, r)
			}
		}
		if utf8.RuneCountInString(fb.Notes) > MaxNotesChars+4 {
			t.Fatalf("notes of %d runes", utf8.RuneCountInString(fb.Notes))
		}
		if !utf8.ValidString(doc) || strings.Contains(fb.Notes, "\n## ") || strings.HasPrefix(fb.Notes, "## ") {
			return
		}
		again := ReadFeedback(Render(Doc{Session: "s", Task: "t", State: "proposed", Plan: Plan{Text: "1. x"}, Notes: fb.Notes}))
		if again.Notes != fb.Notes {
			t.Fatalf("notes %q read back as %q", fb.Notes, again.Notes)
		}
	})
}
