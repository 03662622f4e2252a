package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// Delivery modes of contract §6.
const (
	DeliveryApplyEdit   = "applyEdit"
	DeliveryCodeActions = "codeActions"
)

// Profile is the one place that reads the client's capabilities and
// clientInfo. Every server→client request asks it first (docs/design.md: gate
// every request on the advertised capability).
type Profile struct {
	Name    string // clientInfo.name, as sent ("Visual Studio Code", "Neovim", "helix")
	Version string

	// ApplyEdit: workspace.applyEdit.
	ApplyEdit bool
	// DocumentChanges: workspace.workspaceEdit.documentChanges (versioned edits).
	DocumentChanges bool
	// ResourceOperations lists create/rename/delete support.
	ResourceOperations []string
	// ChangeAnnotations: workspace.workspaceEdit.changeAnnotationSupport.
	ChangeAnnotations bool
	// ShowDocument: window.showDocument.support, or a client known to handle
	// it without advertising it (Helix 25.01, see docs/design.md).
	ShowDocument bool
	// WorkDoneProgress: window.workDoneProgress (server-created tokens).
	WorkDoneProgress bool
	// Configuration: workspace.configuration.
	Configuration bool
	// PlanDocument: experimental.aidePlanDocument (the virtual plan document).
	PlanDocument bool
	// Encoding is the negotiated position encoding.
	Encoding editapply.Encoding
	// CustomNotifications: aide/* notifications (aide/sessionEvent) may be
	// sent. Not to Helix: it has no plugin to read them and reports every
	// unknown method; its users follow a session through the plan file,
	// diagnostics and progress, and the events are in .aide/sessions.
	CustomNotifications bool
	// MessageRequests: window/showMessageRequest is answered (Server.Ask).
	// Not by Helix, which answers MethodNotFound.
	MessageRequests bool
}

type clientCaps struct {
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	Workspace struct {
		ApplyEdit     bool `json:"applyEdit"`
		Configuration bool `json:"configuration"`
		WorkspaceEdit struct {
			DocumentChanges         bool            `json:"documentChanges"`
			ResourceOperations      []string        `json:"resourceOperations"`
			ChangeAnnotationSupport json.RawMessage `json:"changeAnnotationSupport"`
		} `json:"workspaceEdit"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
		ShowDocument     struct {
			Support bool `json:"support"`
		} `json:"showDocument"`
	} `json:"window"`
	Experimental map[string]any `json:"experimental"`
}

// NewProfile reads the capabilities object and clientInfo of initialize.
// Malformed capabilities give the most conservative profile (nothing
// advertised, utf-16), never an error: a client we misread still gets edits
// through code actions.
func NewProfile(capabilities json.RawMessage, name, version string) *Profile {
	var c clientCaps
	if len(capabilities) > 0 {
		if err := json.Unmarshal(capabilities, &c); err != nil {
			c = clientCaps{}
		}
	}
	p := &Profile{
		Name:                name,
		Version:             version,
		ApplyEdit:           c.Workspace.ApplyEdit,
		DocumentChanges:     c.Workspace.WorkspaceEdit.DocumentChanges,
		ResourceOperations:  c.Workspace.WorkspaceEdit.ResourceOperations,
		ChangeAnnotations:   isObject(c.Workspace.WorkspaceEdit.ChangeAnnotationSupport),
		ShowDocument:        c.Window.ShowDocument.Support || strings.EqualFold(name, "helix"),
		WorkDoneProgress:    c.Window.WorkDoneProgress,
		Configuration:       c.Workspace.Configuration,
		Encoding:            editapply.UTF16,
		CustomNotifications: !strings.EqualFold(name, "helix"),
		MessageRequests:     !strings.EqualFold(name, "helix"),
	}
	if v, ok := c.Experimental["aidePlanDocument"].(bool); ok && v {
		p.PlanDocument = true
	}
	if slices.Contains(c.General.PositionEncodings, string(editapply.UTF8)) {
		p.Encoding = editapply.UTF8
	}
	return p
}

func isObject(raw json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// ResourceOps reports whether create, rename and delete may all be sent as
// resource operations in documentChanges.
func (p *Profile) ResourceOps() bool {
	return p.DocumentChanges && slices.Contains(p.ResourceOperations, "create") &&
		slices.Contains(p.ResourceOperations, "rename") && slices.Contains(p.ResourceOperations, "delete")
}

// Delivery answers contract §6: which delivery to use given the configured
// value ("auto", "applyEdit" or "codeActions"). config.EffectiveReview
// decides: applyEdit only for a client that applies edits and reviews the
// change annotations of one edit one by one (VS Code's Refactor Preview),
// whoever asked for it; every other client gets code actions, each hunk a
// diagnostic in place, accepted or rejected in any order. Neovim 0.12
// advertises change annotations but asks one Y/N for a whole annotated
// edit; Helix and Neovim ≤ 0.10 apply the whole edit at once (docs/design.md,
// "What each editor supports").
func (p *Profile) Delivery(configured string) string {
	r, _ := config.EffectiveReview([]config.ReviewAsk{{Source: "configuration", Origin: config.FromUser, Delivery: configured}},
		&config.ReviewClient{ApplyEdit: p.ApplyEdit, ConfirmsEachHunk: p.ChangeAnnotations && !p.isNeovim()})
	return r.Delivery
}

// isNeovim: clientInfo.name of Neovim's built-in client.
func (p *Profile) isNeovim() bool { return strings.EqualFold(p.Name, "Neovim") }

// isEglot: clientInfo.name of Emacs's Eglot.
func (p *Profile) isEglot() bool { return strings.EqualFold(p.Name, "Eglot") }

// planShow decides, in this one place, how a complete plan file (path, at
// URI u) is put before this client (docs/design.md "Plan buffers"): either
// window/showDocument with params (show true), or, when showing it would
// take the code away from the user, a message (note) saying where it is and
// how to open it beside the code. The plan opens beside the code and the
// cursor stays in the code, whatever the client:
//   - Neovim reads an absent takeFocus as true: takeFocus false is sent.
//   - Eglot reads a present takeFocus, even false, as true (the cursor
//     would jump into the plan, and typing meant for the code would become
//     the plan): the key is left out, which Eglot shows with display-buffer.
//   - Helix 25.07 and newer open a shown document in place of the current
//     view whatever takeFocus says, the cursor in it: keys typed in the code
//     as the plan arrives land in the plan (measured, docs/editors.md "The
//     plan beside the code (Helix)"). Not shown: a message names the
//     space A key of docs/editors.md, which opens it beside the code.
func (p *Profile) planShow(u, path string) (params showDocumentParams, show bool, note string) {
	if p.helixReplacesView() {
		return showDocumentParams{}, false, "AIDE plan ready: space A shows it beside the code (.aide/plans/" + filepath.Base(path) + ")"
	}
	params = showDocumentParams{URI: u}
	if !p.isEglot() {
		params.TakeFocus = new(bool)
	}
	return params, true, ""
}

// helixReplacesView: Helix 25.07 or newer, which opens a shown document in
// place of the current view whatever takeFocus says. Helix's version is
// "YY.MM[.patch] (hash)" ("25.1 (dabfb6ce)", "25.07.1"); an unreadable one
// is taken as older (shown beside the code, as 25.01 does).
func (p *Profile) helixReplacesView() bool {
	if !strings.EqualFold(p.Name, "helix") {
		return false
	}
	year, month, ok := yearMonth(p.Version)
	return ok && (year > 25 || year == 25 && month >= 7)
}

// yearMonth reads the leading "YY.MM" of a calendar version.
func yearMonth(v string) (year, month int, ok bool) {
	v, _, _ = strings.Cut(strings.TrimSpace(v), " ")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	y, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	return y, m, err1 == nil && err2 == nil
}
