package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// The server is the engine's commands.Client: it turns events, plan
// documents and proposals into LSP messages, each gated on what the client
// profile says the client can do.
var _ commands.Client = (*Server)(nil)

// SessionEvent sends notification aide/sessionEvent.
func (s *Server) SessionEvent(ev commands.Event) {
	s.offReadLoop("SessionEvent")
	b, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("session event not encodable", "err", err)
		return
	}
	if s.Profile().CustomNotifications {
		s.notify("aide/sessionEvent", jsonrpc2.RawMessage(b))
	}
	s.reviewEvent(ev)
}

// PlanURI is the virtual plan document's URI (contract §5).
func PlanURI(session string) string { return "aide-plan:/" + session + ".md" }

// ShowPlan shows a new plan document: the virtual form for clients that
// declare experimental.aidePlanDocument, else the file with
// window/showDocument once its plan is complete (planfile.go), else a
// message with its path.
func (s *Server) ShowPlan(doc commands.PlanDoc) {
	s.offReadLoop("ShowPlan")
	p := s.Profile()
	switch {
	case p.PlanDocument:
		s.notify("aide/planDocumentChanged", planDocumentChangedParams{URI: PlanURI(doc.Session), Version: doc.Version})
	case p.ShowDocument && doc.Path != "":
		s.showPlanFile(doc)
	default:
		s.showMessage(msgInfo, "AIDE plan: "+doc.Path)
	}
}

// PlanChanged announces a changed plan document to clients with the
// virtual form; for the others the file form is already on disk, where an
// editor re-reading the file finds it (planfile.go).
func (s *Server) PlanChanged(doc commands.PlanDoc) {
	s.offReadLoop("PlanChanged")
	p := s.Profile()
	switch {
	case p.PlanDocument:
		s.notify("aide/planDocumentChanged", planDocumentChangedParams{URI: PlanURI(doc.Session), Version: doc.Version})
	case p.ShowDocument && doc.Path != "":
		s.planFileChanged(doc)
	}
}

// docFor describes the document of a workspace-relative path: its URI, its
// current content (open buffer first) and its version when open.
func (s *Server) docFor(path string) editapply.Doc {
	s.mu.Lock()
	ws, roots := s.ws, s.roots
	s.mu.Unlock()
	abs := path
	if ws != nil {
		if a, _, err := ws.Resolve(path); err == nil {
			abs = a
		}
	} else if !filepath.IsAbs(path) && len(roots) > 0 {
		abs = filepath.Join(roots[0], filepath.FromSlash(path))
	}
	doc := editapply.Doc{URI: uri.File(abs)}
	if text, version, ok := s.docs.Buffer(abs); ok {
		doc.Content, doc.Version = text, &version
		return doc
	}
	if b, err := os.ReadFile(abs); err == nil {
		doc.Content = string(b)
	}
	return doc
}

// Message shows a message; level is "error", "warning" or "info".
func (s *Server) Message(level, text string) {
	s.offReadLoop("Message")
	// At debug in the server's own log too (not sent as a logMessage): a
	// support log then holds what the user was told.
	s.log.Debug("message shown", "level", level, "text", text)
	s.showMessage(messageType(level), text)
}

// messageType is LSP's MessageType of a level.
func messageType(level string) int {
	switch level {
	case "error":
		return msgError
	case "warning", "warn":
		return msgWarning
	}
	return msgInfo
}

func (s *Server) showMessage(typ int, text string) {
	s.notify("window/showMessage", showMessageParams{Type: typ, Message: text})
}

// Configuration asks the client for one workspace/configuration section
// (the "aide" section of contract §3). It answers nil, nil when the client
// does not advertise workspace.configuration.
func (s *Server) Configuration(ctx context.Context, section string) (json.RawMessage, error) {
	if !s.Profile().Configuration {
		return nil, nil
	}
	var res []json.RawMessage
	params := map[string]any{"items": []map[string]string{{"section": section}}}
	if err := s.call(ctx, "workspace/configuration", params, &res); err != nil {
		return nil, err
	}
	if len(res) == 0 || isNull(res[0]) {
		return nil, nil
	}
	return res[0], nil
}

// ErrCannotAsk is Ask's answer for a client that takes no questions.
var ErrCannotAsk = errors.New("the editor takes no questions (window/showMessageRequest)")

// Ask asks the user a question with window/showMessageRequest and returns
// the action picked ("" when the user dismissed it). level is "error",
// "warning" or "info". A client that answers no such request (Helix) gets
// ErrCannotAsk at once: say it with Message instead. The answer may take
// as long as the user likes: call Ask off the read loop and off anything
// that must not wait (Go).
func (s *Server) Ask(ctx context.Context, level, text string, actions ...string) (string, error) {
	if !s.Profile().MessageRequests {
		return "", ErrCannotAsk
	}
	items := make([]map[string]string, len(actions))
	for i, a := range actions {
		items[i] = map[string]string{"title": a}
	}
	var answer *struct {
		Title string `json:"title"`
	}
	params := map[string]any{"type": messageType(level), "message": text, "actions": items}
	if err := s.call(ctx, "window/showMessageRequest", params, &answer); err != nil {
		return "", err
	}
	if answer == nil {
		return "", nil
	}
	return answer.Title, nil
}
