package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/undo"
)

// Undo (contract §4 aide.undo): every accepted hunk is recorded, with its
// before and after, in the user's state folder (package undo); an undo
// locates each hunk in the current text and reverts it through a session
// of its own, kind "undo", whose hunks are reviewed like any proposal (or
// applied at once with apply), so an undo is recorded, and undoable, like
// any accept. A hunk whose lines changed since is a conflict, never
// reverted over the user's text.

// UndoArgs is the argument of aide.undo.
type UndoArgs struct {
	Session string   `json:"session"`
	Hunks   []string `json:"hunks,omitempty"`
	// Apply applies the reverts at once instead of proposing them: for a
	// prompt that said so to the user.
	Apply bool `json:"apply,omitempty"`
}

// UndoConflict is a hunk an undo leaves: its lines changed since.
type UndoConflict struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// UndoResult is the reply of aide.undo: the hunks whose reverts were
// proposed (or applied, with apply), the conflicts, and the undo's own
// session, where the reverts are reviewed (empty when there is nothing
// to revert).
type UndoResult struct {
	Session   string         `json:"session,omitempty"`
	Undone    []string       `json:"undone"`
	Conflicts []UndoConflict `json:"conflicts"`
}

// UndoneData is undone, on the session undone: hunks whose reverts
// landed, and the undo's session.
type UndoneData struct {
	Hunks []string `json:"hunks"`
	By    string   `json:"by"`
}

// UndoConflictData is undo_conflict, on the session undone: the hunks an
// undo left because their lines changed since.
type UndoConflictData struct {
	Conflicts []UndoConflict `json:"conflicts"`
	By        string         `json:"by,omitempty"`
}

// undoKind is the kind of an undo's own session.
const undoKind = "undo"

// undoState is what a session knows of undos: for an undo's own session,
// the session it undoes and which of that session's hunks each of its
// hunks reverts; for a session undone, what became of its hunks.
type undoState struct {
	of        string              // the session this undo reverts
	reverts   map[string][]string // own hunk id → the undone session's hunk ids
	undone    map[string]string   // hunk id → the undo that reverted it
	conflicts []UndoConflict      // the last undo's conflicts
}

// startUndo checks aide.undo's argument, locates the reverts and makes the
// undo's session; the returned work proposes (or applies) them.
func (e *Engine) startUndo(a UndoArgs) (UndoResult, Work, error) {
	if e.undo == nil {
		return UndoResult{}, nil, errors.New("undo records are not kept by this server (no state folder outside the workspace: set XDG_STATE_HOME)")
	}
	if !undo.ValidSessionID(a.Session) {
		return UndoResult{}, nil, fmt.Errorf("%q is not a session id; aide.sessions lists them", a.Session)
	}
	e.undoMu.Lock()
	rec, err := e.undo.Load(a.Session)
	e.undoMu.Unlock()
	if err != nil {
		if errors.Is(err, undo.ErrNoRecord) {
			return UndoResult{}, nil, fmt.Errorf("session %s has no accepted change to undo (the last %d sessions' are kept)", a.Session, undo.Keep)
		}
		return UndoResult{}, nil, err
	}
	plan, err := undo.Reverts(rec, e.ws, a.Hunks)
	if err != nil {
		return UndoResult{}, nil, err
	}
	res := UndoResult{Undone: []string{}, Conflicts: []UndoConflict{}}
	for _, c := range plan.Conflicts {
		res.Conflicts = append(res.Conflicts, UndoConflict{ID: c.ID, Reason: c.Reason})
	}
	if len(plan.Reverts) == 0 {
		if len(res.Conflicts) == 0 {
			return UndoResult{}, nil, fmt.Errorf("session %s has nothing left to undo", a.Session)
		}
		e.noteUndo(a.Session, "", nil, res.Conflicts)
		return res, nil, nil
	}
	task := rec.Task
	if task == "" {
		task = a.Session
	}
	u := e.newSession(undoKind, "Undo: "+task, nil, "", "")
	u.state = StateEditing // a session's first state: its hunks are ready
	// An undo has no plan: its reverts are reviewed where they apply, and
	// its plan document is written but not opened beside the code.
	u.planShown = true
	u.undo.of = rec.Session
	u.undo.reverts = map[string][]string{}
	var hunks []editapply.Hunk
	for _, r := range plan.Reverts {
		u.undo.reverts[r.Hunk.ID] = r.IDs
		hunks = append(hunks, r.Hunk)
		res.Undone = append(res.Undone, r.IDs...)
	}
	for _, h := range hunks { // later hunks of this session are numbered after these
		var n int
		if _, err := fmt.Sscanf(h.ID, "h%d", &n); err == nil && n > u.nextHunk {
			u.nextHunk = n
		}
	}
	e.mu.Lock()
	e.sessions[u.id] = u
	e.mu.Unlock()
	e.writePlan(u, false)
	res.Session = u.id
	e.noteUndo(a.Session, u.id, nil, res.Conflicts)
	return res, func(ctx context.Context, p Progress) error {
		if !a.Apply {
			t := &turn{e: e, s: u, ctx: ctx, p: p, cfg: e.config()}
			return t.propose(hunks, nil, nil)
		}
		if err := e.pend(u, hunks); err != nil {
			return err
		}
		_, err := e.accept(ctx, u, nil)
		return err
	}, nil
}

// pend makes hunks the session's pending hunks without a review: for an
// undo applied at once (accept applies them next).
func (e *Engine) pend(s *session, hunks []editapply.Hunk) error {
	bases := make([][2]string, len(hunks))
	for i, h := range hunks {
		bases[i][0], bases[i][1] = e.reviewBase(h)
	}
	var list []ProposedHunk
	for _, h := range hunks {
		list = append(list, proposedHunk(h))
	}
	return e.move(s, StateProposed, func() {
		for i, h := range hunks {
			s.hunks = append(s.hunks, &hunkState{hunk: h, abs: bases[i][0], base: bases[i][1], status: hunkPending})
		}
		s.diff = editapply.RenderDiff(hunks, e.ws)
	}, ev(EvProposal, ProposalData{Hunks: list}))
}

// noteUndo tells the session undone (when this server knows it) what an
// undo did: hunks undone, or left as conflicts; its plan document lists
// them.
func (e *Engine) noteUndo(session, by string, undone []string, conflicts []UndoConflict) {
	e.mu.Lock()
	s := e.sessions[session]
	e.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	if len(undone) > 0 {
		if s.undo.undone == nil {
			s.undo.undone = map[string]string{}
		}
		for _, id := range undone {
			s.undo.undone[id] = by
		}
	}
	if conflicts != nil {
		s.undo.conflicts = conflicts
	}
	s.mu.Unlock()
	if len(undone) > 0 {
		e.emit(s, EvUndone, UndoneData{Hunks: undone, By: by})
	}
	if len(conflicts) > 0 {
		e.emit(s, EvUndoConflict, UndoConflictData{Conflicts: conflicts, By: by})
	}
	e.writePlan(s, true)
}

// recordAccepted keeps the hunks just accepted in the session's undo
// record (each against the text it was expressed against, before it
// landed). For an undo's session, it also marks the hunks it reverted as
// undone in their session's record; for the undo of an undo, those come
// back. A record that cannot be kept is a warning: the accept stands.
func (e *Engine) recordAccepted(s *session, accepted []*hunkState) {
	if e.undo == nil || len(accepted) == 0 {
		return
	}
	s.mu.Lock()
	task, kind, of := s.task, s.kind, s.undo.of
	var undone []string
	for _, h := range accepted {
		undone = append(undone, s.undo.reverts[h.hunk.ID]...)
	}
	s.mu.Unlock()
	err := func() error {
		e.undoMu.Lock()
		defer e.undoMu.Unlock()
		rec, err := e.undo.Load(s.id)
		if errors.Is(err, undo.ErrNoRecord) {
			source := undo.SourceServer
			if kind == undoKind {
				source = undo.SourceUndo
			}
			rec, err = e.undo.New(s.id, task, source), nil
			rec.UndoOf = of
		}
		if err != nil {
			return err
		}
		// Hunks expressed against one text are recorded together.
		var bases []string
		byBase := map[string][]editapply.Hunk{}
		for _, h := range accepted {
			if rec.Has(h.hunk.ID) {
				// `aide-lsp run --apply` records its hunks before it writes
				// them (a crash midway still leaves the record): once is enough.
				continue
			}
			if _, ok := byBase[h.base]; !ok {
				bases = append(bases, h.base)
			}
			byBase[h.base] = append(byBase[h.base], h.hunk)
		}
		for _, base := range bases {
			hs := byBase[base]
			read := func(p string) (string, bool, error) {
				for _, h := range hs {
					if h.Path == p {
						return base, !(h.Kind == editapply.KindWrite && h.Created), nil
					}
				}
				return "", false, nil // a rename's new path did not exist
			}
			if err := rec.Add(hs, read); err != nil {
				return err
			}
		}
		if err := e.undo.Save(rec); err != nil {
			return err
		}
		if of == "" || len(undone) == 0 {
			return nil
		}
		orig, err := e.undo.Load(of)
		if err != nil {
			return err
		}
		orig.MarkUndone(undone, s.id)
		if orig.Source == undo.SourceUndo && orig.UndoOf != "" {
			// Undoing an undo: what it had undone stands again.
			if first, err := e.undo.Load(orig.UndoOf); err == nil {
				first.RestoreIDs(undone, orig.Session)
				_ = e.undo.Save(first)
			}
		}
		return e.undo.Save(orig)
	}()
	if err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: accepted, but it cannot be undone: %v", err))
	}
	if of != "" && len(undone) > 0 {
		e.noteUndo(of, s.id, undone, nil)
	}
}

// undoLines are the plan document's "## Undo" lines of a session: what
// undos did to its hunks. s.mu is held.
func (s *session) undoLines() []planview.UndoLine {
	var out []planview.UndoLine
	for _, h := range s.hunks {
		if by, ok := s.undo.undone[h.hunk.ID]; ok {
			out = append(out, planview.UndoLine{ID: h.hunk.ID, Undone: true, By: by})
		}
	}
	for id, by := range s.undo.undone {
		if !slices.ContainsFunc(s.hunks, func(h *hunkState) bool { return h.hunk.ID == id }) {
			out = append(out, planview.UndoLine{ID: id, Undone: true, By: by})
		}
	}
	for _, c := range s.undo.conflicts {
		out = append(out, planview.UndoLine{ID: c.ID, Reason: c.Reason})
	}
	slices.SortStableFunc(out, func(a, b planview.UndoLine) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// undoable lists the sessions with hunks an undo would revert, from the
// undo records (the last undo.Keep sessions of the workspace).
func (e *Engine) undoable() map[string]SessionInfo {
	out := map[string]SessionInfo{}
	if e.undo == nil {
		return out
	}
	e.undoMu.Lock()
	recs, _ := e.undo.List()
	e.undoMu.Unlock()
	for _, r := range recs {
		if n := len(r.Standing()); n > 0 {
			out[r.Session] = SessionInfo{Session: r.Session, Task: r.Task, State: StateDone, CreatedAt: r.Created, Undoable: n}
		}
	}
	return out
}

// UndoOffer is an undo the code actions offer on a line a session
// changed (contract §4): the session, its task, and the hunk on the line.
type UndoOffer struct {
	Session string
	Task    string
	Hunk    string
}

// maxUndoOffers bounds the sessions offered on one line: the newest first.
const maxUndoOffers = 3

// UndoOffers lists the undos offered on a line (0-based) of the file at
// abs: the sessions, newest first, with an accepted hunk still standing
// on that line in the current text. It reads no model and only the undo
// records it already holds (re-read when the store changed).
func (e *Engine) UndoOffers(abs string, line int) []UndoOffer {
	_, rel, err := e.ws.Resolve(abs)
	if err != nil {
		return nil
	}
	var cur string
	read := false
	var out []UndoOffer
	for _, r := range e.undoRecords() {
		for _, h := range r.Hunks {
			if h.UndoneBy != "" || h.Path != rel || (h.Kind != "edit" && h.Kind != "write") {
				continue
			}
			if !read {
				text, ok, err := e.ws.Read(rel)
				if err != nil || !ok {
					return nil
				}
				cur, read = text, true
			}
			from, to, ok := undo.Lines(&h, cur)
			if !ok || line < from || line > to {
				continue
			}
			out = append(out, UndoOffer{Session: r.Session, Task: r.Task, Hunk: h.ID})
			break
		}
		if len(out) == maxUndoOffers {
			break
		}
	}
	return out
}

// UndoCount is how many accepted hunks of session an undo would revert.
func (e *Engine) UndoCount(session string) int {
	for _, r := range e.undoRecords() {
		if r.Session == session {
			return len(r.Standing())
		}
	}
	return 0
}

// undoRecords are the workspace's undo records, newest first, read again
// only when the store's folder changed (a record is replaced by a rename,
// which changes the folder).
func (e *Engine) undoRecords() []*undo.Record {
	if e.undo == nil {
		return nil
	}
	e.undoMu.Lock()
	defer e.undoMu.Unlock()
	st, err := os.Stat(e.undo.Dir())
	if err != nil {
		return nil
	}
	if !st.ModTime().Equal(e.undoSeen) || e.undoCache == nil {
		recs, err := e.undo.List()
		if err != nil {
			return nil
		}
		e.undoCache, e.undoSeen = recs, st.ModTime()
	}
	return e.undoCache
}
