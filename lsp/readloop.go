package lsp

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// readLoop guards the rule of docs/architecture.md ("The boundary"): no
// call between lsp and the engine happens on the read loop. Notifications
// run inline there (didChange must be applied in wire order), so while one
// runs, its goroutine is recorded; the engine's entry points (Server.eng)
// and the Client methods the engine calls check that they are not on it.
// A violation is logged and kept for ReadLoopViolations: the fake editor
// fails every test that made one.
type readLoop struct {
	gid atomic.Int64 // the goroutine running a notification inline; 0 when none

	mu         sync.Mutex
	violations []string
}

// enter and leave bracket a notification handled inline.
func (r *readLoop) enter() { r.gid.Store(goroutineID()) }
func (r *readLoop) leave() { r.gid.Store(0) }

// check records a violation when the caller runs on the read loop.
func (s *Server) offReadLoop(what string) {
	r := &s.loop
	g := r.gid.Load()
	if g == 0 || g != goroutineID() {
		return
	}
	r.mu.Lock()
	r.violations = append(r.violations, what)
	r.mu.Unlock()
	s.log.Error("internal: called on the read loop", "call", what)
}

// ReadLoopViolations lists the calls between lsp and the engine that ran
// on the read loop (none, unless a bug).
func (s *Server) ReadLoopViolations() []string {
	s.loop.mu.Lock()
	defer s.loop.mu.Unlock()
	return append([]string(nil), s.loop.violations...)
}

// goroutineID is the running goroutine's number, from its stack header
// ("goroutine 42 [running]:").
func goroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return n
}
