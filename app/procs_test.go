package app

import (
	"os"
	"runtime"
	"testing"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// While the index builds on every core, a request still finds a P of its
// own: the server runs one more than the build's workers.
func TestReserveRequestProcLeavesAPForRequests(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set in the environment, which wins")
	}
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	ReserveRequestProc()
	if got, workers := runtime.GOMAXPROCS(0), treesitter.BuildWorkers(); got <= workers {
		t.Errorf("GOMAXPROCS %d with %d index workers: no P left for requests", got, workers)
	}
}
