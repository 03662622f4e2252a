package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
)

// Sources of a report's numbers. One report holds one source only.
const (
	SourceLive     = "live"
	SourceCassette = "cassette"
)

// Report is the bench's result, written as Markdown or JSON.
type Report struct {
	Tool        string                 `json:"tool"`
	Version     string                 `json:"version,omitempty"`
	Date        time.Time              `json:"date"`
	Source      string                 `json:"source"` // live or cassette
	Cassettes   *CassetteInfo          `json:"cassettes,omitempty"`
	Suite       SuiteInfo              `json:"suite"`
	Runs        int                    `json:"runs"` // per task and mode
	Modes       []string               `json:"modes"`
	Interrupted bool                   `json:"interrupted,omitempty"`
	WorkDir     string                 `json:"workDir,omitempty"` // where the kept copies are (--keep)
	Prices      map[string]model.Price `json:"prices,omitempty"`
	Rows        []Row                  `json:"rows"`
	Results     []RunResult            `json:"results"`
}

// CassetteInfo says what a cassette run replayed.
type CassetteInfo struct {
	Dir          string    `json:"dir"`
	Recorded     time.Time `json:"recorded"`
	Note         string    `json:"note"`
	SuiteVersion string    `json:"suiteVersion"`
}

// SuiteInfo names the suite measured.
type SuiteInfo struct {
	Dir       string         `json:"dir"`
	Version   string         `json:"version"`
	Tasks     int            `json:"tasks"`
	Languages map[string]int `json:"languages"`
}

// RunResult is one run of one task in one mode.
type RunResult struct {
	Task           string   `json:"task"`
	Language       string   `json:"language"`
	Kind           string   `json:"kind"`
	Mode           string   `json:"mode"`
	Run            int      `json:"run"`
	ArchitectModel string   `json:"architectModel"`
	EditorModel    string   `json:"editorModel,omitempty"` // empty in one-call mode
	Passed         bool     `json:"passed"`
	Session        string   `json:"session,omitempty"`
	SessionState   string   `json:"sessionState"`
	EngineError    bool     `json:"engineError,omitempty"` // the session failed (model error, mistake limit)
	Note           string   `json:"note,omitempty"`
	Applied        []string `json:"applied,omitempty"`
	Counts         Counts   `json:"counts"`
	CostUSD        float64  `json:"costUSD"`
	CostKnown      bool     `json:"costKnown"`
	EngineSeconds  float64  `json:"engineSeconds"`
	CheckSeconds   float64  `json:"checkSeconds"`
	CheckExit      int      `json:"checkExit"`
	CheckTimedOut  bool     `json:"checkTimedOut,omitempty"`
	CheckError     string   `json:"checkError,omitempty"`
	CheckOutput    string   `json:"checkOutput,omitempty"`
	Workdir        string   `json:"workdir,omitempty"`
}

// Outcome is the one-word result of a run.
func (r RunResult) Outcome() string {
	switch {
	case r.Passed:
		return "pass"
	case r.CheckTimedOut:
		return "timeout"
	case r.EngineError:
		return "error"
	case len(r.Applied) == 0:
		return "no edits"
	default:
		return "fail"
	}
}

func (r RunResult) progressLine() string {
	pair := r.ArchitectModel
	if r.EditorModel != "" {
		pair += " → " + r.EditorModel
	}
	line := fmt.Sprintf("%s %s run %d (%s): %s — %d pass(es), %s+%s tokens, %.1f s",
		r.Mode, r.Task, r.Run, pair, strings.ToUpper(r.Outcome()),
		r.Counts.ArchitectPasses+r.Counts.EditorPasses, thousands(r.Counts.PromptTokens), thousands(r.Counts.CompletionTok),
		r.EngineSeconds+r.CheckSeconds)
	switch {
	case r.CheckTimedOut || r.CheckError != "":
		line += "; " + r.CheckError
	case !r.Passed && r.Note != "":
		line += "; " + r.Note
	}
	return line
}

// Row is one line of the leaderboard: a mode and a model pair.
type Row struct {
	Mode           string `json:"mode"`
	ArchitectModel string `json:"architectModel"`
	EditorModel    string `json:"editorModel,omitempty"`
	Runs           int    `json:"runs"`   // task runs
	Passed         int    `json:"passed"` // runs whose check passed
	// PassRate is Passed/Runs in percent.
	PassRate float64 `json:"passRate"`
	// FirstTryRate is the share of the editor's first-pass edits that
	// applied, in percent; -1 when the editor wrote no edits at all.
	FirstTryRate  float64 `json:"firstTryRate"`
	EngineErrors  int     `json:"engineErrors"`
	CheckTimeouts int     `json:"checkTimeouts"`
	Counts        Counts  `json:"counts"` // the sum of the runs' counts
	CostUSD       float64 `json:"costUSD"`
	CostKnown     bool    `json:"costKnown"`
	Seconds       float64 `json:"seconds"` // engine + check, all runs
	EngineSeconds float64 `json:"engineSeconds"`
	// ByLanguage is runs and passes per language.
	ByLanguage map[string][2]int `json:"byLanguage"`
}

func aggregate(results []RunResult, prices map[string]model.Price) []Row {
	type key struct{ mode, arch, ed string }
	var order []key
	rows := map[key]*Row{}
	for _, r := range results {
		k := key{r.Mode, r.ArchitectModel, r.EditorModel}
		row := rows[k]
		if row == nil {
			row = &Row{Mode: r.Mode, ArchitectModel: r.ArchitectModel, EditorModel: r.EditorModel, ByLanguage: map[string][2]int{}, CostKnown: true}
			rows[k] = row
			order = append(order, k)
		}
		row.Runs++
		lang := row.ByLanguage[r.Language]
		lang[0]++
		if r.Passed {
			row.Passed++
			lang[1]++
		}
		row.ByLanguage[r.Language] = lang
		if r.EngineError {
			row.EngineErrors++
		}
		if r.CheckTimedOut {
			row.CheckTimeouts++
		}
		row.Counts.Add(r.Counts)
		row.Seconds += r.EngineSeconds + r.CheckSeconds
		row.EngineSeconds += r.EngineSeconds
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		row := rows[k]
		row.PassRate = 100 * float64(row.Passed) / float64(row.Runs)
		row.FirstTryRate = -1
		if row.Counts.FirstTryEdits > 0 {
			row.FirstTryRate = 100 * float64(row.Counts.FirstTryApplied) / float64(row.Counts.FirstTryEdits)
		}
		// The row's cost is priced from its own summed tokens, so it is
		// the sum of the runs' costs by construction.
		row.CostUSD, row.CostKnown = row.Counts.Cost(prices)
		out = append(out, *row)
	}
	return out
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the report for people: the header that says what was
// measured, the leaderboard, pass rates per language, and every task.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# aide-lsp bench\n\n")
	version := ""
	if r.Version != "" {
		version = " · aide-lsp " + r.Version
	}
	fmt.Fprintf(&b, "- **Date:** %s%s\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"), version)
	if r.Source == SourceCassette {
		c := r.Cassettes
		fmt.Fprintf(&b, "- **Source: cassette replay.** Every model answer is replayed from the calls recorded in `%s` on %s (%s). "+
			"This checks the instrument; the pass rates, tokens and costs are those of the recording, and the times are replay times, not model latency.\n",
			c.Dir, c.Recorded.UTC().Format("2006-01-02 15:04 UTC"), c.Note)
	} else {
		fmt.Fprintf(&b, "- **Source: live** model calls.\n")
	}
	langs := make([]string, 0, len(r.Suite.Languages))
	for l, n := range r.Suite.Languages {
		langs = append(langs, fmt.Sprintf("%s %d", l, n))
	}
	sort.Strings(langs)
	fmt.Fprintf(&b, "- **Suite:** `%s`, version `%s`: %d task(s) (%s).\n", r.Suite.Dir, r.Suite.Version, r.Suite.Tasks, strings.Join(langs, ", "))
	fmt.Fprintf(&b, "- **Runs:** %d per task and mode; modes %s; %d task run(s) in all.\n", r.Runs, strings.Join(r.Modes, ", "), len(r.Results))
	if r.WorkDir != "" {
		fmt.Fprintf(&b, "- **Copies kept** under `%s` (each with its `.aide/sessions/`).\n", r.WorkDir)
	}
	if r.Interrupted {
		fmt.Fprintf(&b, "- **Interrupted:** the bench was stopped before every run finished; the rows count only the finished runs.\n")
	}
	b.WriteString("\n| Mode | Architect | Editor | Pass rate | Passed | Edits applied 1st try | Editor retries | Fallbacks | Prompt tokens | Completion tokens | Cost | Time per task | Errors |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Rows {
		editor := row.EditorModel
		if editor == "" {
			editor = "— (one call)"
		}
		first := "—"
		if row.FirstTryRate >= 0 {
			first = fmt.Sprintf("%.1f%% (%d/%d)", row.FirstTryRate, row.Counts.FirstTryApplied, row.Counts.FirstTryEdits)
		}
		cost := "n/a"
		if row.CostKnown {
			cost = fmt.Sprintf("$%.4f", row.CostUSD)
		}
		est := ""
		if row.Counts.Estimated {
			est = "~"
		}
		errs := fmt.Sprintf("%d", row.EngineErrors)
		if row.CheckTimeouts > 0 {
			errs += fmt.Sprintf(" (+%d check timeout)", row.CheckTimeouts)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f%% | %d/%d | %s | %d | %s | %s%s | %s%s | %s | %.1f s | %s |\n",
			row.Mode, row.ArchitectModel, editor, row.PassRate, row.Passed, row.Runs, first, row.Counts.Retries,
			fallbackCell(row.Counts), est, thousands(row.Counts.PromptTokens), est, thousands(row.Counts.CompletionTok),
			cost, row.Seconds/float64(row.Runs), errs)
	}
	b.WriteString("\n")
	if len(r.Rows) > 0 {
		// How closely the edits followed the plan: a hunk no step asked
		// for, a step nothing carried out (only where the editor named steps).
		b.WriteString("Edits against the plan:\n\n| Mode | Architect | Editor | Hunks proposed | Hunks outside the plan | Plan steps without hunks |\n|---|---|---|--:|--:|--:|\n")
		for _, row := range r.Rows {
			editor := row.EditorModel
			if editor == "" {
				editor = "— (one call)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d |\n", row.Mode, row.ArchitectModel, editor,
				row.Counts.Proposed, row.Counts.OutsidePlan, row.Counts.IdleSteps)
		}
		b.WriteString("\n")
		// Verification (contract §6.1): only runs whose configuration
		// has verify commands count.
		verifiedAny := false
		for _, row := range r.Rows {
			c := row.Counts
			verifiedAny = verifiedAny || c.VerifiedFirst+c.VerifiedAfter+c.VerifyFailed > 0
		}
		if verifiedAny {
			b.WriteString("Verification of the proposals (the `verify` commands, before the user sees them):\n\n| Mode | Architect | Editor | Passed first time | Passed after feedback | Proposed failing | Candidates discarded |\n|---|---|---|--:|--:|--:|--:|\n")
			for _, row := range r.Rows {
				editor := row.EditorModel
				if editor == "" {
					editor = "— (one call)"
				}
				c := row.Counts
				fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d |\n", row.Mode, row.ArchitectModel, editor,
					c.VerifiedFirst, c.VerifiedAfter, c.VerifyFailed, c.VerifyFailedRuns)
			}
			b.WriteString("\n")
		}
		var allLangs []string
		for l := range r.Suite.Languages {
			allLangs = append(allLangs, l)
		}
		sort.Strings(allLangs)
		b.WriteString("Pass rate per language:\n\n| Mode | " + strings.Join(allLangs, " | ") + " |\n|---|" + strings.Repeat("--:|", len(allLangs)) + "\n")
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "| %s |", row.Mode)
			for _, l := range allLangs {
				v := row.ByLanguage[l]
				if v[0] == 0 {
					b.WriteString(" — |")
					continue
				}
				fmt.Fprintf(&b, " %d/%d |", v[1], v[0])
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Every task run:\n\n| Task | Language | Kind | Mode | Run | Result | Passes | Tokens (prompt+completion) | Time | Note |\n|---|---|---|---|--:|---|--:|--:|--:|---|\n")
	for _, res := range r.Results {
		note := res.Note
		if res.CheckError != "" {
			note = res.CheckError
		}
		if res.Passed {
			note = ""
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %d | %s+%s | %.1f s | %s |\n", res.Task, res.Language, res.Kind, res.Mode, res.Run,
			res.Outcome(), res.Counts.ArchitectPasses+res.Counts.EditorPasses, thousands(res.Counts.PromptTokens),
			thousands(res.Counts.CompletionTok), res.EngineSeconds+res.CheckSeconds, mdCell(note))
	}
	b.WriteString("\nColumns: *Pass rate* — task runs whose check passed after the proposed edits were applied. " +
		"*Edits applied 1st try* — of the edits the editor wrote in its first pass, the share that applied (matched, or were already present). " +
		"*Editor retries* — editor passes asked again for failed edits only. *Fallbacks* — collapse, one-call fall-through, editor switch, cycle cap. " +
		"*Tokens* and *Cost* — every architect and editor pass (~ where a server sent no usage and the count is estimated; n/a where a model has no price in `prices`). " +
		"*Time per task* — engine and check wall time. *Errors* — sessions that failed (model unreachable, mistake limit). " +
		"All counts come from the session events in each copy's `.aide/sessions/`.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fallbackCell(c Counts) string {
	if c.Fallbacks == 0 {
		return "0"
	}
	kinds := make([]string, 0, len(c.FallbackKinds))
	for k, v := range c.FallbackKinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(kinds)
	return fmt.Sprintf("%d (%s)", c.Fallbacks, strings.Join(kinds, ", "))
}

func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// thousands writes 1234567 as 1,234,567.
func thousands(n int) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []string
	for len(s) > 3 {
		out = append([]string{s[len(s)-3:]}, out...)
		s = s[:len(s)-3]
	}
	out = append([]string{s}, out...)
	if neg {
		return "-" + strings.Join(out, ",")
	}
	return strings.Join(out, ",")
}
