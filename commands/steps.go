package commands

import (
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
)

// Each hunk names its plan step (docs/contract.md §5, §8): the editor's tool
// calls carry the number of the step they carry out, each hunk takes the
// step of the edit it came from, and the review shows "step N", the hunks
// no step asks for ("not in the plan") and the steps no hunk carries out.

// stepProp is the optional argument added to every editor tool.
var stepProp = map[string]any{
	"type":        "integer",
	"description": "The number of the plan step this edit carries out. Leave it out only for an edit no step of the plan asks for.",
}

// withStep adds the step argument to a tool's JSON schema (a copy).
func withStep(params map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	props := map[string]any{}
	if p, ok := params["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	props["step"] = stepProp
	out["properties"] = props
	return out
}

var leadingNumber = regexp.MustCompile(`[0-9]{1,4}`)

// stepOfCall reads a tool call's step: a number, or a string holding one
// ("2", "step 2"); 0 when there is none.
func stepOfCall(arguments string) int {
	var a struct {
		Step json.RawMessage `json:"step"`
	}
	if json.Unmarshal([]byte(arguments), &a) != nil || len(a.Step) == 0 {
		return 0
	}
	var n float64
	if json.Unmarshal(a.Step, &n) == nil {
		if n >= 1 && n < 10000 && n == float64(int(n)) {
			return int(n)
		}
		return 0
	}
	var s string
	if json.Unmarshal(a.Step, &s) == nil {
		if m := leadingNumber.FindString(s); m != "" {
			v, _ := strconv.Atoi(m)
			return v
		}
	}
	return 0
}

// callSteps are the steps of the edits collectEdits takes from calls, in
// the same order (the calls it could read).
func callSteps(calls []model.ToolCall) []int {
	var out []int
	for _, c := range calls {
		if eds, err := editapply.FromToolCalls(c.Name, c.Arguments); err == nil {
			for range eds {
				out = append(out, stepOfCall(c.Arguments))
			}
		}
	}
	return out
}

func cleanRel(p string) string {
	return strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./")
}

// sameFile reports whether the model's path names the hunk's
// workspace-relative path (the model may write it absolute or with "./").
func sameFile(modelPath, rel string) bool {
	m := cleanRel(modelPath)
	return m == rel || strings.HasSuffix(m, "/"+rel)
}

// assignSteps gives each hunk the step of the edit it came from, when that
// step is one of the plan's (a step the plan has not is no step). A hunk is
// matched to an edit of its file and kind whose new text it holds, or whose
// old text it replaces; with one such edit in the file, that edit.
func assignSteps(hunks []editapply.Hunk, edits []editapply.Edit, steps []int, plan map[int]bool, into map[string]int) {
	for _, h := range hunks {
		var cands []int
		for i, ed := range edits {
			if i < len(steps) && sameFile(ed.Path, h.Path) {
				cands = append(cands, i)
			}
		}
		pick := -1
		if len(cands) == 1 {
			pick = cands[0]
		} else {
			for _, i := range cands {
				ed := edits[i]
				nt, ot := strings.TrimSpace(ed.NewText), strings.TrimSpace(h.OldText)
				if ed.Kind == h.Kind && ((nt != "" && strings.Contains(h.NewText, nt)) || (nt == "" && ot != "" && strings.Contains(ed.OldText, ot))) {
					pick = i
					break
				}
			}
		}
		if pick >= 0 && plan[steps[pick]] {
			into[h.ID] = steps[pick]
		}
	}
}

// stepLabel is how a hunk's step reads in a diagnostic, an annotation and
// the plan document: "step 2", "not in the plan", or "" when the editor
// named no step at all (nothing to trace) or for the AI-comment removal.
func stepLabel(step int, traced, aiComment bool) string {
	switch {
	case !traced || aiComment:
		return ""
	case step > 0:
		return "step " + strconv.Itoa(step)
	default:
		return "not in the plan"
	}
}
