package acp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
)

// The session's modes and options (docs/contract.md §10).
const (
	modeArchitect = "architect" // two calls: plan, approval, editor (the default)
	modeEdit      = "edit"      // one call: the editor alone

	optMode        = "mode"
	optModel       = "model"       // the architect model
	optEditorModel = "editorModel" // the editor model

	// categoryEditorModel is the editor model's select: ACP's "model"
	// category is the one model of most agents, the architect's here.
	categoryEditorModel = "_editor_model"
)

// session is one ACP session: a conversation on one root. Its prompts run
// aide sessions (aide).
type session struct {
	a    *Agent
	r    *root
	id   sdk.SessionId
	tool int // tool call numbering

	mu        sync.Mutex
	mode      string
	archModel string
	edModel   string
	aide      string             // the aide session its last prompt ran
	aideMode  string             // the mode that session was started in
	hunkSteps map[string]int     // hunk id → plan step, from the proposal events
	cancel    context.CancelFunc // the running prompt's, nil between prompts
	notices   []string           // said at the next prompt (configuration, trust)
	usage     map[string]*roleUsage
	turnIn    int // this turn's tokens
	turnOut   int
}

// roleUsage is the session's tokens and cost of one role.
type roleUsage struct {
	Model            string  `json:"model"`
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	CostUSD          float64 `json:"costUSD"`
	Priced           bool    `json:"priced"`
}

func newSession(a *Agent, r *root, id sdk.SessionId) *session {
	cfg := r.config()
	s := &session{a: a, r: r, id: id, mode: modeArchitect, archModel: cfg.ArchitectModel, edModel: cfg.EditorModel,
		usage: map[string]*roleUsage{}}
	s.notices = r.notices()
	return s
}

// update sends one session/update; a client gone is logged only. A
// cancelled turn still sends it: the ACP spec has the agent send its
// pending updates before it answers the prompt with "cancelled", so a
// client never shows a tool call waiting forever.
func (s *session) update(ctx context.Context, u sdk.SessionUpdate) {
	ctx = context.WithoutCancel(ctx)
	if err := s.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		s.a.log.Debug("session/update not sent", "err", err)
	}
}

// cancelGrace is how long a permission request still waits for the
// client's answer after session/cancel. The ACP spec has the client answer
// every pending request then ("cancelled"), and a client may already have
// sent the user's answer when it cancels (agent-shell cancels right after
// a reject or "Keep planning"): that answer is what the user decided, so
// it is read, not dropped. A client that never answers costs this long.
const cancelGrace = 5 * time.Second

// ask sends a permission request and waits for its answer, through a
// cancel of the turn for up to cancelGrace.
func (s *session) ask(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
		case <-pctx.Done():
			return
		}
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case <-t.C:
			stop()
		case <-pctx.Done():
		}
	}()
	return s.a.conn.RequestPermission(pctx, req)
}

// say sends an agent message. Clients render agent messages as Markdown,
// and what the server says holds text it did not write (the provider's
// error text, a failed session's reason, file names), so every message is
// defanged plain here, the one place they pass; only the architect's
// stream, defanged as it arrives (textStream), is sent by sayDefanged.
func (s *session) say(ctx context.Context, text string) {
	s.sayDefanged(ctx, planview.DefangPlain(text))
}

func (s *session) sayDefanged(ctx context.Context, text string) {
	s.update(ctx, sdk.UpdateAgentMessageText(text))
}

// plainBlock is a text block of a tool call: defanged as say's messages.
func plainBlock(text string) sdk.ContentBlock {
	return sdk.TextBlock(planview.DefangPlain(text))
}

func (s *session) nextToolID(kind string) sdk.ToolCallId {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tool++
	return sdk.ToolCallId(fmt.Sprintf("%s-%d", kind, s.tool))
}

func (s *session) modeState() *sdk.SessionModeState {
	s.mu.Lock()
	mode := s.mode
	s.mu.Unlock()
	return &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(mode), AvailableModes: []sdk.SessionMode{
		{Id: modeArchitect, Name: "Architect → Editor", Description: sdk.Ptr("A strong model plans (no tools); you approve or edit the plan; the editor model turns it into edits you review hunk by hunk")},
		{Id: modeEdit, Name: "Edit (one call)", Description: sdk.Ptr("One editor call, no plan; its edits are reviewed hunk by hunk")},
	}}
}

// models are the models the selects offer: the session's, the
// configuration's architect and editor models and the priced models.
func (s *session) models() []string {
	cfg := s.r.config()
	s.mu.Lock()
	list := []string{s.archModel, s.edModel}
	s.mu.Unlock()
	list = append(list, cfg.ArchitectModel, cfg.EditorModel)
	var priced []string
	for m := range cfg.Prices {
		priced = append(priced, m)
	}
	sort.Strings(priced)
	seen := map[string]bool{}
	var out []string
	for _, m := range append(list, priced...) {
		if m != "" && !seen[m] && strings.Contains(m, "/") {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

func (s *session) configOptions() []sdk.SessionConfigOption {
	s.mu.Lock()
	mode, arch, ed := s.mode, s.archModel, s.edModel
	s.mu.Unlock()
	var models sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range s.models() {
		models = append(models, sdk.SessionConfigSelectOption{Name: m, Value: sdk.SessionConfigValueId(m)})
	}
	modes := sdk.SessionConfigSelectOptionsUngrouped{
		{Name: "Architect → Editor", Value: modeArchitect},
		{Name: "Edit (one call)", Value: modeEdit},
	}
	sel := func(id, name, desc string, cat sdk.SessionConfigOptionCategory, cur string, opts sdk.SessionConfigSelectOptionsUngrouped) sdk.SessionConfigOption {
		return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
			Id: sdk.SessionConfigId(id), Name: name, Description: sdk.Ptr(desc), Category: sdk.Ptr(cat), Type: "select",
			CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &opts},
		}}
	}
	return []sdk.SessionConfigOption{
		sel(optMode, "Mode", "Architect → Editor (two calls) or Edit (one call)", sdk.SessionConfigOptionCategoryMode, mode, modes),
		sel(optModel, "Architect model", "The model that plans (no tools)", sdk.SessionConfigOptionCategoryModel, arch, models),
		sel(optEditorModel, "Editor model", "The model that turns the plan into edits; approval may pick another", categoryEditorModel, ed, models),
	}
}

// setOption sets one option of the session's next turns; a value not
// offered is refused with the values that are.
func (s *session) setOption(id, value string) error {
	switch id {
	case optMode:
		if value != modeArchitect && value != modeEdit {
			return refuse("mode %q: the modes are %q and %q", value, modeArchitect, modeEdit)
		}
		s.mu.Lock()
		s.mode = value
		s.mu.Unlock()
		return nil
	case optModel, optEditorModel:
		ok := false
		for _, m := range s.models() {
			ok = ok || m == value
		}
		if !ok {
			return refuse("model %q is not configured; the models are %s (add others to architectModel, editorModel or prices in your configuration)", value, strings.Join(s.models(), ", "))
		}
		s.mu.Lock()
		if id == optModel {
			s.archModel = value
		} else {
			s.edModel = value
		}
		s.mu.Unlock()
		return nil
	}
	return refuse("no option %q: the options are %q, %q and %q", id, optMode, optModel, optEditorModel)
}

// passed records one metered model call and sends the session's usage:
// tokens and cost in total, per role in _meta (contract §10).
func (s *session) passed(ctx context.Context, role string, p passFigures, prices map[string]model.Price) {
	s.mu.Lock()
	u := s.usage[role]
	if u == nil {
		u = &roleUsage{}
		s.usage[role] = u
	}
	u.Model = p.model
	u.PromptTokens += p.prompt
	u.CompletionTokens += p.completion
	if pr, ok := prices[p.model]; ok {
		u.Priced = true
		u.CostUSD += pr.Cost(p.prompt, p.completion)
	}
	s.turnIn += p.prompt
	s.turnOut += p.completion
	used, cost, priced := 0, 0.0, false
	roles := map[string]roleUsage{}
	for r, ru := range s.usage {
		used += ru.PromptTokens + ru.CompletionTokens
		cost += ru.CostUSD
		priced = priced || ru.Priced
		roles[r] = *ru
	}
	s.mu.Unlock()
	uu := &sdk.SessionUsageUpdate{Used: used, Meta: map[string]any{"aide": map[string]any{"roles": roles}}}
	if priced {
		uu.Cost = &sdk.Cost{Amount: cost, Currency: "USD"}
	}
	s.update(ctx, sdk.SessionUpdate{UsageUpdate: uu})
}

// passFigures are one model call's figures.
type passFigures struct {
	model              string
	prompt, completion int
}
