package lsp

// ClearReadLoopViolations forgets the violations a test made on purpose.
func (s *Server) ClearReadLoopViolations() {
	s.loop.mu.Lock()
	s.loop.violations = nil
	s.loop.mu.Unlock()
}
