package lsp

// FilesChanged tells the engine that files changed on disk (the watcher in
// app): the live drift of waiting plans (hunks are judged on buffer
// changes only: a file being written can be read half-way).
// Paths are absolute or workspace-relative; the call returns at once.
func (s *Server) FilesChanged(paths ...string) {
	if len(paths) > 0 {
		s.reviewChanges(true, paths)
	}
}
