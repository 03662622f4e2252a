package fakeeditor

import (
	"net"
	"sync"
)

// queuedConn gives the editor's end of the in-memory pipe what a real OS
// pipe has: a buffer. net.Pipe is unbuffered, so when the server writes a
// notification from its read loop while the editor answers a server request
// from its own read loop, each waits for the other to read and both hang; a
// real editor's stdio pipe absorbs those writes. Frames are written in order
// by one goroutine; each Write is one whole frame, so raw writes (WriteRaw)
// never land inside one.
type queuedConn struct {
	net.Conn

	mu      sync.Mutex // guards the fields below
	wake    *sync.Cond
	pending [][]byte
	err     error // the first write error; later writes report it
	closed  bool
}

func newQueuedConn(c net.Conn) *queuedConn {
	q := &queuedConn{Conn: c}
	q.wake = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// Write queues b and returns at once.
func (q *queuedConn) Write(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return 0, q.err
	}
	if q.closed {
		return 0, net.ErrClosed
	}
	q.pending = append(q.pending, append([]byte(nil), b...))
	q.wake.Signal()
	return len(b), nil
}

func (q *queuedConn) run() {
	for {
		q.mu.Lock()
		for len(q.pending) == 0 && !q.closed {
			q.wake.Wait()
		}
		if len(q.pending) == 0 {
			q.mu.Unlock()
			return
		}
		b := q.pending[0]
		q.pending = q.pending[1:]
		q.mu.Unlock()
		if _, err := q.Conn.Write(b); err != nil {
			q.mu.Lock()
			q.err, q.pending = err, nil
			q.mu.Unlock()
			return
		}
	}
}

// Close stops the writer and closes the pipe (queued frames are dropped,
// as a killed editor's are).
func (q *queuedConn) Close() error {
	q.mu.Lock()
	q.closed = true
	q.pending = nil
	q.wake.Broadcast()
	q.mu.Unlock()
	return q.Conn.Close()
}
