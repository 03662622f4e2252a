package bench

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
)

// HistoryReport is the report of a history bench, and the state --resume
// goes on from (its JSON form).
type HistoryReport struct {
	Source      string                 `json:"source"` // first: a replay says so first
	Kind        string                 `json:"kind"`
	Version     string                 `json:"version,omitempty"`
	Date        time.Time              `json:"date"`
	Cassettes   *CassetteInfo          `json:"cassettes,omitempty"`
	Repo        string                 `json:"repo"`
	Limits      PickLimits             `json:"limits"`
	Modes       []string               `json:"modes"`
	Checks      []string               `json:"checks,omitempty"`
	Interrupted bool                   `json:"interrupted,omitempty"`
	WorkDir     string                 `json:"workDir,omitempty"`
	Prices      map[string]model.Price `json:"prices,omitempty"`
	Picked      []Commit               `json:"picked"`
	Skipped     []Commit               `json:"skipped,omitempty"`
	Rows        []HistoryRow           `json:"rows"`
	Results     []HistoryResult        `json:"results"`
}

// HistoryResult is one commit in one mode.
type HistoryResult struct {
	RunResult
	Commit    string    `json:"commit"`
	Subject   string    `json:"subject"`
	Checked   bool      `json:"checked"` // checks ran (Passed says how they went)
	Closeness Closeness `json:"closeness"`
	// Refused: the session ended without an error and without an edit
	// (the model declined, or saw nothing to do).
	Refused bool `json:"refused,omitempty"`
}

// Outcome is the one-word result of a commit's run.
func (r HistoryResult) Outcome() string {
	switch {
	case r.EngineError:
		return "error"
	case r.Refused:
		return "refused"
	case !r.Checked:
		return "edited"
	}
	return r.RunResult.Outcome()
}

// HistoryRow is one line of the history leaderboard: a mode and a pair.
type HistoryRow struct {
	Row
	Checked       int     `json:"checked"`       // runs whose checks ran
	MeanCloseness float64 `json:"meanCloseness"` // F1 over changed lines, 0..1
	MeanFiles     float64 `json:"meanFiles"`     // files in common, 0..1
	CostPerTask   float64 `json:"costPerTask"`
	CostPerPass   float64 `json:"costPerPass"` // -1: nothing passed
	Refusals      int     `json:"refusals"`
	WrongFileRuns int     `json:"wrongFileRuns"` // runs that changed a file the commit did not
}

// sortResults puts the results in commit order, then mode order: a
// resumed run's report reads like an uninterrupted one's.
func (r *HistoryReport) sortResults() {
	pos := map[string]int{}
	for i, c := range r.Picked {
		pos[c.Hash] = i
	}
	mpos := map[string]int{}
	for i, m := range r.Modes {
		mpos[m] = i
	}
	sort.SliceStable(r.Results, func(i, j int) bool {
		a, b := r.Results[i], r.Results[j]
		if pos[a.Commit] != pos[b.Commit] {
			return pos[a.Commit] < pos[b.Commit]
		}
		return mpos[a.Mode] < mpos[b.Mode]
	})
}

// aggregate builds the rows: the suite bench's (pass rate, counts, cost,
// time) plus closeness, refusals and wrong-file edits.
func (r *HistoryReport) aggregate() {
	runs := make([]RunResult, len(r.Results))
	for i, res := range r.Results {
		runs[i] = res.RunResult
	}
	r.Rows = nil
	for _, row := range aggregate(runs, r.Prices) {
		h := HistoryRow{Row: row, CostPerPass: -1}
		for _, res := range r.Results {
			if res.Mode != row.Mode || res.ArchitectModel != row.ArchitectModel || res.EditorModel != row.EditorModel {
				continue
			}
			if res.Checked {
				h.Checked++
			}
			h.MeanCloseness += res.Closeness.Score
			h.MeanFiles += res.Closeness.Files
			if res.Refused {
				h.Refusals++
			}
			if len(res.Closeness.WrongFiles) > 0 {
				h.WrongFileRuns++
			}
		}
		h.MeanCloseness /= float64(row.Runs)
		h.MeanFiles /= float64(row.Runs)
		h.CostPerTask = row.CostUSD / float64(row.Runs)
		if row.Passed > 0 {
			h.CostPerPass = row.CostUSD / float64(row.Passed)
		}
		r.Rows = append(r.Rows, h)
	}
}

// ParseHistoryReport reads a report written with --json (for --resume).
func ParseHistoryReport(data []byte) (*HistoryReport, error) {
	var r HistoryReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a JSON history report: %v", err)
	}
	if r.Kind != HistoryKind {
		return nil, fmt.Errorf("not a history report (kind %q, want %q)", r.Kind, HistoryKind)
	}
	for _, c := range append(append([]Commit(nil), r.Picked...), r.Skipped...) {
		if !hexHash(c.Hash) || (c.Parent != "" && !hexHash(c.Parent)) {
			return nil, fmt.Errorf("%q is not a commit hash", c.Hash)
		}
	}
	for _, f := range r.Picked {
		if !hexHash(f.Parent) {
			return nil, fmt.Errorf("picked commit %s has no parent hash", f.Hash)
		}
		for _, p := range append(append([]string(nil), f.Files...), f.Focus...) {
			if !localPath(p) {
				return nil, fmt.Errorf("commit %s: %q is not a path inside the repository", f.Hash, p)
			}
		}
	}
	return &r, nil
}

func hexHash(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// WriteJSON writes the report as one indented JSON object.
func (r *HistoryReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *HistoryReport) title() string {
	if r.Source == SourceCassette {
		return "aide-lsp bench --history — REPLAY of recorded model calls: no model was called"
	}
	return "aide-lsp bench --history"
}

func editorCell(ed string) string {
	if ed == "" {
		return "— (one call)"
	}
	return ed
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*float64(n)/float64(d), n, d)
}

func (h HistoryRow) costCells() (task, pass string) {
	if !h.CostKnown {
		return "n/a", "n/a"
	}
	task, pass = fmt.Sprintf("$%.4f", h.CostPerTask), "—"
	if h.CostPerPass >= 0 {
		pass = fmt.Sprintf("$%.4f", h.CostPerPass)
	}
	return task, pass
}

// tokens is the row's prompt+completion tokens, ~ when estimated.
func (h HistoryRow) tokens() string {
	est := ""
	if h.Counts.Estimated {
		est = "~"
	}
	return est + thousands(h.Counts.PromptTokens) + "+" + thousands(h.Counts.CompletionTok)
}

// headerLines are the facts that say what was measured.
func (r *HistoryReport) headerLines() []string {
	version := ""
	if r.Version != "" {
		version = " · aide-lsp " + r.Version
	}
	lines := []string{fmt.Sprintf("Date: %s%s", r.Date.UTC().Format("2006-01-02 15:04 UTC"), version)}
	if r.Source == SourceCassette {
		c := r.Cassettes
		lines = append(lines, fmt.Sprintf("Source: replay of the calls recorded in %s on %s (%s); the times are replay times, not model latency",
			c.Dir, c.Recorded.UTC().Format("2006-01-02 15:04 UTC"), c.Note))
	} else {
		lines = append(lines, "Source: live model calls")
	}
	lines = append(lines, fmt.Sprintf("Repository: %s — %d commit(s) picked, %d looked at and skipped (limits: %d files, %d lines, %d words)",
		r.Repo, len(r.Picked), len(r.Skipped), r.Limits.MaxFiles, r.Limits.MaxLines, r.Limits.MinWords))
	if len(r.Checks) == 0 {
		lines = append(lines, "Checks: none (no verify commands in a trusted configuration, no --check): no pass rate, closeness only")
	} else {
		lines = append(lines, "Checks: "+strings.Join(r.Checks, "; "))
	}
	if r.WorkDir != "" {
		lines = append(lines, "Copies kept under "+r.WorkDir)
	}
	if r.Interrupted {
		lines = append(lines, "Interrupted: the rows count only the finished runs; go on with --resume and the JSON report")
	}
	return lines
}

// WriteMarkdown writes the report for people.
func (r *HistoryReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.title())
	for _, l := range r.headerLines() {
		fmt.Fprintf(&b, "- %s\n", mdCell(l))
	}
	b.WriteString("\n| Mode | Architect | Editor | Pass rate | Closeness | Files in common | Cost per task | Cost per pass | Time per task | Tokens (prompt+completion) | Retries | Fallbacks | Wrong-file runs | Refusals | Errors |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, h := range r.Rows {
		ct, cp := h.costCells()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %.2f | %s | %s | %.1f s | %s | %d | %s | %d | %d | %d |\n",
			h.Mode, mdCell(h.ArchitectModel), mdCell(editorCell(h.EditorModel)), pct(h.Passed, h.Checked), h.MeanCloseness, h.MeanFiles,
			ct, cp, h.Seconds/float64(h.Runs), h.tokens(), h.Counts.Retries, fallbackCell(h.Counts), h.WrongFileRuns, h.Refusals, h.EngineErrors)
	}
	b.WriteString("\nPer commit (outcome, closeness):\n\n| Commit | Subject |")
	for _, m := range r.Modes {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(r.Modes)) + "\n")
	for _, c := range r.Picked {
		fmt.Fprintf(&b, "| %s | %s |", c.Short(), mdCell(c.Subject))
		for _, m := range r.Modes {
			b.WriteString(" " + mdCell(r.cell(c.Hash, m)) + " |")
		}
		b.WriteString("\n")
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\nSkipped:\n\n| Commit | Subject | Why |\n|---|---|---|\n")
		for _, c := range r.Skipped {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Short(), mdCell(c.Subject), mdCell(c.Skipped))
		}
	}
	b.WriteString("\n" + historyLegend + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

const historyLegend = "Pass rate — runs whose checks passed. Closeness — F1 of the changed lines against the commit's, per file (1: the same lines). " +
	"Files in common — touched by both over touched by either. Wrong-file runs — runs that changed a file the commit did not. " +
	"Refusals — sessions that ended without an edit and without an error. One commit is one right answer among many: closeness is not correctness (docs/bench.md)."

// cell is one commit's outcome in one mode: "pass 1.00", "fail 0.40
// (wrong file)", "—" when it did not run.
func (r *HistoryReport) cell(hash, mode string) string {
	for _, res := range r.Results {
		if res.Commit == hash && res.Mode == mode {
			s := fmt.Sprintf("%s %.2f", res.Outcome(), res.Closeness.Score)
			if len(res.Closeness.WrongFiles) > 0 {
				s += " (wrong file: " + strings.Join(res.Closeness.WrongFiles, ", ") + ")"
			}
			return s
		}
	}
	return "—"
}

// WriteHTML writes the report as one page with a chart of pass rate
// against cost per task: no script, no external resource, and every
// string that came from the repository or a model escaped.
func (r *HistoryReport) WriteHTML(w io.Writer) error {
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}"+
		"table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}td.n{text-align:right}"+
		".pass{color:#176f2c}.fail,.error{color:#a4161a}</style></head><body>\n", e(r.title()))
	fmt.Fprintf(&b, "<h1>%s</h1>\n<ul>\n", e(r.title()))
	for _, l := range r.headerLines() {
		fmt.Fprintf(&b, "<li>%s</li>\n", e(l))
	}
	b.WriteString("</ul>\n")
	b.WriteString(r.chart())
	b.WriteString("<table><tr><th>Mode</th><th>Architect</th><th>Editor</th><th>Pass rate</th><th>Closeness</th><th>Files in common</th><th>Cost per task</th><th>Cost per pass</th><th>Time per task</th><th>Tokens (prompt+completion)</th><th>Wrong-file runs</th><th>Refusals</th><th>Errors</th></tr>\n")
	for _, h := range r.Rows {
		ct, cp := h.costCells()
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td class=n>%s</td><td class=n>%.2f</td><td class=n>%.2f</td><td class=n>%s</td><td class=n>%s</td><td class=n>%.1f s</td><td class=n>%s</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td></tr>\n",
			e(h.Mode), e(h.ArchitectModel), e(editorCell(h.EditorModel)), e(pct(h.Passed, h.Checked)), h.MeanCloseness, h.MeanFiles,
			e(ct), e(cp), h.Seconds/float64(h.Runs), e(h.tokens()), h.WrongFileRuns, h.Refusals, h.EngineErrors)
	}
	b.WriteString("</table>\n<h2>Per commit</h2>\n<table><tr><th>Commit</th><th>Subject</th>")
	for _, m := range r.Modes {
		fmt.Fprintf(&b, "<th>%s</th>", e(m))
	}
	b.WriteString("</tr>\n")
	for _, c := range r.Picked {
		fmt.Fprintf(&b, "<tr><td><code>%s</code></td><td>%s</td>", e(c.Short()), e(c.Subject))
		for _, m := range r.Modes {
			cell := r.cell(c.Hash, m)
			fmt.Fprintf(&b, "<td class=\"%s\">%s</td>", e(strings.Fields(cell)[0]), e(cell))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	if len(r.Skipped) > 0 {
		b.WriteString("<h2>Skipped</h2>\n<table><tr><th>Commit</th><th>Subject</th><th>Why</th></tr>\n")
		for _, c := range r.Skipped {
			fmt.Fprintf(&b, "<tr><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n", e(c.Short()), e(c.Subject), e(c.Skipped))
		}
		b.WriteString("</table>\n")
	}
	fmt.Fprintf(&b, "<p>%s</p>\n</body></html>\n", e(historyLegend))
	_, err := io.WriteString(w, b.String())
	return err
}

// chart is an inline SVG: a point per mode and pair, pass rate (or
// closeness, without checks) up, cost per task across.
func (r *HistoryReport) chart() string {
	const W, H, L, B = 560.0, 300.0, 60.0, 40.0
	checked := false
	maxCost := 0.0
	for _, h := range r.Rows {
		checked = checked || h.Checked > 0
		if h.CostKnown {
			maxCost = max(maxCost, h.CostPerTask)
		}
	}
	if maxCost == 0 {
		maxCost = 1
	}
	yLabel := "pass rate"
	if !checked {
		yLabel = "closeness"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"%s against cost per task\">\n", W, H, yLabel)
	fmt.Fprintf(&b, "<line x1=\"%.0f\" y1=\"10\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>\n",
		L, L, H-B, L, H-B, W-10, H-B)
	fmt.Fprintf(&b, "<text x=\"10\" y=\"20\" font-size=\"12\">%s 100%%</text><text x=\"10\" y=\"%.0f\" font-size=\"12\">0%%</text>\n", yLabel, H-B)
	fmt.Fprintf(&b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">$0</text><text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"end\">$%.4f per task</text>\n",
		L, H-B+16, W-10, H-B+16, maxCost)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	for i, h := range r.Rows {
		y := h.MeanCloseness
		if checked {
			y = 0
			if h.Checked > 0 {
				y = float64(h.Passed) / float64(h.Checked)
			}
		}
		x := 0.0
		label := h.Mode + ": " + h.ArchitectModel
		if h.EditorModel != "" {
			label += " → " + h.EditorModel
		}
		if h.CostKnown {
			x = h.CostPerTask / maxCost
		} else {
			label += " (cost n/a)"
		}
		px, py := L+x*(W-L-20), (H-B)-y*(H-B-20)
		fmt.Fprintf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n",
			px, py, colors[i%len(colors)], min(px+9, W-200), py-8, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
