package lsp

import (
	"context"
	"sync"
)

// driftWatcher is the optional engine part told of changed files, for the
// live drift of plans waiting for approval (commands.Engine.FilesChanged).
type driftWatcher interface {
	FilesChanged(paths []string)
}

// changedFiles hands changed paths to the engine on one goroutine at a
// time: didChange runs on the read loop, which must not wait for drift
// checks, and two checks of the same session at once would report the
// same drift twice.
type changedFiles struct {
	mu      sync.Mutex // guards the fields below
	pending []string
	running bool
}

// FilesChanged tells the engine that files changed: buffers (didChange,
// didSave) and the disk (the watcher in setup.go). Paths are absolute or
// workspace-relative; the call returns at once.
func (s *Server) FilesChanged(paths ...string) {
	s.mu.Lock()
	w, _ := s.engine.(driftWatcher)
	s.mu.Unlock()
	if w == nil || len(paths) == 0 {
		return
	}
	c := &s.changed
	c.mu.Lock()
	c.pending = append(c.pending, paths...)
	if c.running {
		c.mu.Unlock()
		return
	}
	c.running = true
	c.mu.Unlock()
	s.Go(func(ctx context.Context) {
		for {
			c.mu.Lock()
			batch := c.pending
			c.pending = nil
			if len(batch) == 0 || ctx.Err() != nil {
				c.running = false
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
			w.FilesChanged(batch)
		}
	})
}
