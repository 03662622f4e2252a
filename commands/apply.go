package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// ApplyHunks writes hunks to disk (the CLI's --apply; in an editor the
// client applies them). Every path is vetted again; every new content is
// computed before anything is written, so a hunk that no longer applies
// leaves all files untouched. It returns the paths it changed.
func ApplyHunks(ws *workspace.Workspace, hunks []editapply.Hunk) ([]string, error) {
	type fileOp struct {
		abs, rel   string
		content    string
		remove     bool
		renameTo   string
		hunksHere  []editapply.Hunk
		perm       os.FileMode
		haveOldRel bool
	}
	var order []string
	ops := map[string]*fileOp{}
	for _, h := range hunks {
		abs, rel, err := ws.Resolve(h.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Path, err)
		}
		op := ops[rel]
		if op == nil {
			op = &fileOp{abs: abs, rel: rel, perm: 0o644}
			if st, err := os.Stat(abs); err == nil {
				op.perm = st.Mode().Perm()
			}
			ops[rel] = op
			order = append(order, rel)
		}
		op.hunksHere = append(op.hunksHere, h)
	}
	for _, rel := range order {
		op := ops[rel]
		content, exists, err := ws.Read(rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		var edits []editapply.Hunk
		for _, h := range op.hunksHere {
			switch h.Kind {
			case editapply.KindDelete:
				op.remove = true
			case editapply.KindRename:
				newAbs, _, err := ws.Resolve(h.NewPath)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", h.NewPath, err)
				}
				if _, err := os.Lstat(newAbs); err == nil {
					return nil, fmt.Errorf("cannot rename %s: %s already exists", rel, h.NewPath)
				}
				op.renameTo = newAbs
			case editapply.KindWrite:
				if len(op.hunksHere) == 1 {
					op.content = h.NewText
					op.haveOldRel = true
					continue
				}
				edits = append(edits, h)
			default:
				edits = append(edits, h)
			}
		}
		if len(edits) > 0 {
			if !exists {
				return nil, fmt.Errorf("%s no longer exists", rel)
			}
			out, err := editapply.Apply(content, edits)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", rel, err)
			}
			op.content = out
			op.haveOldRel = true
		}
	}
	var changed []string
	var errs []error
	for _, rel := range order {
		op := ops[rel]
		switch {
		case op.remove:
			if err := os.Remove(op.abs); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
				continue
			}
		case op.haveOldRel:
			ws.ExpectWrite(op.abs, []byte(op.content))
			if err := writeFileMode(op.abs, []byte(op.content), op.perm); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if op.renameTo != "" && !op.remove {
			if err := os.MkdirAll(filepath.Dir(op.renameTo), 0o755); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := os.Rename(op.abs, op.renameTo); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		changed = append(changed, rel)
	}
	return changed, errors.Join(errs...)
}

func writeFileMode(path string, data []byte, perm os.FileMode) error {
	if err := writeFileAtomic(path, data); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}

// View is what a session looks like from outside: for the CLI's output and
// for lsp's plan-document code actions.
type View struct {
	Session string
	Task    string
	State   State
	Reason  string
	Plan    planview.Plan
	Diff    string
	Hunks   []HunkView
	PlanDoc PlanDoc
	// Drift lists the files the plan depends on that changed since it was
	// written, as the plan document's ## Drift section shows them.
	Drift []string
	// ApproveWith are the other configured models a waiting plan may be
	// approved with ("Approve with <model>", aide.approvePlan editorModel).
	ApproveWith []string
}

// HunkView is a proposed hunk and what became of it.
type HunkView struct {
	Hunk   editapply.Hunk
	Status HunkStatus // pending, accepted, rejected, stale
	// AIComment marks the hunk removing the AI comment the task came from.
	AIComment bool
	// Edited: stale because the user edited its lines; aide.rerunHunk may
	// make its change again on the current text.
	Edited bool
}

// View returns a session's current view.
func (e *Engine) View(sessionID string) (View, bool) {
	s, err := e.session(sessionID)
	if err != nil {
		return View{}, false
	}
	text, _ := workspace.ReadRegular(s.planPath, workspace.MaxStateBytes)
	s.mu.Lock()
	defer s.mu.Unlock()
	v := View{Session: s.id, Task: s.task, State: s.state, Reason: s.reason, Plan: s.plan, Diff: s.diff,
		PlanDoc: PlanDoc{Session: s.id, Path: s.planPath, Version: s.planVersion, Text: string(text)}}
	for _, h := range s.hunks {
		v.Hunks = append(v.Hunks, HunkView{Hunk: h.hunk, Status: h.status, AIComment: h.aiComment, Edited: h.edited && h.status == hunkStale})
	}
	for _, c := range s.drift {
		v.Drift = append(v.Drift, c.Path)
	}
	if s.state == StateWaiting && len(s.estimates) > 1 {
		for _, est := range s.estimates[1:] {
			v.ApproveWith = append(v.ApproveWith, est.Model)
		}
	}
	return v, true
}

// SessionForPlanFile finds the session whose plan document is at abs (for
// the approve / re-plan / discard code actions inside a plan file); the
// stable path .aide/plans/latest.md is the newest session's.
func (e *Engine) SessionForPlanFile(abs string) (string, bool) {
	base := filepath.Base(abs)
	if filepath.Ext(base) != ".md" || filepath.Dir(abs) != filepath.Join(e.root, ".aide", "plans") {
		return "", false
	}
	id := base[:len(base)-len(".md")]
	if base == LatestPlanName {
		e.mu.Lock()
		id = e.latest
		e.mu.Unlock()
	}
	if _, err := e.session(id); err != nil {
		return "", false
	}
	return id, true
}
