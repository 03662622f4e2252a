package lsp

import "github.com/aide-lsp/aide-lsp/treesitter"

// ClearReadLoopViolations forgets the violations a test made on purpose.
func (s *Server) ClearReadLoopViolations() {
	s.loop.mu.Lock()
	s.loop.violations = nil
	s.loop.mu.Unlock()
}

// WithIndexBuildHook returns o with f called after each background index
// build of NewSetup (the external tests count the builds).
func WithIndexBuildHook(o SetupOptions, f func(treesitter.Stats)) SetupOptions {
	o.onIndexBuild = f
	return o
}

// WithWarmHook returns o with f called after the index parsed an opened
// document (its root-relative path).
func WithWarmHook(o SetupOptions, f func(rel string)) SetupOptions {
	o.onWarm = f
	return o
}

// WithIndexStartHook returns o with f called before the background index
// build starts; the build's progress is then shown without delay.
func WithIndexStartHook(o SetupOptions, f func()) SetupOptions {
	o.beforeIndexBuild = f
	return o
}
