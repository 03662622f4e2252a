package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/model"
)

// Counts is what one run's session events say happened. Every number of the
// report is a sum of these.
type Counts struct {
	Sessions        int `json:"sessions"`
	ArchitectPasses int `json:"architectPasses"`
	EditorPasses    int `json:"editorPasses"`
	// FirstTryEdits are the edits the editor wrote in its first pass of a
	// turn; FirstTryApplied those of them that did not fail (matched, or
	// already present).
	FirstTryEdits   int            `json:"firstTryEdits"`
	FirstTryApplied int            `json:"firstTryApplied"`
	Retries         int            `json:"retries"`   // fallback events of kind "retry": editor asked again for its failed edits
	Fallbacks       int            `json:"fallbacks"` // every other fallback (collapse, one_call, editor_switch, cycle_cap, ...)
	FallbackKinds   map[string]int `json:"fallbackKinds,omitempty"`
	Errors          int            `json:"errors"` // error events
	Proposed        int            `json:"proposed"`
	// OutsidePlan are proposed hunks no plan step asks for (notInPlan);
	// IdleSteps the plan steps no hunk carried out (stepsWithoutHunks).
	// Both count only where the editor named steps (contract §8).
	OutsidePlan   int  `json:"outsidePlan"`
	IdleSteps     int  `json:"stepsWithoutHunks"`
	PromptTokens  int  `json:"promptTokens"`
	CompletionTok int  `json:"completionTokens"`
	Estimated     bool `json:"estimated,omitempty"` // some pass had no usage from the server
	// PassTokens is per model: prompt and completion tokens, for the cost.
	PassTokens map[string][2]int `json:"passTokens,omitempty"`
}

// Add sums c2 into c.
func (c *Counts) Add(c2 Counts) {
	c.Sessions += c2.Sessions
	c.ArchitectPasses += c2.ArchitectPasses
	c.EditorPasses += c2.EditorPasses
	c.FirstTryEdits += c2.FirstTryEdits
	c.FirstTryApplied += c2.FirstTryApplied
	c.Retries += c2.Retries
	c.Fallbacks += c2.Fallbacks
	c.Errors += c2.Errors
	c.Proposed += c2.Proposed
	c.OutsidePlan += c2.OutsidePlan
	c.IdleSteps += c2.IdleSteps
	c.PromptTokens += c2.PromptTokens
	c.CompletionTok += c2.CompletionTok
	c.Estimated = c.Estimated || c2.Estimated
	for k, v := range c2.FallbackKinds {
		if c.FallbackKinds == nil {
			c.FallbackKinds = map[string]int{}
		}
		c.FallbackKinds[k] += v
	}
	for k, v := range c2.PassTokens {
		if c.PassTokens == nil {
			c.PassTokens = map[string][2]int{}
		}
		t := c.PassTokens[k]
		c.PassTokens[k] = [2]int{t[0] + v[0], t[1] + v[1]}
	}
}

// Cost prices the passes; known is false when some model has no price.
func (c Counts) Cost(prices map[string]model.Price) (usd float64, known bool) {
	known = true
	for m, t := range c.PassTokens {
		p, ok := prices[m]
		if !ok {
			known = false
			continue
		}
		usd += (float64(t[0])*p.Input + float64(t[1])*p.Output) / 1e6
	}
	return usd, known
}

// maxEventLine bounds one line of a session file: a plan event carries at
// most an 8 KiB plan, a proposal a list of hunk summaries.
const maxEventLine = 4 << 20

// CountEvents reads one session file (JSON lines, contract §8). Lines that
// are not JSON objects are an error: a report must not quietly skip what it
// cannot read.
func CountEvents(r io.Reader) (Counts, error) {
	c := Counts{Sessions: 1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(text), &ev); err != nil {
			return c, fmt.Errorf("line %d is not a JSON event: %v", line, err)
		}
		name, _ := ev["event"].(string)
		switch name {
		case "architect_pass", "editor_pass":
			if name == "architect_pass" {
				c.ArchitectPasses++
			} else {
				c.EditorPasses++
				if num(ev["attempt"]) == 1 {
					edits, failed := num(ev["edits"]), num(ev["failed"])
					c.FirstTryEdits += edits
					c.FirstTryApplied += max(edits-failed, 0)
				}
			}
			p, k := num(ev["promptTokens"]), num(ev["completionTokens"])
			c.PromptTokens += p
			c.CompletionTok += k
			if est, _ := ev["estimated"].(bool); est {
				c.Estimated = true
			}
			m, _ := ev["model"].(string)
			if c.PassTokens == nil {
				c.PassTokens = map[string][2]int{}
			}
			t := c.PassTokens[m]
			c.PassTokens[m] = [2]int{t[0] + p, t[1] + k}
		case "fallback":
			kind, _ := ev["kind"].(string)
			if kind == "retry" {
				c.Retries++
				continue
			}
			c.Fallbacks++
			if c.FallbackKinds == nil {
				c.FallbackKinds = map[string]int{}
			}
			c.FallbackKinds[kind]++
		case "error":
			c.Errors++
		case "proposal":
			if h, ok := ev["hunks"].([]any); ok {
				c.Proposed += len(h)
				for _, x := range h {
					if m, ok := x.(map[string]any); ok && m["notInPlan"] == true {
						c.OutsidePlan++
					}
				}
			}
			if idle, ok := ev["stepsWithoutHunks"].([]any); ok {
				c.IdleSteps += len(idle)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("line %d: %v", line+1, err)
	}
	return c, nil
}

// num reads a JSON count as an int: 0 when absent, not a number, negative
// or absurd (a hostile or corrupt file cannot make a count go negative).
func num(v any) int {
	f, ok := v.(float64)
	if !ok || f != f || f > 1e15 || f < 0 {
		return 0
	}
	return int(f)
}

// CountWorkspace sums the session files of a run's copy.
func CountWorkspace(dir string) (Counts, error) {
	files, err := filepath.Glob(filepath.Join(dir, ".aide", "sessions", "*.jsonl"))
	if err != nil {
		return Counts{}, err
	}
	sort.Strings(files)
	var total Counts
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return total, err
		}
		c, err := CountEvents(fh)
		fh.Close()
		if err != nil {
			return total, fmt.Errorf("%s: %v", filepath.Base(f), err)
		}
		total.Add(c)
	}
	return total, nil
}
