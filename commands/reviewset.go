package commands

import (
	"context"
	"path/filepath"
	"slices"
	"sort"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// The review of a proposal (docs/architecture.md, "The boundary"): the
// engine owns the hunks under review and every rule about them; the client
// only shows them and reports what the editor did. Three ways in:
//   - DocumentsChanged: documents changed (the user typed, an editor applied
//     an edit): hunks that landed are accepted, those whose lines the user
//     changed go stale, the rest are re-located;
//   - Delivered: the editor answered the edit a proposal went out in;
//   - aide.accept (accept in session.go), which asks the client to apply.
// Judgements run one at a time (Engine.reviewMu), each on one reading of
// every document it looks at, so a re-location is never judged on content
// older than the one it replaces.

// maxReissue is how many times a proposal the editor refused because a
// document moved on under it (the user typed meanwhile) is sent: after
// that it is offered in place, where code actions follow the document
// without racing it.
const maxReissue = 2

// reviewRound is the delivery of a session's current proposal; guarded by
// the session's mu.
type reviewRound struct {
	ctx     context.Context // Client.Propose's: ends when the session moves on
	cancel  context.CancelFunc
	sends   int  // edits sent in this round
	inPlace bool // offered in place (the client said so, or after the re-sends)
	labels  map[string]string
}

// startRound begins the review of a new proposal under the turn's context
// (not cancelled by the turn's end: the review outlives the turn); s.mu is held.
func (s *session) startRound(ctx context.Context, labels map[string]string) {
	s.endRound()
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.round = reviewRound{ctx: rctx, cancel: cancel, labels: labels}
}

// endRound abandons what is out of the round (an unanswered edit); s.mu is held.
func (s *session) endRound() {
	if s.round.cancel != nil {
		s.round.cancel()
	}
}

// deliver hands hunks to the client for review: out in an edit until
// Delivered, or in place (the client's choice, or inPlace).
func (e *Engine) deliver(s *session, hunks []editapply.Hunk, inPlace bool) {
	inPlace = inPlace || e.client.Delivery() == ReviewInPlace
	s.mu.Lock()
	ctx, labels, task := s.round.ctx, s.round.labels, s.task
	if ctx == nil {
		ctx = context.Background()
	}
	ids := map[string]bool{}
	for _, h := range hunks {
		ids[h.ID] = true
	}
	for _, h := range s.hunks {
		if ids[h.hunk.ID] && !inPlace {
			h.out, h.sentBase = true, h.base
		}
	}
	if inPlace {
		s.round.inPlace = true
	} else {
		s.round.sends++
	}
	s.mu.Unlock()
	e.client.Propose(ctx, Proposal{Session: s.id, Task: task, Hunks: hunks, Labels: labels, InPlace: inPlace})
}

// content is a file's current text for the review (open buffer, else the
// disk) and whether it could be read; "" and false when it cannot (a file
// not created yet, or gone).
func (e *Engine) content(abs string) (string, bool) {
	text, exists, err := e.ws.Read(abs)
	if err != nil {
		return "", false
	}
	return text, exists
}

// reading reads each document once per judgement.
func (e *Engine) reading() func(abs string) (string, bool) {
	type doc struct {
		text   string
		exists bool
	}
	seen := map[string]doc{}
	return func(abs string) (string, bool) {
		d, ok := seen[abs]
		if !ok {
			d.text, d.exists = e.content(abs)
			seen[abs] = d
		}
		return d.text, d.exists
	}
}

// outcome is what one judgement decided for a session.
type outcome struct {
	accepted, rejected, stale []string
	late                      []string // withdrawn while out, then applied by the user
	resend                    []editapply.Hunk
}

// DocumentsChanged is told of changed documents and files (text sync,
// the watcher). It judges the hunks under review in them (landed:
// accepted; the user changed their lines: stale; else re-located), tells
// the live drift of waiting plans (FilesChanged), and returns the review
// of every session with pending hunks, for the client to show. It is
// never called on lsp's read loop: its events go to the client.
func (e *Engine) DocumentsChanged(ctx context.Context, changes []DocChange) []SessionReview {
	var paths []string
	changed := map[string]bool{}
	for _, c := range changes {
		paths = append(paths, c.Path)
		if c.Disk {
			continue
		}
		if abs, _, err := e.ws.Resolve(c.Path); err == nil {
			changed[abs] = true
		} else if filepath.IsAbs(c.Path) {
			changed[filepath.Clean(c.Path)] = true
		}
	}
	if len(paths) > 0 {
		e.FilesChanged(paths)
	}
	if len(changed) > 0 {
		for _, s := range e.sessionList() {
			if ctx.Err() != nil {
				break
			}
			e.judgeChanged(s, changed)
		}
	}
	return e.reviews()
}

// judgeChanged judges a session's pending hunks in the changed documents,
// and its withdrawn hunks still out in an edit the user may yet apply.
func (e *Engine) judgeChanged(s *session, changed map[string]bool) {
	e.reviewMu.Lock()
	read := e.reading()
	s.mu.Lock()
	var ts []ReviewHunk
	var hs []*hunkState
	for _, h := range s.hunks {
		watched := h.status == hunkPending || h.withdrawn && h.out
		if watched && changed[h.abs] && textOf(read, h.abs) != h.base {
			ts = append(ts, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
			hs = append(hs, h)
		}
	}
	var o outcome
	if len(ts) > 0 {
		for i, v := range judge(ts, read) {
			h := hs[i]
			switch {
			case v.Fate == fateLanded && h.status == hunkPending:
				o.accepted = append(o.accepted, h.hunk.ID)
			case v.Fate == fateLanded:
				o.late = append(o.late, h.hunk.ID)
			case v.Fate == fateStale && h.status == hunkPending:
				o.stale = append(o.stale, h.hunk.ID)
			case v.Fate == fateStale:
				h.out = false // its lines changed: it can no longer land as proposed
			default:
				h.hunk, h.base = v.Hunk, textOf(read, h.abs)
			}
		}
	}
	s.mu.Unlock()
	e.reviewMu.Unlock()
	e.record(s, o)
}

// Delivered is the editor's answer to the edit a proposal went out in
// (ReviewAsEdit): applied as the editor said, or err when the request
// itself failed. What landed is read from the documents, never from
// applied (Neovim answers true for an edit it skipped; a VS Code user may
// untick single changes): landed hunks are accepted, hunks whose lines
// changed go stale, and a hunk still pending after the editor's answer is
// rejected (unticked in the preview, or the whole edit declined), unless
// the editor refused the edit because a document moved on under it: then
// the hunks are re-located and sent again (maxReissue), then offered in
// place. Hunks the session withdrew meanwhile (cancel, re-plan) that the
// user applied anyway are recorded as accepted: nothing the user applied
// is lost.
func (e *Engine) Delivered(sessionID string, ids []string, applied bool, err error) {
	s, serr := e.session(sessionID)
	if serr != nil {
		return
	}
	e.reviewMu.Lock()
	read := e.reading()
	s.mu.Lock()
	var ts []ReviewHunk
	var hs []*hunkState
	refused := !applied && err == nil
	moved := false // a document of the edit changed since it was sent
	for _, h := range s.hunks {
		if !h.out || !slices.Contains(ids, h.hunk.ID) {
			continue
		}
		h.out = false
		if h.status != hunkPending && !h.withdrawn {
			continue
		}
		ts = append(ts, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
		hs = append(hs, h)
		moved = moved || textOf(read, h.abs) != h.sentBase
	}
	var o outcome
	for i, v := range judge(ts, read) {
		h := hs[i]
		switch {
		case h.status != hunkPending:
			if v.Fate == fateLanded {
				o.late = append(o.late, h.hunk.ID)
			}
		case v.Fate == fateLanded:
			o.accepted = append(o.accepted, h.hunk.ID)
		case v.Fate == fateStale:
			o.stale = append(o.stale, h.hunk.ID)
		case err != nil || refused && moved:
			h.hunk, h.base = v.Hunk, textOf(read, h.abs)
			o.resend = append(o.resend, h.hunk)
		default:
			o.rejected = append(o.rejected, h.hunk.ID)
		}
	}
	inPlace := err != nil || s.round.sends >= maxReissue
	s.mu.Unlock()
	e.reviewMu.Unlock()
	e.record(s, o)
	if len(o.resend) > 0 && e.statusOf(s, o.resend[0].ID) == hunkPending {
		e.deliver(s, o.resend, inPlace)
	}
}

// record hands a judgement's decisions to settle, in the order accepted,
// rejected, stale; then the late ones.
func (e *Engine) record(s *session, o outcome) {
	if len(o.accepted) > 0 {
		_, _ = e.settle(s.id, o.accepted, hunkAccepted, "", true)
	}
	if len(o.rejected) > 0 {
		_, _ = e.settle(s.id, o.rejected, hunkRejected, "", true)
	}
	if len(o.stale) > 0 {
		_, _ = e.settle(s.id, o.stale, hunkStale, "the document changed under it", true)
	}
	if len(o.late) > 0 {
		e.lateLanded(s, o.late)
	}
}

// lateLanded records withdrawn hunks the user applied anyway (a VS Code
// preview applied after a cancel or a re-plan): accepted, with why, and
// the session stays where it moved to.
func (e *Engine) lateLanded(s *session, ids []string) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	s.mu.Lock()
	var got []string
	var landed []*hunkState
	for _, id := range ids {
		if h := s.hunkByID(id); h != nil && h.withdrawn {
			h.status, h.withdrawn, h.out = hunkAccepted, false, false
			got = append(got, id)
			landed = append(landed, h)
		}
	}
	reason := "applied from the editor's preview after the session moved on (" + string(s.state) + ")"
	s.mu.Unlock()
	if len(got) == 0 {
		return
	}
	e.recordAccepted(s, landed) // the user applied them: undo can put them back
	e.emit(s, EvAccepted, DecisionData{Hunks: got, Reason: reason})
	e.writePlan(s, true)
}

// reviews is the review of every session with pending hunks, by session id.
func (e *Engine) reviews() []SessionReview {
	var out []SessionReview
	for _, s := range e.sessionList() {
		s.mu.Lock()
		r := SessionReview{Session: s.id, Task: s.task, InPlace: s.round.inPlace, Labels: s.round.labels}
		for _, h := range s.hunks {
			if h.status == hunkPending {
				r.Hunks = append(r.Hunks, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
			}
		}
		s.mu.Unlock()
		if len(r.Hunks) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// sessionList is every session, by id.
func (e *Engine) sessionList() []*session {
	e.mu.Lock()
	list := make([]*session, 0, len(e.sessions))
	for _, s := range e.sessions {
		list = append(list, s)
	}
	e.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	return list
}

// reviewBase is where a proposed hunk's review starts: its file's absolute
// path and current content (open buffer first).
func (e *Engine) reviewBase(h editapply.Hunk) (abs, base string) {
	abs, _, err := e.ws.Resolve(h.Path)
	if err != nil {
		return "", ""
	}
	text, _, _ := e.ws.Read(h.Path)
	return abs, text
}

// Review is a session's pending hunks, in proposal order (the review one
// hunk at a time, hunkreview.go, asks about the first).
func (e *Engine) Review(sessionID string) []ReviewHunk {
	s, err := e.session(sessionID)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewHunk
	for _, h := range s.hunks {
		if h.status == hunkPending {
			out = append(out, ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base})
		}
	}
	return out
}

// judgeHunk judges one pending hunk against cur, its file's content as
// the front end has it (ACP's fs/read_text_file: the client's buffer):
// landed, stale, or pending and re-located in cur (the engine keeps the
// re-location). ok is false when the hunk is not pending.
func (e *Engine) judgeHunk(sessionID, id, cur string) (ReviewHunk, fate, bool) {
	s, err := e.session(sessionID)
	if err != nil {
		return ReviewHunk{}, fatePending, false
	}
	e.reviewMu.Lock()
	defer e.reviewMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hunkByID(id)
	if h == nil || h.status != hunkPending {
		return ReviewHunk{}, fatePending, false
	}
	t := ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base}
	v := judge([]ReviewHunk{t}, func(string) (string, bool) { return cur, true })[0]
	if v.Fate != fatePending {
		return t, v.Fate, true
	}
	h.hunk, h.base = v.Hunk, cur
	return ReviewHunk{Hunk: h.hunk, Abs: h.abs, Base: h.base}, fatePending, true
}

// textOf is a document's text as read (whether it exists aside).
func textOf(read func(abs string) (string, bool), abs string) string {
	text, _ := read(abs)
	return text
}
