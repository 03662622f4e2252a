package lsp

import (
	"context"
	"sync"
)

// latest runs a piece of background work one run at a time, newest wins:
// a request made while a run is going makes one more run after it, not one
// per request, and each run reads the state as it is when it starts (the
// documents, the configuration). It is the one such runner of the server:
// the review of changed documents and the configuration reloads use it.
// wait tells a caller when every request made before it asked is covered
// by a finished run.
type latest struct {
	mu      sync.Mutex // guards the fields below
	running bool
	want    uint64        // requests made
	done    uint64        // requests the last finished run covers
	caught  chan struct{} // closed and replaced when done grows
}

// kick asks for a run of run. start launches the loop in the background
// (Server.Go) and reports false when it could not (the server is shutting
// down): the request then counts as covered, so no waiter hangs.
func (l *latest) kick(start func(func(context.Context)) bool, run func(context.Context)) {
	l.mu.Lock()
	l.want++
	if l.running {
		l.mu.Unlock()
		return
	}
	l.running = true
	l.mu.Unlock()
	if !start(func(ctx context.Context) { l.loop(ctx, run) }) {
		l.mu.Lock()
		l.running = false
		l.cover(l.want)
		l.mu.Unlock()
	}
}

func (l *latest) loop(ctx context.Context, run func(context.Context)) {
	for {
		l.mu.Lock()
		if l.done == l.want || ctx.Err() != nil {
			l.running = false
			l.cover(l.want)
			l.mu.Unlock()
			return
		}
		upTo := l.want
		l.mu.Unlock()
		run(ctx)
		l.mu.Lock()
		l.cover(upTo)
		l.mu.Unlock()
	}
}

// cover records that the requests up to upTo are done and wakes the
// waiters; l.mu is held.
func (l *latest) cover(upTo uint64) {
	l.done = upTo
	if l.caught != nil {
		close(l.caught)
		l.caught = nil
	}
}

// wait returns once a run that started after every request made before
// the call has finished, or ctx ends.
func (l *latest) wait(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for upTo := l.want; l.done < upTo; {
		if l.caught == nil {
			l.caught = make(chan struct{})
		}
		caught := l.caught
		l.mu.Unlock()
		select {
		case <-caught:
		case <-ctx.Done():
			l.mu.Lock()
			return
		}
		l.mu.Lock()
	}
}
