package lsp

import (
	"context"
	"sync"
	"testing"
)

// A burst of requests while a run is going makes one more run, not one per
// request, and wait returns only once a run that started after the
// request has finished.
func TestLatestNewestWins(t *testing.T) {
	var l latest
	var wg sync.WaitGroup
	start := func(f func(context.Context)) bool {
		wg.Add(1)
		go func() { defer wg.Done(); f(context.Background()) }()
		return true
	}
	entered, release := make(chan int, 10), make(chan struct{})
	runs := 0
	var seen []int
	state := 0
	var mu sync.Mutex
	run := func(context.Context) {
		mu.Lock()
		runs++
		n := runs
		seen = append(seen, state)
		mu.Unlock()
		entered <- n
		<-release
	}
	l.kick(start, run)
	<-entered // the first run is going
	for i := 1; i <= 5; i++ {
		mu.Lock()
		state = i
		mu.Unlock()
		l.kick(start, run)
	}
	waited := make(chan struct{})
	go func() { l.wait(context.Background()); close(waited) }()
	release <- struct{}{} // the first run ends
	<-entered             // one more run, for the five requests
	select {
	case <-waited:
		t.Fatal("wait returned before a run covered the requests made before it")
	default:
	}
	release <- struct{}{}
	<-waited
	wg.Wait()
	if runs != 2 || seen[1] != 5 {
		t.Fatalf("runs %d, states seen %v: want 2 runs, the second seeing the newest state 5", runs, seen)
	}
	// A start that fails (shutdown) leaves no waiter hanging.
	l.kick(func(func(context.Context)) bool { return false }, run)
	l.wait(context.Background())
}
