// Package planview parses the architect's plan (the text between a line
// "## Plan" and a line "## End Plan", contract §5) and renders the plan
// document a user reads and may edit: task, state, plan, drift, proposed
// changes, cost and a short log. It also takes an edited plan back out of
// the plan file, so the plan the user approves is the plan carried out.
package planview

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// MaxPlanChars is the longest plan kept (contract §5), in characters (runes).
// Longer plans are cut and the cut is marked.
const MaxPlanChars = 8192

// Plan is a parsed plan.
type Plan struct {
	Text      string // the plan, trimmed, at most MaxPlanChars characters
	Truncated bool   // the plan was longer and was cut
	Original  int    // length of the uncut plan in characters
}

// Why a text holds no usable plan.
var (
	ErrNoPlan       = errors.New("no \"## Plan\" line")
	ErrUnterminated = errors.New("\"## Plan\" without a closing \"## End Plan\" line")
	ErrEmptyPlan    = errors.New("the plan between \"## Plan\" and \"## End Plan\" is empty")
)

// isHeading reports whether line is the heading h, tolerating surrounding
// blanks, a trailing colon and case ("## plan:"), since models vary there.
func isHeading(line, h string) bool {
	l := strings.TrimSpace(line)
	l = strings.TrimSuffix(l, ":")
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "##") || strings.HasPrefix(l, "###") {
		return false
	}
	l = strings.TrimSpace(strings.TrimPrefix(l, "##"))
	return strings.EqualFold(strings.Join(strings.Fields(l), " "), h)
}

// planLine is the index of the first "## Plan" line, or -1: the one scan
// for the plan's start, for a model's answer and for a plan document.
func planLine(lines []string) int {
	for i, l := range lines {
		if isHeading(l, "Plan") {
			return i
		}
	}
	return -1
}

// HasPlan says a plan document (or a model's answer) has a plan section,
// as ExtractPlan would find it.
func HasPlan(doc string) bool {
	_, err := ExtractPlan(doc)
	return err == nil
}

// Parse extracts the first plan block of a model's answer (the engine
// defangs it, Defang, before it shows it). A "## Plan" line
// without a later "## End Plan" line is unparseable (ErrUnterminated); a
// block with nothing but blanks is ErrEmptyPlan.
func Parse(text string) (Plan, error) {
	lines := strings.Split(text, "\n")
	start := planLine(lines)
	if start < 0 {
		return Plan{}, ErrNoPlan
	}
	end := -1
	for i := start + 1; i < len(lines); i++ {
		if isHeading(lines[i], "End Plan") {
			end = i
			break
		}
	}
	if end < 0 {
		return Plan{}, ErrUnterminated
	}
	body := unixLineEnds(strings.Join(lines[start+1:end], "\n"))
	body = strings.Trim(body, "\n")
	body = strings.TrimRight(body, " \t\r\n")
	return cutNonEmpty(body)
}

// cutNonEmpty cuts a plan body; a body that is blank, or blank for all of
// the part kept, is ErrEmptyPlan.
func cutNonEmpty(body string) (Plan, error) {
	p := Cut(body)
	if strings.TrimSpace(p.Text) == "" {
		return Plan{}, ErrEmptyPlan
	}
	return p, nil
}

// unixLineEnds turns every "\r\n" line end into "\n", and so does it for
// "\r\r\n" (line ends converted twice, which one strings.ReplaceAll would
// leave as "\r\n"), in one pass.
func unixLineEnds(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '\r' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\r' {
			j++
		}
		if j == len(s) || s[j] != '\n' {
			b.WriteString(s[i:j]) // carriage returns that end no line are text
		}
		i = j
	}
	return b.String()
}

// Cut limits a plan to MaxPlanChars characters, never splitting a rune.
func Cut(body string) Plan {
	n := utf8.RuneCountInString(body)
	p := Plan{Text: body, Original: n}
	if n <= MaxPlanChars {
		return p
	}
	i, count := 0, 0
	for i < len(body) && count < MaxPlanChars {
		_, size := utf8.DecodeRuneInString(body[i:])
		i += size
		count++
	}
	// The cut can end in blanks: trim them, since a plan is kept trimmed
	// (the plan document would drop them, and the approved plan differ).
	p.Text = strings.TrimRight(body[:i], " \t\r\n")
	p.Truncated = true
	return p
}

// sectionHeadings are the document's own headings after the plan; an edited
// plan whose "## End Plan" line was deleted ends at the first of them.
var sectionHeadings = []string{"Notes", "Drift", "Proposed changes", "Cost", "Log"}

// ExtractPlan takes the plan section back out of a plan document the user
// may have edited. It accepts a missing "## End Plan" line when one of the
// document's own sections (or the end of the file) follows, since a user
// editing Markdown can easily delete it.
func ExtractPlan(doc string) (Plan, error) {
	doc = unixLineEnds(doc)
	p, err := Parse(doc)
	if err != ErrUnterminated {
		return p, err
	}
	lines := strings.Split(doc, "\n")
	start := planLine(lines)
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		for _, h := range sectionHeadings {
			if isHeading(lines[i], h) {
				end = i
				break
			}
		}
		if end != len(lines) {
			break
		}
	}
	// The renderer's own notes after the plan are not part of it.
	var kept []string
	for _, l := range lines[start+1 : end] {
		if strings.HasPrefix(l, notePrefix) {
			continue
		}
		kept = append(kept, l)
	}
	return cutNonEmpty(strings.TrimSpace(strings.Join(kept, "\n")))
}
