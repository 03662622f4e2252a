package lsp

import (
	"path/filepath"
	"sync"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/planview"
)

// planFiles is what the server keeps of the plan files (.aide/plans/*.md,
// the file form of contract §5) that editors without the virtual form show:
// when to show each. Which buffer text is the user's edit is the engine's
// rule (commands/planbuffer.go); the server only reports its buffers
// (PlanBuffer).
type planFiles struct {
	mu      sync.Mutex                  // guards the fields below
	waiting map[string]commands.PlanDoc // session → its plan document, shown when its plan is complete
	shown   map[string]bool             // session → its plan document was shown
}

// PlanBuffer is commands.Client's: the open buffer of the plan file at
// path, unsaved edits included.
func (s *Server) PlanBuffer(path string) (string, bool) {
	s.offReadLoop("PlanBuffer")
	text, _, open := s.docs.Buffer(filepath.Clean(path))
	return text, open
}

// showPlanFile shows the plan file with window/showDocument once its plan
// is complete (planComplete): a file is read when the editor opens it and not again by
// itself, so opened while the plan streams in it would show a half plan
// ("planning…") that the editor does not replace. The stream is followed
// in $/progress meanwhile. How it is shown, so that the code the plan talks
// about stays in view with the cursor in it, is the client's (planShow).
func (s *Server) showPlanFile(doc commands.PlanDoc) {
	s.plans.mu.Lock()
	if s.plans.shown == nil {
		s.plans.shown, s.plans.waiting = map[string]bool{}, map[string]commands.PlanDoc{}
	}
	if s.plans.shown[doc.Session] {
		s.plans.mu.Unlock()
		return
	}
	if !planComplete(doc) {
		s.plans.waiting[doc.Session] = doc
		s.plans.mu.Unlock()
		return
	}
	delete(s.plans.waiting, doc.Session)
	s.plans.shown[doc.Session] = true
	s.plans.mu.Unlock()
	params, show, note := s.Profile().planShow(string(uri.File(doc.Path)), doc.Path)
	if !show {
		s.showMessage(msgInfo, note)
		return
	}
	var res showDocumentResult
	err := s.call(s.bg, "window/showDocument", params, &res)
	if err == nil && res.Success {
		return
	}
	s.log.Warn("the editor did not show the plan document", "path", doc.Path, "err", err)
	s.showMessage(msgInfo, "AIDE plan: "+doc.Path)
}

// planFileChanged shows a plan file whose showing waited for its plan.
func (s *Server) planFileChanged(doc commands.PlanDoc) {
	s.plans.mu.Lock()
	_, waiting := s.plans.waiting[doc.Session]
	s.plans.mu.Unlock()
	if waiting && planComplete(doc) {
		s.showPlanFile(doc)
	}
}

// planComplete says a plan document is worth opening: its plan is written
// (past planning), or, on the one-call path where there is no plan, the
// editor is done (proposed, done, failed, …).
func planComplete(doc commands.PlanDoc) bool {
	switch doc.State {
	case commands.StatePlanning:
		return false
	case commands.StateEditing:
		return planview.HasPlan(doc.Text)
	}
	return true
}
