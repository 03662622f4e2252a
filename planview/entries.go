package planview

import (
	"strconv"
	"strings"
)

// Entry is one step of a plan as a to-do list shows it (the ACP adapter's
// plan entries, docs/contract.md §10): the step's number (0 when the plan
// has no numbered steps) and its first line without the number.
type Entry struct {
	Step int
	Text string
}

// maxEntryChars bounds the text of one entry: a to-do line, not the step.
const maxEntryChars = 200

// maxEntries bounds the entries of one plan (a plan is at most 8,192
// characters; a client's list is not the place for hundreds of lines).
const maxEntries = 100

// Entries are a plan's top-level numbered steps ("1. …", "**2.** …",
// "### Step 3: …"), each once, in order, as planview.Steps finds them; a
// plan without numbered steps gives its top-level bullets, else its first
// line. The text is one line of valid UTF-8.
func Entries(plan string) []Entry {
	lines := strings.Split(unixLineEnds(plan), "\n")
	var out []Entry
	seen := map[int]bool{}
	for _, l := range lines {
		if n, ok := stepNumber(l); ok && !seen[n] && len(out) < maxEntries {
			seen[n] = true
			text := entryText(stepStart.ReplaceAllString(l, ""))
			if text == "" {
				text = "step " + strconv.Itoa(n)
			}
			out = append(out, Entry{Step: n, Text: text})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, l := range lines {
		if (strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ")) && len(out) < maxEntries {
			if t := entryText(l[2:]); t != "" {
				out = append(out, Entry{Text: t})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, l := range lines {
		if t := entryText(l); t != "" && !isHeading(l, "## Plan") && !isHeading(l, "## End Plan") {
			return []Entry{{Text: t}}
		}
	}
	return nil
}

// entryText is a step's line as an entry shows it: without the bold
// markers and heading hashes around it, trimmed, one line, clipped.
func entryText(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "#")
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*"))
	return userLine(s, maxEntryChars)
}
