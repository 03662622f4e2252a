package commands

import (
	"context"
	"sort"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/model"
)

// The price of the next call (docs/contract.md §5): while a plan waits, the
// plan document shows what the editor call will cost with the session's
// editor model and with the other configured models ("Approve with
// <model>"); after the call the cost table shows the estimate against what
// the call used.

// maxAlternatives bounds the "Approve with" models offered.
const maxAlternatives = 4

// validModelID is a model id provider/rest as contract §3 spells it.
func validModelID(id string) bool { return config.ValidModelID(id) == nil }

// otherModels are the configured models a waiting plan could be approved
// with instead of the session's editor model: the architect and editor
// models of the session and the configuration, and the priced models.
func otherModels(cfg config.Config, archModel, edModel string) []string {
	seen := map[string]bool{edModel: true}
	var out []string
	add := func(m string) {
		if m != "" && !seen[m] && validModelID(m) {
			seen[m] = true
			out = append(out, m)
		}
	}
	add(archModel)
	add(cfg.EditorModel)
	add(cfg.ArchitectModel)
	var priced []string
	for m := range cfg.Prices {
		priced = append(priced, m)
	}
	sort.Strings(priced)
	for _, m := range priced {
		add(m)
	}
	if len(out) > maxAlternatives {
		out = out[:maxAlternatives]
	}
	return out
}

// priceNextCall prices the editor call approval would make, for the
// session's editor model first and then the others. The request is the one
// the editor would get now (the plan and the current content of the files
// it names).
func (e *Engine) priceNextCall(ctx context.Context, s *session, cfg config.Config) []estimate.Estimate {
	s.mu.Lock()
	planText, arch, ed := s.plan.Text, s.archModel, s.edModel
	s.mu.Unlock()
	if planText == "" {
		return nil
	}
	req := e.editorRequest(s, cfg, editMode{plan: planText}, nil, nil)
	counter, _ := e.models.(estimate.Counter)
	var out []estimate.Estimate
	for _, m := range append([]string{ed}, otherModels(cfg, arch, ed)...) {
		req.Model = m
		out = append(out, estimate.For(ctx, req, counter, e.hist, cfg.Prices))
	}
	return out
}

// approvedWith keeps the estimate of the model the plan is approved with,
// to show against the call's actual use; s.mu is held.
func (s *session) approvedWith(m string) {
	s.priced = nil
	for i := range s.estimates {
		if s.estimates[i].Model == m {
			est := s.estimates[i]
			s.priced = &est
		}
	}
}

// afterEditorCall records an editor call in the model's history and, for
// the first call after approval, its estimate against what it used.
func (e *Engine) afterEditorCall(s *session, resp *model.Response) {
	if e.hist != nil {
		if err := e.hist.Record(resp.Model, estimate.CallOf(resp)); err != nil {
			s.addLog("the call history was not saved: %v", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.priced != nil && s.priced.Model == resp.Model {
		s.versus = "Editor call " + s.priced.Model + ": " + s.priced.Versus(resp.Usage, resp.Duration)
	}
	s.priced = nil
}

// estimateLines are the estimates as the plan document shows them.
func estimateLines(ests []estimate.Estimate) []string {
	var out []string
	for _, est := range ests {
		out = append(out, est.Line())
	}
	return out
}
