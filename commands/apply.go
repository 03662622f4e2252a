package commands

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/estimate"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// ApplyHunks writes hunks to disk, all or nothing (workspace.ApplyAll):
// the bench's --apply, and the creates, renames and deletes an editor
// without resource operations cannot apply (Neovim 0.7). It returns the
// paths it changed.
func ApplyHunks(ws *workspace.Workspace, hunks []editapply.Hunk) ([]string, error) {
	changes, err := FileChanges(ws, hunks)
	if err != nil {
		return nil, err
	}
	return ws.ApplyAll(changes)
}

// ApplyHunkIDs is ApplyHunks for a Client's ApplyHunks: all or nothing,
// so on success every hunk's id is written; it also returns the paths.
func ApplyHunkIDs(ws *workspace.Workspace, hunks []editapply.Hunk) (ids, paths []string, err error) {
	if paths, err = ApplyHunks(ws, hunks); err != nil {
		return nil, nil, err
	}
	ids = make([]string, len(hunks))
	for i, h := range hunks {
		ids[i] = h.ID
	}
	return ids, paths, nil
}

// FileChanges turns hunks into whole-file writes and deletes, in the order
// of their files' first hunks; a rename is the write of the new path and
// the delete of the old. Every path is vetted again and every new content
// computed, so a hunk that no longer applies is an error before anything
// is written. Nothing is written here.
func FileChanges(ws *workspace.Workspace, hunks []editapply.Hunk) ([]workspace.FileWrite, error) {
	// Grouped by the resolved path: two spellings of one file are one file.
	var order []string
	perFile := map[string][]editapply.Hunk{}
	absOf := map[string]string{}
	for _, h := range hunks {
		abs, rel, err := ws.Resolve(h.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Path, err)
		}
		if _, ok := perFile[rel]; !ok {
			order = append(order, rel)
			absOf[rel] = abs
		}
		perFile[rel] = append(perFile[rel], h)
	}
	var out []workspace.FileWrite
	for _, rel := range order {
		here, abs := perFile[rel], absOf[rel]
		content, exists, err := ws.Read(rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		remove, renameTo := false, ""
		newContent, haveNew := content, false
		var edits []editapply.Hunk
		for _, h := range here {
			switch h.Kind {
			case editapply.KindDelete:
				remove = true
			case editapply.KindRename:
				newAbs, newRel, err := ws.Resolve(h.NewPath)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", h.NewPath, err)
				}
				if _, err := os.Lstat(newAbs); err == nil {
					return nil, fmt.Errorf("cannot rename %s: %s already exists", rel, h.NewPath)
				}
				renameTo = newRel
			case editapply.KindWrite:
				if len(here) == 1 {
					newContent, haveNew = h.NewText, true
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
			if newContent, err = editapply.Apply(content, edits); err != nil {
				return nil, fmt.Errorf("%s: %w", rel, err)
			}
			haveNew = true
		}
		switch {
		case remove:
			out = append(out, workspace.FileWrite{Rel: rel, Delete: true})
		case renameTo != "":
			perm := os.FileMode(0)
			if st, err := os.Stat(abs); err == nil {
				perm = st.Mode().Perm()
			}
			out = append(out, workspace.FileWrite{Rel: renameTo, Content: []byte(newContent), Perm: perm},
				workspace.FileWrite{Rel: rel, Delete: true})
		case haveNew:
			out = append(out, workspace.FileWrite{Rel: rel, Content: []byte(newContent)})
		}
	}
	return out, nil
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
	// Verification is what the last verification said of the proposal
	// (contract §6.1); none when nothing was verified.
	Verification []planview.VerifyLine
	// ApproveWith are the other configured models a waiting plan may be
	// approved with ("Approve with <model>", aide.approvePlan editorModel).
	ApproveWith []string
	// Estimates price the editor call approval would make, the session's
	// editor model first, then ApproveWith's (contract §5); waiting only.
	Estimates []estimate.Estimate
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
	if s.state == StateWaiting {
		v.Estimates = append(v.Estimates, s.estimates...)
	}
	v.Verification = append(v.Verification, s.verified...)
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
