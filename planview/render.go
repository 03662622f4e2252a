package planview

import (
	"fmt"
	"strings"
)

// Doc is everything the plan document shows.
type Doc struct {
	Session        string
	Task           string
	State          string // planning, waiting for approval, editing, proposed, done, cancelled, failed, interrupted
	Reason         string // why the session failed or stopped, when it did
	Cycle          int
	MaxCycles      int
	ArchitectModel string
	EditorModel    string
	OneCall        bool // the session (or its last turn) skipped the architect

	Plan     Plan   // empty Text: no plan (yet)
	PlanNote string // shown instead of a plan, e.g. "no plan: the architect's answer had no ## Plan block"
	// Streaming is the architect's answer so far, shown while it streams in.
	Streaming string

	// Notes is the user's "## Notes" section, rendered as they wrote it:
	// the server never rewrites it (ReadFeedback reads it back).
	Notes string

	Drift []DriftItem

	Hunks []HunkLine // the proposed hunks and what became of them
	// IdleSteps are the plan's steps no hunk carries out.
	IdleSteps []int
	Diff      string // unified diffs per file (already fenced or not; see Render)

	// Estimates price the editor call while the plan waits: the editor
	// model's first, then the other models it could be approved with.
	Estimates []string
	// Versus is the last approved editor call's estimate against its use.
	Versus string

	// Undo lists what undos did to the session's hunks: undone, or left
	// because their lines changed since (contract §5).
	Undo []UndoLine
	// Verification is what the commands of `verify` said of the proposal
	// (contract §6.1); VerifyNote the rounds that failed before it.
	Verification []VerifyLine
	VerifyNote   string

	Cost []CostLine
	Log  []string // fallbacks, retries and errors, oldest first
}

// UndoLine is one hunk an undo reverted (Undone, By the undo's session)
// or left as a conflict (Reason).
type UndoLine struct {
	ID     string
	Undone bool
	By     string
	Reason string
}

// VerifyLine is one verification command's result.
type VerifyLine struct {
	Name    string
	Command string // as typed: go build ./...
	OK      bool
	Ms      int64
	Err     string // "exit status 1", "killed at its time limit of 2m0s", ...
	Tail    string // the last lines of a failure's output
}

// DriftItem is one file that changed between the plan and the editor call.
type DriftItem struct {
	Path    string
	Kind    string
	Summary string
}

// HunkLine is one proposed hunk in the document.
type HunkLine struct {
	ID      string
	Summary string
	Status  string // pending, accepted, rejected, stale
	Reason  string // why the user rejected it, when they said (ReadFeedback reads it back)
	Step    string // "step 2", "not in the plan", or "" (the editor named no steps)
}

// CostLine is one row of the session's cost table.
type CostLine struct {
	Model            string
	Role             string
	Requests         int
	PromptTokens     int
	CompletionTokens int
	CostUSD          float64
	Estimated        bool
	PriceFrom        string // whose price, when not the user's (model.Price.From)
}

// MaxLogLines is how many log lines the document keeps (the newest): it is a
// short log; the full record is .aide/sessions/<session>.jsonl.
const MaxLogLines = 20

// notePrefix starts the renderer's notes below the plan, so ExtractPlan can
// drop them when the user deleted the "## End Plan" line.
const notePrefix = "*Note: "

// stateLabel is the state as the contract spells it in the document.
func stateLabel(s string) string {
	switch s {
	case "planning", "editing":
		return s + "…"
	}
	return s
}

// Render renders the plan document as Markdown. The plan sits between
// "## Plan" and "## End Plan", so ExtractPlan finds it again after the user
// edits it; the task is quoted so that no task text can pose as a heading.
//
// Every text the server did not write itself is defanged where it enters
// (Defang, DefangLine, DefangPlain, or a code span): the task (a
// repository's AI comment can be one), file names, model ids, the
// provider's error text, the model's summaries. Only the user's own notes
// and reasons are rendered as written, since ReadFeedback reads them back.
func Render(d Doc) string {
	var b strings.Builder
	b.WriteString("# AIDE session " + d.Session + "\n\n")
	b.WriteString("**Task**\n\n")
	// Defanged plain, as the streaming answer below: a quote changes
	// what is code.
	for _, l := range strings.Split(DefangPlain(strings.TrimSpace(d.Task)), "\n") {
		b.WriteString("> " + l + "\n")
	}
	b.WriteString("\n")
	state := "**State:** " + stateLabel(d.State)
	if d.MaxCycles > 0 {
		state += fmt.Sprintf(" · cycle %d/%d", d.Cycle, d.MaxCycles)
	}
	b.WriteString(state + "  \n")
	// Model ids come from configuration a repository may write: one
	// code span each, on one line, so none can open a section.
	if d.OneCall {
		b.WriteString("**Models:** editor " + codeSpan(oneLine(d.EditorModel)) + " (one call, no architect)\n")
	} else {
		b.WriteString("**Models:** architect " + codeSpan(oneLine(d.ArchitectModel)) + " → editor " + codeSpan(oneLine(d.EditorModel)) + "\n")
	}
	if d.Reason != "" {
		b.WriteString("\n**Stopped:** " + DefangLine(d.Reason) + "\n")
	}
	if d.Plan.Text != "" {
		b.WriteString("\n## Plan\n\n")
		b.WriteString(d.Plan.Text)
		b.WriteString("\n\n## End Plan\n")
		if d.Plan.Truncated {
			fmt.Fprintf(&b, "\n"+notePrefix+"The plan was cut: it had %d characters; only the first %d are kept.*\n", d.Plan.Original, MaxPlanChars)
		}
		if d.State == "waiting for approval" {
			b.WriteString("\n" + notePrefix + "Edit the plan above if you like; approving carries out the plan as it stands in this file.*\n")
		}
	} else if d.PlanNote != "" {
		b.WriteString("\n*" + DefangLine(d.PlanNote) + "*\n")
	}
	if d.Plan.Text == "" && d.Streaming != "" {
		// Quoted, so that a half-written "## Plan" is not taken for the plan;
		// defanged plain (DefangPlain), since a quote changes what is code.
		b.WriteString("\n")
		for _, l := range strings.Split(DefangPlain(d.Streaming), "\n") {
			b.WriteString("> " + l + "\n")
		}
	}
	if len(d.Estimates) > 0 {
		b.WriteString("\n**Editor call (estimate):** " + DefangLine(d.Estimates[0]) + "\n")
		if len(d.Estimates) > 1 {
			b.WriteString("\nOr approve with another model (code action `Approve with <model>`):\n\n")
			for _, l := range d.Estimates[1:] {
				b.WriteString("- " + DefangLine(l) + "\n")
			}
		}
	}
	if d.Notes != "" {
		b.WriteString("\n## Notes\n\n" + d.Notes + "\n")
	}
	if len(d.Drift) > 0 {
		b.WriteString("\n## Drift\n\nChanged since the plan was written:\n\n")
		for _, c := range d.Drift {
			line := "- " + codeSpan(oneLine(c.Path)) + " " + c.Kind
			if c.Summary != "" {
				line += " (" + DefangLine(c.Summary) + ")"
			}
			b.WriteString(line + "\n")
		}
	}
	if len(d.Hunks) > 0 || d.Diff != "" {
		b.WriteString("\n## Proposed changes\n\n")
		for _, h := range d.Hunks {
			// The summary is the model's: defanged, so that it can neither
			// fetch nor write a reason marker ("— rejected:") of its own.
			line := fmt.Sprintf("- `%s` %s — ", h.ID, DefangLine(h.Summary))
			if h.Step != "" {
				line += h.Step + " — "
			}
			line += h.Status
			if h.Status == "rejected" && h.Reason != "" {
				line += ": " + oneLine(h.Reason)
			}
			b.WriteString(line + "\n")
		}
		if len(d.IdleSteps) > 0 {
			var n []string
			for _, st := range d.IdleSteps {
				n = append(n, fmt.Sprint(st))
			}
			word := "Steps"
			if len(n) == 1 {
				word = "Step"
			}
			b.WriteString("\n**" + word + " with no change:** " + strings.Join(n, ", ") + "\n")
		}
		if d.Diff != "" {
			// Always fenced, past the diff's longest backtick run: the
			// diff holds the model's text, which a preview would render.
			b.WriteString("\n" + Fenced("diff", strings.TrimRight(d.Diff, "\n")))
		}
	}
	if len(d.Undo) > 0 {
		b.WriteString("\n## Undo\n\n")
		for _, u := range d.Undo {
			if u.Undone {
				fmt.Fprintf(&b, "- `%s` — undone by session %s\n", u.ID, u.By)
			} else {
				fmt.Fprintf(&b, "- `%s` — not undone: %s\n", u.ID, DefangLine(u.Reason))
			}
		}
	}
	if len(d.Verification) > 0 || d.VerifyNote != "" {
		b.WriteString("\n## Verification\n\n")
		if d.VerifyNote != "" {
			b.WriteString(Defang(oneLine(d.VerifyNote)) + "\n\n")
		}
		for _, v := range d.Verification {
			line := "- " + codeSpan(oneLine(v.Name))
			if v.Command != "" {
				line += " (" + codeSpan(oneLine(v.Command)) + ")"
			}
			status := "ok"
			if !v.OK {
				status = "failed"
				if v.Err != "" {
					status += " (" + DefangLine(v.Err) + ")"
				}
			}
			fmt.Fprintf(&b, "%s: %s, %.1f s\n", line, status, float64(v.Ms)/1000)
			if !v.OK && strings.TrimSpace(v.Tail) != "" {
				fence := fenceFor(v.Tail)
				b.WriteString("\n" + fence + "text\n" + strings.TrimRight(v.Tail, "\n") + "\n" + fence + "\n\n")
			}
		}
	}
	if len(d.Cost) > 0 {
		b.WriteString("\n## Cost\n\n| model | role | requests | prompt | completion | USD |\n|---|---|---|---|---|---|\n")
		var total float64
		for _, c := range d.Cost {
			est := ""
			if c.Estimated {
				est = " (est.)"
			}
			from := ""
			if c.PriceFrom != "" {
				from = " (price from " + tableCell(c.PriceFrom) + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d%s | %d%s | %.4f%s |\n", tableCell(c.Model), c.Role, c.Requests, c.PromptTokens, est, c.CompletionTokens, est, c.CostUSD, from)
			total += c.CostUSD
		}
		fmt.Fprintf(&b, "| **total** | | | | | %.4f |\n", total)
	}
	if d.Versus != "" {
		if len(d.Cost) == 0 {
			b.WriteString("\n## Cost\n")
		}
		b.WriteString("\n" + DefangLine(d.Versus) + "\n")
	}
	if len(d.Log) > 0 {
		b.WriteString("\n## Log\n\n")
		log := d.Log
		if len(log) > MaxLogLines {
			fmt.Fprintf(&b, "- … %d earlier entries in .aide/sessions/%s.jsonl\n", len(log)-MaxLogLines, d.Session)
			log = log[len(log)-MaxLogLines:]
		}
		for _, l := range log {
			b.WriteString("- " + DefangLine(l) + "\n")
		}
	}
	return b.String()
}

// fenceFor is a code fence longer than any run of backticks in text, so
// a command's output cannot close it and turn into Markdown.
func fenceFor(text string) string {
	return strings.Repeat("`", max(3, longestBackticks(text)+1))
}

// tableCell is one line of model text inside a table cell, where a "|"
// ends the cell (GFM): defanged, its "|" escaped. Model ids are validated
// where they enter; this holds whatever reaches the table.
func tableCell(text string) string {
	return strings.ReplaceAll(DefangLine(text), "|", `\|`)
}

// codeSpan quotes text as inline code whatever backticks it holds.
func codeSpan(text string) string {
	f := strings.Repeat("`", longestBackticks(text)+1)
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		return f + " " + text + " " + f
	}
	return f + text + f
}

func longestBackticks(text string) int {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// Fenced renders text as a fenced code block of the info string info,
// fenced past its longest backtick run so no line of it closes the fence.
func Fenced(info, text string) string {
	f := fenceFor(text)
	return f + info + "\n" + text + "\n" + f + "\n"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// SessionOf is the session a plan document names in its first line
// ("# AIDE session <id>"), "" when it names none. Session ids are random:
// a document that does not name the session is not one this server wrote
// for it (a file shipped in a repository, left by another server), and is
// never taken as its plan (contract §5).
func SessionOf(doc string) string {
	first, _, _ := strings.Cut(doc, "\n")
	id, ok := strings.CutPrefix(strings.TrimRight(first, "\r"), "# AIDE session ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(id)
}
