package planview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in, want string
		err            error
	}{
		{"prose around", "I read the code.\n\n## Plan\n1. In `a.go`, rename Foo to Bar.\n## End Plan\nThanks.", "1. In `a.go`, rename Foo to Bar.", nil},
		{"first block only", "## Plan\nfirst\n## End Plan\n## Plan\nsecond\n## End Plan", "first", nil},
		{"heading variants", "## plan:\r\n- step\r\n##  End  Plan\r\n", "- step", nil},
		{"no plan", "Here is what I would do: nothing.", "", ErrNoPlan},
		{"unterminated", "## Plan\nno closing block", "", ErrUnterminated},
		{"empty", "## Plan\n\n   \n## End Plan", "", ErrEmptyPlan},
		{"h3 is not the plan", "### Plan\nx\n### End Plan", "", ErrNoPlan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.in)
			if err != c.err {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if p.Text != c.want {
				t.Fatalf("plan = %q, want %q", p.Text, c.want)
			}
		})
	}
}

func TestParseCutsLongPlans(t *testing.T) {
	long := strings.Repeat("é", MaxPlanChars+100)
	p, err := Parse("## Plan\n" + long + "\n## End Plan")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || utf8.RuneCountInString(p.Text) != MaxPlanChars || p.Original != MaxPlanChars+100 || !utf8.ValidString(p.Text) {
		t.Fatalf("cut wrong: truncated=%v len=%d original=%d", p.Truncated, utf8.RuneCountInString(p.Text), p.Original)
	}
	doc := Render(Doc{Session: "s1", Task: "t", State: "waiting for approval", Plan: p})
	if !strings.Contains(doc, "The plan was cut") {
		t.Fatalf("the cut is not shown:\n%s", doc[len(doc)-300:])
	}
}

// fullDoc is a plan document with every section filled in.
func fullDoc(session string, plan Plan) Doc {
	return Doc{
		Session: session, Task: "add verbose logging\n## Plan\nnot a plan", State: "waiting for approval",
		Cycle: 2, MaxCycles: 8, ArchitectModel: "openai/o3", EditorModel: "ollama/qwen",
		Plan:  plan,
		Drift: []DriftItem{{Path: "main.go", Kind: "modified", Summary: "+1 -0 lines"}},
		Hunks: []HunkLine{{ID: "h1", Summary: "main.go:3 replace 1 line with 2", Status: "pending"}},
		Diff:  "--- a/main.go\n+++ b/main.go\n@@ -3 +3,2 @@\n-x\n+y\n+z\n",
		Cost:  []CostLine{{Model: "openai/o3", Role: "architect", Requests: 1, PromptTokens: 100, CompletionTokens: 20, CostUSD: 0.01}},
		Log:   []string{"fallback: collapse"},
	}
}

func TestRenderAndExtractRoundTrip(t *testing.T) {
	plan, _ := Parse("## Plan\n1. In `main.go`, add a --verbose flag.\n2. Log each request when it is set.\n## End Plan")
	d := fullDoc("s1", plan)
	doc := Render(d)
	for _, want := range []string{"cycle 2/8", "waiting for approval", "`openai/o3` → editor `ollama/qwen`", "## Drift", "## Proposed changes", "```diff", "`h1`", "| openai/o3 | architect | 1 |", "## Log"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q:\n%s", want, doc)
		}
	}
	got, err := ExtractPlan(doc)
	if err != nil || got.Text != plan.Text {
		t.Fatalf("ExtractPlan = %q, %v; want %q", got.Text, err, plan.Text)
	}
	// The user edits the plan and deletes the End Plan line by accident.
	edited := strings.Replace(doc, "2. Log each request when it is set.", "2. Log only failed requests.", 1)
	edited = strings.Replace(edited, "## End Plan\n", "", 1)
	got, err = ExtractPlan(edited)
	if err != nil || !strings.HasSuffix(got.Text, "2. Log only failed requests.") || strings.Contains(got.Text, "Drift") {
		t.Fatalf("edited plan = %q, %v", got.Text, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"## Plan\nx\n## End Plan", "## Plan\n", "", "## Plan\r\n\r\n## End Plan\r\n",
		"text\n## PLAN:\n- a\n- b\n## end plan\nmore", strings.Repeat("## Plan\n", 3), "\xff## Plan\n\xfe\n## End Plan",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if p.Text != "" {
				t.Fatalf("error %v with a plan %q", err, p.Text)
			}
			return
		}
		if strings.TrimSpace(p.Text) == "" {
			t.Fatalf("empty plan accepted from %q", s)
		}
		if utf8.RuneCountInString(p.Text) > MaxPlanChars {
			t.Fatalf("plan longer than the limit")
		}
		if !p.Truncated {
			// A plan survives rendering and extraction unchanged.
			back, err := ExtractPlan(Render(Doc{Session: "s", Task: s, State: "proposed", Plan: p}))
			if err != nil || back.Text != strings.TrimSpace(p.Text) && back.Text != p.Text {
				t.Fatalf("round trip: %q → %q (%v)", p.Text, back.Text, err)
			}
		}
	})
}
