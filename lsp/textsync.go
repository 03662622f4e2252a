package lsp

// didOpen, didChange, didSave and didClose keep the document store; changes
// and saves are passed on to the workspace (drift detection).

import "strings"

func (s *Server) didOpen(params []byte) error {
	var p didOpenParams
	if err := decode(params, &p); err != nil {
		return err
	}
	td := p.TextDocument
	path := s.docs.Open(td.URI, td.LanguageID, td.Version, td.Text)
	s.review.changed(path)
	s.reviewDocumentChanged(path)
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
	s.bufferChanged(path, version)
	s.review.changed(path)
	s.reviewDocumentChanged(path)
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

// bufferChanged tells the workspace, when there is one.
func (s *Server) bufferChanged(path string, version int32) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if ws != nil && path != "" {
		ws.BufferChanged(path, version)
		s.FilesChanged(path)
	}
}
