package lsp

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"sync"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/planview"
)

// planFiles is what the server knows of the plan files (.aide/plans/*.md,
// the file form of contract §5) that editors without the virtual form show.
//
// The server never edits an open plan buffer (docs/design.md, "Plan
// buffers"): Helix keeps a buffer changed by workspace/applyEdit modified
// (":qa" refuses), and Neovim, whose file the engine rewrites at the same
// time, asks "file changed since editing started, really write?". The file
// on disk is the plan document; an unmodified buffer takes it when the
// editor re-reads the file (Neovim's autoread, Helix's :reload). What this
// keeps is which texts were the server's own, so that a buffer still
// holding one of them is never taken for the user's edit.
type planFiles struct {
	mu      sync.Mutex                   // guards the fields below
	written map[string]map[[32]byte]bool // plan path → hashes of the texts the engine wrote there
	order   map[string][][32]byte        // plan path → the same hashes, oldest first (to bound them)
	adopted map[string]map[[32]byte]bool // plan path → the user's edits approval carried out (true: saved to the file then)
	waiting map[string]commands.PlanDoc  // session → its plan document, shown when its plan is complete
	shown   map[string]bool              // session → its plan document was shown
}

// maxWrittenTexts bounds the texts remembered per plan file: a plan
// streams in a few dozen refreshes, and a buffer older than that many
// rewrites is not one a user is still reading unreloaded.
const maxWrittenTexts = 512

// remember records text as written by the engine at path.
func (p *planFiles) remember(path, text string) {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written == nil {
		p.written, p.order = map[string]map[[32]byte]bool{}, map[string][][32]byte{}
	}
	set := p.written[path]
	if set == nil {
		set = map[[32]byte]bool{}
		p.written[path] = set
	}
	if set[sum] {
		return
	}
	set[sum] = true
	p.order[path] = append(p.order[path], sum)
	if len(p.order[path]) > maxWrittenTexts {
		delete(set, p.order[path][0])
		p.order[path] = p.order[path][1:]
	}
}

// ours reports whether text is one the engine wrote at path.
func (p *planFiles) ours(path, text string) bool {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written[path][sum]
}

// adopt records text, the user's edit of the plan at path, as carried out by
// approval; saved says the file held it then.
func (p *planFiles) adopt(path, text string, saved bool) {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.adopted == nil {
		p.adopted = map[string]map[[32]byte]bool{}
	}
	if p.adopted[path] == nil {
		p.adopted[path] = map[[32]byte]bool{}
	}
	p.adopted[path][sum] = p.adopted[path][sum] || saved
}

func (p *planFiles) wasAdopted(path, text string) bool {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.adopted[path][sum]
	return ok
}

// wasAdoptedSaved reports whether text was adopted while the file held it.
func (p *planFiles) wasAdoptedSaved(path, text string) bool {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.adopted[path][sum]
}

// PlanEdited is commands.Client's: the plan file at path is open and
// holds an edit of the user's that the engine must not write over. With
// buffer B and file D:
//   - B ≠ D: the edit is B's unless B is a text the engine wrote, or one
//     the user saved and approval carried out (an editor that has not
//     re-read the file yet, as Neovim right after approving); the file
//     stays as it is, so the editor never finds it changed under an edited
//     buffer;
//   - B = D: the user saved a text the engine did not write; once approval
//     carried it out (EditedPlan adopts it) the engine writes again.
func (s *Server) PlanEdited(path string) bool {
	s.offReadLoop("PlanEdited")
	path = filepath.Clean(path)
	buffer, _, open := s.docs.Buffer(path)
	if !open {
		return false
	}
	disk, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if buffer != string(disk) {
		return !s.ours(path, buffer) && !s.plans.wasAdoptedSaved(path, buffer)
	}
	return !s.ours(path, buffer) && !s.plans.wasAdopted(path, buffer)
}

// ours reports whether text is a plan document the engine wrote at path:
// in this run (planFiles), or last before a restart, as the user's state
// folder remembers (commands.Engine.Wrote), so that a buffer the editor
// re-opened after a restart is not taken for the user's edit.
func (s *Server) ours(path, text string) bool {
	if s.plans.ours(path, text) {
		return true
	}
	w, ok := s.eng().(interface{ Wrote(path, text string) bool })
	return ok && w.Wrote(path, text)
}

// EditedPlan is commands.Client's: the user's edit of the open plan
// buffer at path, saved or not, which approval carries out (contract §5).
// The server never writes it to the file: that is the user's to save, and
// a file written under an open buffer makes Neovim ask on the next write.
func (s *Server) EditedPlan(path string) (string, bool) {
	s.offReadLoop("EditedPlan")
	path = filepath.Clean(path)
	text, _, open := s.docs.Buffer(path)
	if !open || s.ours(path, text) {
		return "", false
	}
	disk, err := os.ReadFile(path)
	s.plans.adopt(path, text, err == nil && string(disk) == text)
	return text, true
}

// notePlanDoc records a plan document the engine wrote (also for the
// stable latest.md path it copies the newest plan to).
func (s *Server) notePlanDoc(doc commands.PlanDoc) {
	if doc.Path == "" {
		return
	}
	s.plans.remember(filepath.Clean(doc.Path), doc.Text)
	if doc.LatestPath != "" {
		s.plans.remember(filepath.Clean(doc.LatestPath), doc.Text)
	}
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
