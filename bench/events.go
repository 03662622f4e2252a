package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/commands"
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
	// Verification (contract §6.1), per proposal that was verified: it
	// passed on the editor's first candidate, passed after the failures
	// went back to the editor, or was proposed still failing (the
	// budget spent). VerifyRounds counts the failed candidates.
	VerifiedFirst    int `json:"verifiedFirstTime"`
	VerifiedAfter    int `json:"verifiedAfterFeedback"`
	VerifyFailed     int `json:"verifyFailed"`
	VerifyFailedRuns int `json:"verifyFailedCandidates"`
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
	c.VerifiedFirst += c2.VerifiedFirst
	c.VerifiedAfter += c2.VerifiedAfter
	c.VerifyFailed += c2.VerifyFailed
	c.VerifyFailedRuns += c2.VerifyFailedRuns
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
		usd += p.Cost(t[0], t[1])
	}
	return usd, known
}

// maxEventLine bounds one line of a session file: a plan event carries at
// most an 8 KiB plan, a proposal a list of hunk summaries.
const maxEventLine = 4 << 20

// CountEvents reads one session file (JSON lines, contract §8) with the
// engine's one decoder (commands.ParseEvent). Lines that are not events
// are an error: a report must not quietly skip what it
// cannot read.
func CountEvents(r io.Reader) (Counts, error) {
	c := Counts{Sessions: 1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	line := 0
	// The verify events before a proposal are its verification: each
	// failed candidate has one failed event (the first failure stops
	// its commands), and the last event says how the proposal stands.
	verifyFails, verified, lastOK := 0, false, false
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		ev, err := commands.ParseEvent([]byte(text))
		if err != nil {
			return c, fmt.Errorf("line %d is not a session event: %v", line, err)
		}
		pass := func(d commands.PassData) {
			p, k := count(d.PromptTokens), count(d.CompletionTokens)
			c.PromptTokens += p
			c.CompletionTok += k
			c.Estimated = c.Estimated || d.Estimated
			if c.PassTokens == nil {
				c.PassTokens = map[string][2]int{}
			}
			t := c.PassTokens[d.Model]
			c.PassTokens[d.Model] = [2]int{t[0] + p, t[1] + k}
		}
		switch d := ev.Data.(type) {
		case commands.PassData: // architect_pass
			c.ArchitectPasses++
			pass(d)
		case commands.EditorPassData:
			c.EditorPasses++
			if d.Attempt == 1 {
				edits, failed := count(d.Edits), count(d.Failed)
				c.FirstTryEdits += edits
				c.FirstTryApplied += max(edits-failed, 0)
			}
			pass(d.PassData)
		case commands.FallbackData:
			if d.Kind == "retry" {
				c.Retries++
				continue
			}
			c.Fallbacks++
			if c.FallbackKinds == nil {
				c.FallbackKinds = map[string]int{}
			}
			c.FallbackKinds[d.Kind]++
		case commands.ErrorData:
			c.Errors++
		case commands.VerifyData:
			verified, lastOK = true, d.OK
			if !d.OK {
				verifyFails++
				c.VerifyFailedRuns++
			}
		case commands.ProposalData:
			if verified && !d.AIComment {
				switch {
				case !lastOK:
					c.VerifyFailed++
				case verifyFails == 0:
					c.VerifiedFirst++
				default:
					c.VerifiedAfter++
				}
				verifyFails, verified = 0, false
			}
			c.Proposed += len(d.Hunks)
			for _, h := range d.Hunks {
				if h.NotInPlan {
					c.OutsidePlan++
				}
			}
			c.IdleSteps += len(d.StepsWithoutHunks)
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("line %d: %v", line+1, err)
	}
	return c, nil
}

// count is a count from a session file: 0 when negative or absurd (a
// hostile or corrupt file cannot make a total go negative or overflow).
func count(n int) int {
	if n < 0 || n > 1e15 {
		return 0
	}
	return n
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
