package planview

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What the user wrote in a plan document for the architect's next pass
// (docs/contract.md §5): a reason on a hunk's line of "## Proposed
// changes" ("- `h2` … — rejected: keep the call site"), a "## Notes"
// section, and "Note:" lines under a step of the plan.

// MaxNotesChars bounds the notes and each reason sent to the architect, so a
// pasted log cannot crowd out the task.
const MaxNotesChars = 4000

// MaxReasonChars bounds one rejection reason.
const MaxReasonChars = 500

// StepNote is a "Note:" line the user wrote under a step of the plan.
type StepNote struct {
	Step int    `json:"step"` // the step's number; 0 when the note comes before any step
	Text string `json:"text"`
}

// Feedback is what ReadFeedback found.
type Feedback struct {
	Reasons map[string]string // hunk id → why the user rejected it
	Notes   string            // the body of "## Notes", as the user wrote it (trimmed)
	Steps   []StepNote
}

// hunkReason is a hunk's line with a reason: the id (backquoted or not),
// anything, then a dash and "rejected:" and the reason. The greedy middle
// takes the last "rejected:", the one the user added after the summary.
var hunkReason = regexp.MustCompile("(?i)^\\s*[-*+]\\s+`?(h[0-9]+)`?(?:\\s.*)?\\s(?:—|–|--|-)\\s*rejected\\s*[:：]\\s*(.*)$")

// stepStart is a numbered step of a plan: "1. …", "2) …", "**3.** …", "### Step 4".
var stepStart = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?(?:step\s+)?([0-9]{1,4})[.):]`)

// stepNumber is the number of a top-level step starting on line l (not
// indented: a nested "1." under a step belongs to that step).
func stepNumber(l string) (int, bool) {
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return 0, false
	}
	m := stepStart.FindStringSubmatch(l)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && n > 0
}

// Steps are the numbers of a plan's top-level steps, in order, each once.
func Steps(plan string) []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range strings.Split(unixLineEnds(plan), "\n") {
		if n, ok := stepNumber(l); ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// ReadFeedback reads the user's feedback out of a plan document.
func ReadFeedback(doc string) Feedback {
	lines := strings.Split(unixLineEnds(doc), "\n")
	code := inFence(lines)
	f := Feedback{}
	planStart, planEnd := -1, -1
	for i, l := range lines {
		if code[i] {
			continue // a heading in a code block is code
		}
		if planStart < 0 && isHeading(l, "Plan") {
			planStart = i
		} else if planStart >= 0 && planEnd < 0 && (isHeading(l, "End Plan") || isSection(l)) {
			planEnd = i
		}
	}
	if planStart >= 0 && planEnd < 0 {
		planEnd = len(lines)
	}
	inPlan := func(i int) bool { return planStart >= 0 && i > planStart && i < planEnd }
	step := 0
	section := ""
	var notes []string
	for i, l := range lines {
		if code[i] {
			// Code is quoted, never a marker: only the notes section
			// keeps it, as the user wrote it.
			if section == "notes" && !inPlan(i) {
				notes = append(notes, l)
			}
			continue
		}
		if inPlan(i) {
			if n, ok := stepNumber(l); ok {
				step = n
			}
			t := strings.TrimSpace(l)
			t = strings.TrimLeft(t, "-*+> \t")
			// "*Note: …*" lines are the renderer's own, not the user's.
			if !strings.HasPrefix(strings.TrimSpace(l), notePrefix) && len(t) >= 5 && strings.EqualFold(t[:5], "note:") {
				if text := userLine(t[5:], MaxReasonChars); text != "" {
					f.Steps = append(f.Steps, StepNote{Step: step, Text: text})
				}
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "## ") || i == planStart || i == planEnd {
			section = ""
			if isHeading(l, "Notes") {
				section = "notes"
			} else if isHeading(l, "Proposed changes") {
				section = "hunks"
			}
			continue
		}
		switch section {
		case "notes":
			notes = append(notes, l)
		case "hunks":
			if m := hunkReason.FindStringSubmatch(l); m != nil {
				if r := userLine(m[2], MaxReasonChars); r != "" {
					if f.Reasons == nil {
						f.Reasons = map[string]string{}
					}
					// Hunk ids are lower case; "H3" typed by hand means h3.
					f.Reasons[strings.ToLower(m[1])] = r
				}
			}
		}
	}
	// A trailing CR is trimmed too: rendered before the line end it would
	// make a CRLF, which reads back as a plain line end.
	f.Notes = clip(strings.Trim(strings.TrimRight(strings.Join(notes, "\n"), " \t\r\n"), "\n"), MaxNotesChars)
	return f
}

// inFence marks the lines of fenced code blocks, fences included.
func inFence(lines []string) []bool {
	out := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		m := ""
		if len(l)-len(t) < 4 {
			m = fenceMarker(t)
		}
		switch {
		case fence == "" && m != "":
			fence, out[i] = m, true
		case fence != "":
			out[i] = true
			if m != "" && strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
		}
	}
	return out
}

// isSection is a heading of the document's own after the plan (or the
// user's Notes), where a plan whose "## End Plan" was deleted ends.
func isSection(l string) bool {
	for _, h := range sectionHeadings {
		if isHeading(l, h) {
			return true
		}
	}
	return false
}

// clip cuts s to n characters, never splitting a rune, marking the cut.
// userLine is one line the user typed, as valid UTF-8 on one line and at
// most n characters: it goes to the model inside JSON.
func userLine(s string, n int) string {
	return clip(oneLine(strings.ToValidUTF8(s, "\uFFFD")), n)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n]), " \t\n") + " […]"
}
