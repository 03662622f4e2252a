package lsp

import (
	"context"
	"fmt"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// CodeActionKind is the kind of the AIDE code actions (contract §4).
const CodeActionKind = "refactor.rewrite.aide"

// initialize reads the client profile and roots, sets up the engine and
// workspace, and advertises the server's capabilities.
func (s *Server) initialize(ctx context.Context, params []byte) (any, error) {
	var p initializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var name, version string
	if p.ClientInfo != nil {
		name, version = p.ClientInfo.Name, p.ClientInfo.Version
	}
	profile := NewProfile(p.Capabilities, name, version)
	roots := rootsOf(&p)

	engine, ws := s.opts.Engine, s.opts.Workspace
	if s.opts.Setup != nil {
		var err error
		engine, ws, err = s.opts.Setup.Start(ctx, SetupInput{
			Client: s, Server: s, Buffers: s.docs, Roots: roots, Profile: profile,
			InitializationOptions: p.InitializationOptions,
		})
		if err != nil {
			s.log.Error("setup failed", "err", err)
			engine = UnavailableEngine(fmt.Sprintf("aide-lsp could not start its engine: %v", err))
			defer s.Message("error", fmt.Sprintf("aide-lsp: %v", err))
		}
	}
	if engine == nil {
		engine = UnavailableEngine("")
	}
	if ws != nil {
		ws.SetBuffers(s.docs)
	}

	s.mu.Lock()
	s.profile, s.roots, s.engine, s.ws = profile, roots, engine, ws
	s.initialized = true
	s.mu.Unlock()
	s.log.Info("initialize", "client", name, "clientVersion", version, "roots", roots,
		"encoding", profile.Encoding, "delivery", profile.Delivery(s.opts.Delivery))

	commands := engine.Commands()
	if commands == nil {
		commands = []string{}
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": string(profile.Encoding),
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      map[string]any{"includeText": false},
			},
			"codeActionProvider": map[string]any{
				"codeActionKinds": []string{CodeActionKind},
				"resolveProvider": false,
			},
			"executeCommandProvider": map[string]any{"commands": commands},
			// The diff of a pending proposal hunk (hover.go).
			"hoverProvider": true,
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
			},
		},
		"serverInfo": map[string]any{"name": "aide-lsp", "version": s.opts.Version},
	}, nil
}

// shutdownServer stops all background work; the conn stays open for exit.
func (s *Server) shutdownServer() {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.cancelAllWork(errShutdown)
}

// exit only signals Serve, which cancels work and then closes the conn
// (closing it from inside a handler would deadlock).
func (s *Server) exit() {
	s.mu.Lock()
	if s.shutdown {
		s.exitCode = 0
	}
	s.mu.Unlock()
	s.exitOnce.Do(func() { close(s.exited) })
}

func (s *Server) didChangeWorkspaceFolders(params []byte) error {
	var p struct {
		Event struct {
			Added   []workspaceFolder `json:"added"`
			Removed []workspaceFolder `json:"removed"`
		} `json:"event"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := map[string]bool{}
	for _, f := range p.Event.Removed {
		removed[uriPath(f.URI)] = true
	}
	var roots []string
	for _, r := range s.roots {
		if !removed[r] {
			roots = append(roots, r)
		}
	}
	for _, f := range p.Event.Added {
		if path := uriPath(f.URI); path != "" {
			roots = append(roots, path)
		}
	}
	s.roots = roots
	return nil
}

// encoding is the negotiated position encoding.
func (s *Server) encoding() editapply.Encoding { return s.Profile().Encoding }
