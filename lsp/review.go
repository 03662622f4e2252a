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

// applyEditQuiet is how long no further document change must arrive before
// the documents of an applied proposal are compared: an editor applies one
// WorkspaceEdit in one go, so its didChanges come back to back.
const applyEditQuiet = 100 * time.Millisecond

// review is lsp's side of the review: the engine decides (DocumentsChanged,
// Delivered); this only carries changed documents to it off the read loop
// and shows what it answers. One runner (latest) hands the engine every
// change gathered since its last run (the engine reads the documents as
// they are then), publishes the diagnostics and keeps the answer for the
// code actions and hovers, which wait until the runner has seen every
// change made before they were asked.
type review struct {
	runner    latest
	mu        sync.Mutex           // guards the fields below
	paths     []commands.DocChange // changed documents not yet handed to the engine
	sessions  []commands.SessionReview
	published map[string]string // absolute path → the diagnostics last published there (JSON)
	tick      chan struct{}     // closed and replaced on every document change
}

func (r *review) init() {
	r.published = map[string]string{}
	r.tick = make(chan struct{})
}

// changed wakes the waiters for a document change (sendProposal).
func (r *review) changed() {
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

// reviewChanged hands changed documents (none: the review changed, show it
// again) to the engine in the background. It returns at once: text sync
// calls it on the read loop.
func (s *Server) reviewChanged(paths ...string) { s.reviewChanges(false, paths) }

// reviewChanges is reviewChanged for buffers (disk false) or files on disk.
func (s *Server) reviewChanges(disk bool, paths []string) {
	r := &s.review
	r.mu.Lock()
	for _, p := range paths {
		r.paths = append(r.paths, commands.DocChange{Path: p, Disk: disk})
	}
	r.mu.Unlock()
	r.runner.kick(s.Go, s.runReview)
}

// runReview is one run of the runner: the engine judges the documents
// changed since the last run and the answer is shown.
func (s *Server) runReview(ctx context.Context) {
	r := &s.review
	r.mu.Lock()
	batch := r.paths
	r.paths = nil
	r.mu.Unlock()
	sessions := s.eng().DocumentsChanged(ctx, batch)
	r.mu.Lock()
	r.sessions = sessions
	r.mu.Unlock()
	var changed []string
	for _, c := range batch {
		if !c.Disk {
			changed = append(changed, c.Path)
		}
	}
	s.publishProposals(sessions, changed)
}

// currentReview is the engine's last answer once it covers every change
// made before the call (or ctx ends).
func (s *Server) currentReview(ctx context.Context) []commands.SessionReview {
	r := &s.review
	r.runner.wait(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions
}

// inPlace lists the sessions whose hunks are offered in place.
func inPlace(sessions []commands.SessionReview) []commands.SessionReview {
	var out []commands.SessionReview
	for _, v := range sessions {
		if v.InPlace {
			out = append(out, v)
		}
	}
	return out
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
// section there). Runs never overlap, and a burst of changes makes one
// more run after the running one, not one per message (latest).
func (s *Server) OnConfiguration(f func(ctx context.Context)) {
	s.mu.Lock()
	s.onConfig = f
	s.mu.Unlock()
}

// ReloadConfiguration runs the OnConfiguration function again, in the
// background (after a change the server learns of itself, such as a trust
// answer). A request to the client cannot be awaited on the read loop.
func (s *Server) ReloadConfiguration() {
	s.reloads.kick(s.Go, func(ctx context.Context) {
		s.mu.Lock()
		f := s.onConfig
		s.mu.Unlock()
		if f != nil {
			f(ctx)
		}
	})
}

// Go runs f in the background under the server's context (cancelled by
// shutdown, exit and the connection closing); Serve waits for it. It
// reports false when the server is shutting down and f was not started.
func (s *Server) Go(f func(ctx context.Context)) bool {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return false
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
	return true
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

// Delivery says how proposals are reviewed (contract §6): as one annotated
// workspace/applyEdit where the client reviews edits natively, else in
// place with diagnostics and code actions.
func (s *Server) Delivery() commands.Delivery {
	if s.Profile().Delivery(s.configuredDelivery()) == DeliveryApplyEdit {
		return commands.ReviewAsEdit
	}
	return commands.ReviewInPlace
}

// Propose delivers a proposal and returns at once: in place (the runner
// shows the engine's review set), or one annotated workspace/applyEdit
// sent in the background under ctx, the proposal's (cancelled when the
// session moves on), whose answer goes to the engine (Delivered). The
// hunks include the removal of the AI comment the task came from (the
// engine's propose step adds it).
func (s *Server) Propose(ctx context.Context, p commands.Proposal) {
	s.offReadLoop("Propose")
	if p.InPlace {
		s.reviewChanged()
		if s.Delivery() == commands.ReviewInPlace {
			s.showMessage(msgInfo, fmt.Sprintf("AIDE: %d change(s) proposed for %q: they are marked in the file; use the code actions there to accept or reject them", len(p.Hunks), p.Task))
		}
		return
	}
	p.Labels = s.runsCodeLabels(p.Hunks, p.Labels)
	s.Go(func(context.Context) { s.sendProposal(ctx, p) })
}

// sendProposal sends one applyEdit of a proposal's hunks and reports the
// editor's answer once the documents show it. A cancelled ctx abandons it:
// the engine has moved on, and judges from the documents whatever the user
// applies of it later.
func (s *Server) sendProposal(ctx context.Context, p commands.Proposal) {
	profile := s.Profile()
	label := "AIDE: " + p.Task
	hunks := s.vetPaths(p.Session, p.Hunks)
	if len(hunks) == 0 {
		return
	}
	// The hunks no step asks for go last, each annotation names its step.
	slices.SortStableFunc(hunks, func(a, b editapply.Hunk) int {
		return cmpBool(strings.HasPrefix(p.Labels[a.ID], labelNotInPlan), strings.HasPrefix(p.Labels[b.ID], labelNotInPlan))
	})
	edit := editapply.BuildWorkspaceEdit(hunks, s.docFor, editapply.BuildOptions{
		Label: label, Annotated: profile.ChangeAnnotations, Encoding: profile.Encoding, ResourceOps: profile.ResourceOps(),
		LabelOf: func(h editapply.Hunk) string {
			if l := p.Labels[h.ID]; l != "" {
				return "AIDE " + l + ": " + p.Task
			}
			return label
		},
	})
	ids := make([]string, len(hunks))
	before := map[string]string{}
	for i, h := range hunks {
		ids[i] = h.ID
		abs := s.absOf(h.Path)
		before[abs] = s.content(abs)
	}
	changed := s.review.nextChange()
	var res protocol.ApplyWorkspaceEditResult
	err := s.call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res)
	if s.opts.OnApplyResult != nil {
		s.opts.OnApplyResult(commands.Proposal{Session: p.Session, Task: p.Task, Hunks: hunks}, res, err)
	}
	if ctx.Err() != nil || s.bg.Err() != nil {
		return
	}
	if err != nil {
		s.log.Warn("workspace/applyEdit failed; offering the proposal as code actions", "session", p.Session, "err", err)
		s.eng().Delivered(p.Session, ids, false, err)
		return
	}
	if res.Applied && untouched(s, before) && !s.awaitChanges(ctx, changed) {
		return
	}
	if !res.Applied && res.FailureReason != nil {
		s.log.Info("the editor did not apply a proposal", "session", p.Session, "reason", *res.FailureReason)
	}
	s.eng().Delivered(p.Session, ids, res.Applied, nil)
}

// awaitChanges waits, after an editor answered applied:true while no
// document shows it yet, for its didChanges (never trusting applied:true
// on its own), then for quiet. It reports false when ctx ended.
func (s *Server) awaitChanges(ctx context.Context, changed <-chan struct{}) bool {
	select {
	case <-changed:
		// Several documents may change one after the other: wait for quiet.
		for {
			next := s.review.nextChange()
			select {
			case <-next:
			case <-time.After(applyEditQuiet):
				return true
			case <-ctx.Done():
				return false
			}
		}
	case <-time.After(applyEditSettle):
		return true
	case <-ctx.Done():
		return false
	}
}

// untouched reports whether no document changed since before was read.
func untouched(s *Server, before map[string]string) bool {
	for abs, text := range before {
		if s.content(abs) != text {
			return false
		}
	}
	return true
}

// publishProposals publishes one diagnostic per pending hunk offered in
// place, for the documents whose diagnostics changed or that changed
// (their versions move on), and clears the diagnostics of documents that
// have none left.
func (s *Server) publishProposals(sessions []commands.SessionReview, changed []string) {
	enc := s.encoding()
	byPath := map[string][]diagnostic{}
	for _, v := range inPlace(sessions) {
		hunks := make([]editapply.Hunk, len(v.Hunks))
		for i, t := range v.Hunks {
			hunks[i] = t.Hunk
		}
		labels := s.runsCodeLabels(hunks, v.Labels)
		for _, t := range v.Hunks {
			byPath[t.Abs] = append(byPath[t.Abs], diagnostic{
				Range:    editapply.HunkRange(t.Hunk, s.content(t.Abs), enc),
				Severity: 3, Source: "aide", Code: ProposalCode,
				Message: proposalMessage(t.Hunk, labels[t.Hunk.ID]),
				Data:    hunkRef{Session: v.Session, Hunk: t.Hunk.ID},
			})
		}
	}
	again := map[string]bool{}
	for _, p := range changed {
		again[filepath.Clean(p)] = true
	}
	type send struct {
		path  string
		diags []diagnostic
	}
	var out []send
	s.review.mu.Lock()
	seen := map[string]bool{}
	for p, diags := range byPath {
		seen[p] = true
		sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Line < diags[j].Range.Start.Line })
		b, _ := json.Marshal(diags)
		if s.review.published[p] != string(b) || again[p] {
			s.review.published[p] = string(b)
			out = append(out, send{p, diags})
		}
	}
	for p := range s.review.published {
		if !seen[p] {
			delete(s.review.published, p)
			out = append(out, send{p, []diagnostic{}})
		}
	}
	s.review.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	for _, o := range out {
		params := publishDiagnosticsParams{URI: string(uri.File(o.path)), Diagnostics: o.diags}
		if _, v, ok := s.docs.Buffer(o.path); ok {
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

// reviewEvent keeps what is shown in step with the engine's decisions,
// however they were made (aide.accept from a palette, a re-plan
// withdrawing hunks, a cancel). It runs under the engine's event lock: it
// only asks the runner to show the review again.
func (s *Server) reviewEvent(ev commands.Event) {
	switch ev.Data.(type) {
	case commands.DecisionData, commands.CancelledData, commands.DoneData:
		s.reviewChanged()
	}
}

// ApplyHunks is the editor's half of aide.accept (commands.Client): the
// engine judged the hunks and asks this to apply those that still apply,
// with one workspace/applyEdit (create, rename and delete written on disk
// when the client cannot take them), and then reads what landed from the
// documents.
func (s *Server) ApplyHunks(ctx context.Context, session, task string, hunks []editapply.Hunk) ([]string, error) {
	s.offReadLoop("ApplyHunks")
	hunks, written := s.writeResourceOps(session, hunks)
	if len(hunks) == 0 {
		return written, nil
	}
	profile := s.Profile()
	if !profile.ApplyEdit {
		s.showMessage(msgWarning, "AIDE: this editor cannot apply edits sent by the server; use the accept code action on the change instead")
		return written, nil
	}
	hunks = s.vetPaths(session, hunks)
	label := "AIDE: " + task
	edit := editapply.BuildWorkspaceEdit(hunks, s.docFor, editapply.BuildOptions{Label: label, Encoding: profile.Encoding, ResourceOps: profile.ResourceOps()})
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res); err != nil {
		s.log.Warn("accepted hunks not applied", "session", session, "err", err)
	}
	return written, nil
}

// writeResourceOps applies, on disk, the accepted hunks that create,
// rename or delete a file when the client cannot take resource operations
// (Neovim 0.7 does not advertise documentChanges): left in the edit they
// would silently do nothing. It returns the other hunks and the ids written.
func (s *Server) writeResourceOps(session string, hunks []editapply.Hunk) (rest []editapply.Hunk, written []string) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if s.Profile().ResourceOps() || ws == nil {
		return hunks, nil
	}
	for _, h := range hunks {
		if !editapply.NeedsResourceOps(h) {
			rest = append(rest, h)
			continue
		}
		if _, err := commands.ApplyHunks(ws, []editapply.Hunk{h}); err != nil {
			s.showMessage(msgError, fmt.Sprintf("AIDE: %s (%s) could not be applied: %v", h.ID, h.Summary, err))
			continue
		}
		written = append(written, h.ID)
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
	v, ok := s.eng().View(session)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no plan document %s; aide.sessions lists the sessions", p.URI)
	}
	return map[string]any{"uri": p.URI, "version": v.PlanDoc.Version, "text": v.PlanDoc.Text}, nil
}
