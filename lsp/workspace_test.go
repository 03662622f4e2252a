package lsp_test

import (
	"context"
	"testing"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// The workspace Setup opens sees open buffers, and buffer changes reach its
// watcher as "buffer" events (drift detection depends on both).
func TestSetupWorkspaceSeesBuffersAndChanges(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchers := make(chan *workspace.Watcher, 1)
	var ws *workspace.Workspace
	ed := fakeeditor.Start(t, fakeeditor.Options{Roots: []string{root}, Server: lsp.Options{
		Setup: lsp.BackendFunc(func(_ context.Context, in lsp.SetupInput) (lsp.Engine, *workspace.Workspace, error) {
			var err error
			ws, err = workspace.Open(in.Roots, nil)
			if err != nil {
				return nil, nil, err
			}
			wt, err := ws.Watch(ctx)
			if err != nil {
				return nil, nil, err
			}
			watchers <- wt
			return newFakeEngine(), ws, nil
		}),
	}})
	wt := recv(t, watchers)
	defer wt.Close()
	ed.Open("a.txt", "one\n")
	ed.Replace("a.txt", "two\n")
	barrier(t, ed)
	if text, _, err := ws.Read("a.txt"); err != nil || text != "two\n" {
		t.Errorf("workspace reads %q (%v), want the open buffer", text, err)
	}
	for {
		batch := recv(t, wt.Events())
		for _, ev := range batch {
			if ev.Path == "a.txt" && ev.Source == "buffer" {
				return
			}
		}
	}
}
