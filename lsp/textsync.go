package lsp

// didOpen, didChange, didSave and didClose keep the document store; changes
// and saves are passed on to the workspace (drift detection).

func (s *Server) didOpen(params []byte) error {
	var p didOpenParams
	if err := decode(params, &p); err != nil {
		return err
	}
	td := p.TextDocument
	doc := s.docs.Open(td.URI, td.LanguageID, td.Version, td.Text)
	s.review.changed(doc.Path)
	s.reviewDocumentChanged(doc.Path)
	return nil
}

func (s *Server) didChange(params []byte) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	doc, err := s.docs.Change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, s.encoding())
	if err != nil {
		return err
	}
	s.bufferChanged(doc.Path, doc.Version)
	s.review.changed(doc.Path)
	s.reviewDocumentChanged(doc.Path)
	return nil
}

func (s *Server) didSave(params []byte) error {
	var p didSaveParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if doc, ok := s.docs.Get(p.TextDocument.URI); ok {
		s.bufferChanged(doc.Path, doc.Version)
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
	}
}
