package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// Reviewer is what the review flow needs from the engine beyond Engine;
// commands.Engine implements it. Without it (test engines) proposals are
// still delivered but decisions stay with aide.accept / aide.reject.
type Reviewer interface {
	Decide(session string, ids []string, accepted bool) ([]string, error)
	Stale(session string, ids []string, reason string) ([]string, error)
	View(session string) (commands.View, bool)
	SessionForPlanFile(abs string) (string, bool)
	// ReviewSet and Relocate are the session's pending hunks, which the
	// engine owns, and their re-location in changed documents.
	ReviewSet(session string) []commands.ReviewHunk
	Relocate(session string, moved []commands.ReviewHunk, from []string)
}

// Code-action kinds and diagnostic code of the review (contract §6).
const (
	// ReviewActionKind is the kind of the accept/reject actions: a quick
	// fix of the proposal diagnostic, so editors list it with the diagnostic.
	ReviewActionKind = "quickfix.aide"
	// ProposalCode is the code of the diagnostic of a pending hunk.
	ProposalCode = "aide.proposal"
)

// applyEditSettle bounds how long, after an editor answered applied:true to
// a proposal without any document having changed yet, the server waits for
// the didChange that shows what really landed. Neovim debounces didChange by
// 150 ms by default; two seconds covers a busy machine, and a didChange that
// comes later still counts, through the normal re-evaluation of pending hunks.
const applyEditSettle = 2 * time.Second

// review is the state of proposals under review.
type review struct {
	mu        sync.Mutex // guards the fields below
	sessions  map[string]*reviewSession
	published map[string]bool // absolute paths with aide diagnostics published
	tick      chan struct{}   // closed and replaced on every document change
}

// reviewSession is how a session's proposal is delivered; its hunks are
// the engine's review set (pendingOf).
type reviewSession struct {
	id, task string
	delivery string
	settling bool // an applyEdit is out: its answer and the documents decide
	// local holds the proposal's hunks only for an engine without a review
	// set (a Reviewer): test engines.
	local []*tracked
	// labels name each hunk's plan step ("step 2", "not in the plan");
	// set once by Propose, never changed: read without the lock.
	labels map[string]string
}

// tracked is one pending hunk and the content it is expressed against.
type tracked struct {
	hunk editapply.Hunk
	abs  string
	base string
}

func (r *review) init() {
	r.sessions = map[string]*reviewSession{}
	r.published = map[string]bool{}
	r.tick = make(chan struct{})
}

// changed wakes the waiters for a document change.
func (r *review) changed(string) {
	r.mu.Lock()
	close(r.tick)
	r.tick = make(chan struct{})
	r.mu.Unlock()
}

func (r *review) nextChange() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tick
}

// drop forgets hunks the engine decided (the whole session when ids is nil;
// an empty, non-nil ids drops nothing).
func (r *review) drop(session string, ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.sessions[session]
	if rs == nil {
		return
	}
	if ids == nil {
		delete(r.sessions, session)
		return
	}
	rs.local = slices.DeleteFunc(rs.local, func(t *tracked) bool { return slices.Contains(ids, t.hunk.ID) })
}

// pendingOf is a session's pending hunks with their bases: the engine's
// review set, or the proposal's own hunks for an engine without one.
func (s *Server) pendingOf(rs *reviewSession) []tracked {
	if r := s.reviewer(); r != nil {
		set := r.ReviewSet(rs.id)
		out := make([]tracked, len(set))
		for i, h := range set {
			out[i] = tracked{hunk: h.Hunk, abs: h.Abs, base: h.Base}
		}
		return out
	}
	s.review.mu.Lock()
	defer s.review.mu.Unlock()
	return copyTracked(rs.local)
}

// relocate records hunks re-located in the current content (judged from
// the bases in from).
func (s *Server) relocate(rs *reviewSession, moved []tracked, from []string) {
	if len(moved) == 0 {
		return
	}
	if r := s.reviewer(); r != nil {
		set := make([]commands.ReviewHunk, len(moved))
		for i, t := range moved {
			set[i] = commands.ReviewHunk{Hunk: t.hunk, Abs: t.abs, Base: t.base}
		}
		r.Relocate(rs.id, set, from)
		return
	}
	s.review.mu.Lock()
	defer s.review.mu.Unlock()
	for i, m := range moved {
		for _, t := range rs.local {
			if t.hunk.ID == m.hunk.ID && t.base == from[i] {
				*t = m
			}
		}
	}
}

// settleJudged hands a judgement to the engine: landed and stale hunks are
// decided, pending ones re-located (their base becomes the content they
// were judged in).
func (s *Server) settleJudged(rs *reviewSession, ts []tracked, verdicts []judged) (landed, stale []string) {
	var moved []tracked
	var from []string
	for i, j := range verdicts {
		t := ts[i]
		switch j.fate {
		case fateLanded:
			landed = append(landed, t.hunk.ID)
		case fateStale:
			stale = append(stale, t.hunk.ID)
		default:
			moved = append(moved, tracked{hunk: j.hunk, abs: t.abs, base: s.content(t.abs)})
			from = append(from, t.base)
		}
	}
	s.relocate(rs, moved, from)
	if gone := append(slices.Clone(landed), stale...); len(gone) > 0 {
		s.review.drop(rs.id, gone) // nil would drop the whole session
	}
	return landed, stale
}

func (s *Server) reviewer() Reviewer {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, _ := s.engine.(Reviewer)
	return r
}

// SetDelivery sets the configured delivery ("auto", "applyEdit",
// "codeActions"); Setup calls it whenever the configuration changes.
func (s *Server) SetDelivery(d string) {
	s.mu.Lock()
	s.delivery = d
	s.mu.Unlock()
}

func (s *Server) configuredDelivery() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.delivery != "" {
		return s.delivery
	}
	return s.opts.Delivery
}

// OnConfiguration registers f, run in the background after initialized and
// after every workspace/didChangeConfiguration (Setup re-reads the "aide"
// section there), each time in a goroutine of its own: f serialises itself.
func (s *Server) OnConfiguration(f func(ctx context.Context)) {
	s.mu.Lock()
	s.onConfig = f
	s.mu.Unlock()
}

// ReloadConfiguration runs the OnConfiguration function again, in the
// background (after a change the server learns of itself, such as a trust answer).
func (s *Server) ReloadConfiguration() {
	s.mu.Lock()
	f := s.onConfig
	s.mu.Unlock()
	if f != nil {
		// A request to the client cannot be awaited on the read loop.
		s.Go(f)
	}
}

// Go runs f in the background under the server's context (cancelled by
// shutdown, exit and the connection closing); Serve waits for it.
func (s *Server) Go(f func(ctx context.Context)) {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return
	}
	s.jobs.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.jobs.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("background work panicked", "panic", fmt.Sprint(r))
			}
		}()
		f(s.bg)
	}()
}

// content is a file's current text: the open buffer, else the disk.
func (s *Server) content(abs string) string {
	if text, _, ok := s.docs.Buffer(abs); ok {
		return text
	}
	b, _ := os.ReadFile(abs)
	return string(b)
}

// absOf turns a workspace-relative hunk path into an absolute path.
func (s *Server) absOf(rel string) string {
	s.mu.Lock()
	ws, roots := s.ws, s.roots
	s.mu.Unlock()
	if ws != nil {
		if a, _, err := ws.Resolve(rel); err == nil {
			return a
		}
	}
	if filepath.IsAbs(rel) || len(roots) == 0 {
		return filepath.Clean(rel)
	}
	return filepath.Join(roots[0], filepath.FromSlash(rel))
}

// Propose delivers a proposal (contract §6): one annotated
// workspace/applyEdit where the client reviews edits natively, else
// diagnostics and code actions. The hunks include the removal of the AI
// comment the task came from (the engine's propose step adds it).
func (s *Server) Propose(p commands.Proposal) {
	profile := s.Profile()
	rs := &reviewSession{id: p.Session, task: p.Task, delivery: profile.Delivery(s.configuredDelivery()), labels: s.runsCodeLabels(p.Hunks, p.Labels)}
	if s.reviewer() == nil {
		for _, h := range p.Hunks {
			abs := s.absOf(h.Path)
			rs.local = append(rs.local, &tracked{hunk: h, abs: abs, base: s.content(abs)})
		}
	}
	rs.settling = rs.delivery == DeliveryApplyEdit
	s.review.mu.Lock()
	s.review.sessions[p.Session] = rs
	s.review.mu.Unlock()

	if rs.delivery == DeliveryApplyEdit {
		s.proposeApplyEdit(p, rs)
		return
	}
	s.publishProposals()
	s.showMessage(msgInfo, fmt.Sprintf("AIDE: %d change(s) proposed for %q: they are marked in the file; use the code actions there to accept or reject them", len(p.Hunks), p.Task))
}

// proposeApplyEdit sends the annotated edit and works out from the answer
// and the documents which hunks landed.
func (s *Server) proposeApplyEdit(p commands.Proposal, rs *reviewSession) {
	for attempt := 1; ; attempt++ {
		if !s.sendProposalEdit(p, rs) {
			return
		}
		// The editor refused the edit because a document moved on under it
		// (the user typed meanwhile), not because the user declined: the
		// hunks are re-located, those that no longer apply are withdrawn,
		// and the rest are re-issued once; after that, code actions.
		landed, stale := s.rebaseSession(rs)
		s.decide(p.Session, landed, nil, stale)
		if len(s.pendingOf(rs)) == 0 {
			s.review.drop(p.Session, nil)
			return
		}
		if attempt >= maxReissue {
			s.fallBackToCodeActions(rs)
			return
		}
	}
}

// maxReissue is how many times a proposal refused as stale is sent again
// before it is offered as code actions: once is enough unless the user keeps
// typing, and then code actions follow the document without racing it.
const maxReissue = 2

// copyTracked copies tracked hunks for judge.
func copyTracked(ts []*tracked) []tracked {
	out := make([]tracked, len(ts))
	for i, t := range ts {
		out[i] = *t
	}
	return out
}

// rebaseSession re-locates a session's hunks in the current documents and
// returns those that landed and those that went stale.
func (s *Server) rebaseSession(rs *reviewSession) (landed, stale []string) {
	ts := s.pendingOf(rs)
	return s.settleJudged(rs, ts, judge(ts, s.content))
}

// sendProposalEdit sends one applyEdit of the session's pending hunks and
// settles it. It returns true when the editor refused it as stale and the
// hunks are still to be settled.
func (s *Server) sendProposalEdit(p commands.Proposal, rs *reviewSession) (refusedStale bool) {
	profile := s.Profile()
	label := "AIDE: " + p.Task
	pending := s.pendingOf(rs)
	hunks := make([]editapply.Hunk, len(pending))
	for i, t := range pending {
		hunks[i] = t.hunk
	}
	if hunks = s.vetPaths(p.Session, hunks); len(hunks) == 0 {
		return false
	}
	// The hunks no step asks for go last, each annotation names its step.
	slices.SortStableFunc(hunks, func(a, b editapply.Hunk) int {
		return cmpBool(strings.HasPrefix(rs.labels[a.ID], labelNotInPlan), strings.HasPrefix(rs.labels[b.ID], labelNotInPlan))
	})
	edit := editapply.BuildWorkspaceEdit(hunks, s.docFor, editapply.BuildOptions{
		Label: label, Annotated: profile.ChangeAnnotations, Encoding: profile.Encoding, ResourceOps: profile.ResourceOps(),
		LabelOf: func(h editapply.Hunk) string {
			if l := rs.labels[h.ID]; l != "" {
				return "AIDE " + l + ": " + p.Task
			}
			return label
		},
	})
	versions := s.openVersions(pending)
	changed := s.review.nextChange()
	var res protocol.ApplyWorkspaceEditResult
	err := s.call(s.bg, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res)
	if s.opts.OnApplyResult != nil {
		s.opts.OnApplyResult(commands.Proposal{Session: p.Session, Task: p.Task, Hunks: hunks}, res, err)
	}
	if err != nil {
		if s.bg.Err() != nil {
			return false
		}
		s.log.Warn("workspace/applyEdit failed; offering the proposal as code actions", "session", p.Session, "err", err)
		s.fallBackToCodeActions(rs)
		return false
	}
	if res.Applied && untouched(s, pending) {
		// The editor says it applied but no document shows it yet: wait for
		// the didChange (never trust applied:true on its own).
		select {
		case <-changed:
			// Several documents may change one after the other: wait for quiet.
			for quiet := false; !quiet; {
				next := s.review.nextChange()
				select {
				case <-next:
				case <-time.After(applyEditQuiet):
					quiet = true
				case <-s.bg.Done():
					return false
				}
			}
		case <-time.After(applyEditSettle):
		case <-s.bg.Done():
			return false
		}
	}
	if !res.Applied && !slices.Equal(versions, s.openVersions(pending)) {
		reason := ""
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		s.log.Info("the editor refused a proposal whose documents changed meanwhile", "session", p.Session, "reason", reason)
		return true
	}
	var accepted, rejected, stale []string
	for i, j := range judge(pending, s.content) {
		t := pending[i]
		switch j.fate {
		case fateLanded:
			accepted = append(accepted, t.hunk.ID)
		case fatePending:
			rejected = append(rejected, t.hunk.ID) // unticked in the preview, or the whole edit declined
		default:
			stale = append(stale, t.hunk.ID)
		}
	}
	s.review.drop(p.Session, nil)
	s.decide(p.Session, accepted, rejected, stale)
	return false
}

// applyEditQuiet is how long no further document change must arrive before
// the documents of an applied proposal are compared: an editor applies one
// WorkspaceEdit in one go, so its didChanges come back to back.
const applyEditQuiet = 100 * time.Millisecond

// openVersions lists the versions of the open documents of hunks.
func (s *Server) openVersions(hunks []tracked) []int32 {
	var out []int32
	for _, t := range hunks {
		if _, v, ok := s.docs.Buffer(t.abs); ok {
			out = append(out, v)
		} else {
			out = append(out, -1)
		}
	}
	return out
}

// untouched reports whether no document of hunks changed.
func untouched(s *Server, hunks []tracked) bool {
	for _, t := range hunks {
		if s.content(t.abs) != t.base {
			return false
		}
	}
	return true
}

func (s *Server) fallBackToCodeActions(rs *reviewSession) {
	s.review.mu.Lock()
	rs.delivery, rs.settling = DeliveryCodeActions, false
	s.review.mu.Unlock()
	s.reviewDocumentChanged("")
	s.publishProposals()
}

// decide hands decisions to the engine, in the order accepted, rejected, stale.
func (s *Server) decide(session string, accepted, rejected, stale []string) {
	r := s.reviewer()
	if r == nil {
		return
	}
	if len(accepted) > 0 {
		if _, err := r.Decide(session, accepted, true); err != nil {
			s.log.Warn("decision not recorded", "session", session, "err", err)
		}
	}
	if len(rejected) > 0 {
		if _, err := r.Decide(session, rejected, false); err != nil {
			s.log.Warn("decision not recorded", "session", session, "err", err)
		}
	}
	if len(stale) > 0 {
		if _, err := r.Stale(session, stale, "the document changed under it"); err != nil {
			s.log.Warn("stale hunks not recorded", "session", session, "err", err)
		}
	}
}

// reviewDocumentChanged re-evaluates the pending code-action hunks of a
// changed document (every document when abs is ""): those that landed are
// accepted, those that still apply are re-located, the rest are stale and
// withdrawn. Then the diagnostics are published again.
func (s *Server) reviewDocumentChanged(abs string) {
	touched := false // the document holds pending hunks: its diagnostics move with it
	for _, v := range s.underReview() {
		if v.settling {
			continue
		}
		var mine []tracked
		for _, t := range s.pendingOf(v.rs) {
			if abs != "" && t.abs != abs {
				continue
			}
			touched = true
			if s.content(t.abs) != t.base {
				mine = append(mine, t)
			}
		}
		if len(mine) == 0 {
			continue
		}
		landed, stale := s.settleJudged(v.rs, mine, judge(mine, s.content))
		s.decide(v.rs.id, landed, nil, stale)
	}
	if touched {
		s.publishProposals()
	}
}

// reviewView is a session under review as one look saw it.
type reviewView struct {
	rs       *reviewSession
	delivery string
	settling bool
}

// underReview lists the sessions under review (their hunks are read with
// pendingOf, outside the review lock: they are the engine's).
func (s *Server) underReview() []reviewView {
	s.review.mu.Lock()
	defer s.review.mu.Unlock()
	out := make([]reviewView, 0, len(s.review.sessions))
	for _, rs := range s.review.sessions {
		out = append(out, reviewView{rs: rs, delivery: rs.delivery, settling: rs.settling})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rs.id < out[j].rs.id })
	return out
}

// publishProposals publishes one diagnostic per pending code-action hunk,
// and clears the diagnostics of files that have none left.
func (s *Server) publishProposals() {
	enc := s.encoding()
	byPath := map[string][]diagnostic{}
	for _, v := range s.underReview() {
		if v.delivery != DeliveryCodeActions || v.settling {
			continue
		}
		for _, t := range s.pendingOf(v.rs) {
			byPath[t.abs] = append(byPath[t.abs], diagnostic{
				Range:    editapply.HunkRange(t.hunk, s.content(t.abs), enc),
				Severity: 3, Source: "aide", Code: ProposalCode,
				Message: proposalMessage(t.hunk, v.rs.labels[t.hunk.ID]),
				Data:    hunkRef{Session: v.rs.id, Hunk: t.hunk.ID},
			})
		}
	}
	s.review.mu.Lock()
	var paths []string
	for p := range byPath {
		paths = append(paths, p)
	}
	for p := range s.review.published {
		if byPath[p] == nil {
			paths = append(paths, p)
		}
	}
	s.review.published = map[string]bool{}
	for p := range byPath {
		s.review.published[p] = true
	}
	s.review.mu.Unlock()
	sort.Strings(paths)
	for _, p := range paths {
		diags := byPath[p]
		if diags == nil {
			diags = []diagnostic{}
		}
		sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Line < diags[j].Range.Start.Line })
		params := publishDiagnosticsParams{URI: string(uri.File(p)), Diagnostics: diags}
		if _, v, ok := s.docs.Buffer(p); ok {
			params.Version = &v
		}
		s.notify("textDocument/publishDiagnostics", params)
	}
}

type diagnostic struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Source   string         `json:"source"`
	Code     string         `json:"code"`
	Message  string         `json:"message"`
	Data     hunkRef        `json:"data"`
}

type hunkRef struct {
	Session string `json:"session"`
	Hunk    string `json:"hunk"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

// reviewEvent keeps the review in step with the engine's decisions, however
// they were made (aide.accept from a palette, a re-plan withdrawing hunks, a
// cancel). It only sends notifications: it runs under the engine's event lock.
func (s *Server) reviewEvent(ev commands.Event) {
	switch d := ev.Data.(type) {
	case commands.DecisionData: // accepted, rejected, stale
		if len(d.Hunks) == 0 {
			return
		}
		s.review.drop(ev.Session, d.Hunks)
	case commands.CancelledData, commands.DoneData:
		s.review.drop(ev.Session, nil)
	default:
		return
	}
	s.publishProposals()
}

// ApplyAccepted is commands.HunkApplier, the editor's half of aide.accept
// (the engine's accept is the one path: it checks the hunks, asks this,
// and records what it answers). Of the pending hunks ids, those whose edit
// already landed (a code action's edit came first) are landed; those that
// still apply are applied with one workspace/applyEdit (create, rename and
// delete on disk when the client cannot take them) and landed when the
// documents show them; those that no longer apply are stale. Hunks the
// editor declined stay pending.
func (s *Server) ApplyAccepted(ctx context.Context, session, task string, ids []string) (landed, stale []string) {
	var toApply []*tracked
	s.review.mu.Lock()
	rs := s.review.sessions[session]
	s.review.mu.Unlock()
	if rs == nil {
		rs = &reviewSession{id: session}
	}
	// All the session's pending hunks are judged together (judge): a
	// landed neighbour explains the document the others are found in.
	ts := s.pendingOf(rs)
	var moved []tracked
	var from []string
	for i, j := range judge(ts, s.content) {
		t := ts[i]
		if !slices.Contains(ids, t.hunk.ID) {
			continue
		}
		switch j.fate {
		case fateLanded:
			landed = append(landed, t.hunk.ID)
		case fateStale:
			stale = append(stale, t.hunk.ID)
		default:
			m := tracked{hunk: j.hunk, abs: t.abs, base: s.content(t.abs)}
			moved, from = append(moved, m), append(from, t.base)
			toApply = append(toApply, &m)
		}
	}
	s.relocate(rs, moved, from)
	toApply, byServer := s.writeResourceOps(session, toApply)
	landed = append(landed, byServer...)
	if len(toApply) > 0 && s.Profile().ApplyEdit {
		hunks := make([]editapply.Hunk, len(toApply))
		for i, t := range toApply {
			hunks[i] = t.hunk
		}
		hunks = s.vetPaths(session, hunks)
		label := "AIDE: " + task
		profile := s.Profile()
		edit := editapply.BuildWorkspaceEdit(hunks, s.docFor, editapply.BuildOptions{Label: label, Encoding: profile.Encoding, ResourceOps: profile.ResourceOps()})
		var res protocol.ApplyWorkspaceEditResult
		if err := s.call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res); err != nil {
			s.log.Warn("accepted hunks not applied", "session", session, "err", err)
		}
		sent := make([]tracked, len(toApply))
		for i, t := range toApply {
			sent[i] = *t
		}
		for i, j := range judge(sent, s.content) {
			if j.fate == fateLanded {
				landed = append(landed, sent[i].hunk.ID)
			}
		}
	} else if len(toApply) > 0 {
		s.showMessage(msgWarning, "AIDE: this editor cannot apply edits sent by the server; use the accept code action on the change instead")
	}
	return landed, stale
}

// writeResourceOps applies, on disk, the accepted hunks that create,
// rename or delete a file when the client cannot take resource operations
// (Neovim 0.7 does not advertise documentChanges): left in the edit they
// would silently do nothing. It returns the other hunks and the ids written.
func (s *Server) writeResourceOps(session string, hunks []*tracked) (rest []*tracked, written []string) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if s.Profile().ResourceOps() || ws == nil {
		return hunks, nil
	}
	for _, t := range hunks {
		if !editapply.NeedsResourceOps(t.hunk) {
			rest = append(rest, t)
			continue
		}
		if _, err := commands.ApplyHunks(ws, []editapply.Hunk{t.hunk}); err != nil {
			s.showMessage(msgError, fmt.Sprintf("AIDE: %s (%s) could not be applied: %v", t.hunk.ID, t.hunk.Summary, err))
			continue
		}
		written = append(written, t.hunk.ID)
	}
	return rest, written
}

// planDocument answers aide/planDocument {uri} with {uri, version, text}.
func (s *Server) planDocument(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.URI == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "aide/planDocument needs {\"uri\": \"aide-plan:/<session>.md\"}")
	}
	session := strings.TrimSuffix(strings.TrimLeft(strings.TrimPrefix(p.URI, "aide-plan:"), "/"), ".md")
	r := s.reviewer()
	if r == nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "no engine is running")
	}
	v, ok := r.View(session)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no plan document %s; aide.sessions lists the sessions", p.URI)
	}
	return map[string]any{"uri": p.URI, "version": v.PlanDoc.Version, "text": v.PlanDoc.Text}, nil
}
