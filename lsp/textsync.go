package lsp

// didOpen, didChange, didSave and didClose keep the document store; changes
// and saves are passed on to the workspace (drift detection) and, off the
// read loop, to the engine's review (review.go).

import (
	"path/filepath"
	"strings"
)

func (s *Server) didOpen(params []byte) error {
	var p didOpenParams
	if err := decode(params, &p); err != nil {
		return err
	}
	td := p.TextDocument
	if p := uriPath(td.URI); p != "" && !s.inRoots(p) {
		// Outside the workspace: nothing of it is read, proposed or
		// reviewed, so it is not kept (contract §8).
		s.docs.Drop(td.URI)
		return nil
	}
	path, err := s.docs.Open(td.URI, td.LanguageID, td.Version, td.Text)
	if err != nil {
		s.showMessage(msgWarning, "AIDE: "+td.URI+" is not followed: "+err.Error())
		return nil
	}
	s.review.changed()
	s.reviewChanged(path)
	s.mu.Lock()
	opened := s.documentOpened
	s.mu.Unlock()
	if opened != nil && path != "" {
		opened(path, td.Text)
	}
	return nil
}

// OnDocumentOpened sets what didOpen tells about each opened document
// (the setup warms the repository index with it).
func (s *Server) OnDocumentOpened(fn func(abs, text string)) {
	s.mu.Lock()
	s.documentOpened = fn
	s.mu.Unlock()
}

func (s *Server) didChange(params []byte) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	var path string
	var err error
	version := p.TextDocument.Version
	if strings.EqualFold(s.Profile().Name, "helix") {
		// Helix numbers versions one by one and 25.01 sends some out of
		// order: put them back in order (Documents.ChangeConsecutive).
		var applied bool
		path, version, applied, err = s.docs.ChangeConsecutive(p.TextDocument.URI, version, p.ContentChanges, s.encoding())
		if version != p.TextDocument.Version || !applied {
			s.log.Debug("didChange out of order", "version", p.TextDocument.Version, "document", version, "applied", applied)
		}
		if err != nil || !applied {
			return err
		}
	} else if path, err = s.docs.Change(p.TextDocument.URI, version, p.ContentChanges, s.encoding()); err != nil {
		return err
	}
	s.review.changed()
	s.bufferChanged(path, version)
	return nil
}

func (s *Server) didSave(params []byte) error {
	var p didSaveParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if path, version, ok := s.docs.pathVersion(p.TextDocument.URI); ok {
		s.bufferChanged(path, version)
	}
	return nil
}

func (s *Server) didClose(params []byte) error {
	var p didCloseParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs.Close(p.TextDocument.URI)
	return nil
}

// bufferChanged tells the workspace (drift) and, in the background, the
// engine's review.
func (s *Server) bufferChanged(path string, version int32) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if path == "" {
		return
	}
	if ws != nil {
		ws.BufferChanged(path, version)
	}
	s.reviewChanged(path)
}

// inRoots reports whether an absolute path is inside a workspace root
// (before initialize names any, every path is).
func (s *Server) inRoots(path string) bool {
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	if len(roots) == 0 {
		return true
	}
	under := func(root, p string) bool {
		rel, err := filepath.Rel(root, p)
		return err == nil && (rel == "." || filepath.IsLocal(rel))
	}
	for _, r := range roots {
		if under(r, path) {
			return true
		}
	}
	// The same folders reached through a symbolic link (a root given as
	// /tmp/x where the editor names /private/tmp/x).
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil && under(real, dir) {
			return true
		}
	}
	return false
}
