package commands_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// With Options.IndexReady the caller builds the index (lsp.NewSetup does,
// at initialize): the architect pass waits for that build and does not
// build the index a second time. Without it, the engine builds it itself.
func TestIndexIsBuiltOnceWhenTheCallerBuildsIt(t *testing.T) {
	for _, callerBuilds := range []bool{true, false} {
		e := newEnv(t, envOpts{
			files:       map[string]string{"main.go": mainGo},
			archReplies: []modeltest.Reply{{Text: plan(greetPlan)}},
		})
		index := treesitter.NewIndex(e.root, t.TempDir())
		waits := 0
		o := commands.Options{Workspace: e.ws, Config: e.cfg, Model: e.router, Meter: e.meter, Client: e.client, Index: index}
		if callerBuilds {
			// The caller's build has not indexed anything: any file in the
			// index afterwards was put there by a second build.
			o.IndexReady = func(context.Context) { waits++ }
		}
		eng, err := commands.NewEngine(o)
		if err != nil {
			t.Fatal(err)
		}
		e.eng = eng
		id := e.start(commands.CmdArchitect, map[string]any{"uri": e.uri("main.go"), "task": "greet the world"})
		if got := e.state(id); got != commands.StateWaiting {
			t.Fatalf("state after the architect = %q, want %q", got, commands.StateWaiting)
		}
		built := slices.Contains(index.Files(), "main.go")
		switch {
		case callerBuilds && waits == 0:
			t.Errorf("the architect pass did not wait for the caller's index build")
		case callerBuilds && built:
			t.Errorf("the engine built the index again although the caller builds it (index holds %v)", index.Files())
		case !callerBuilds && !built:
			t.Errorf("without IndexReady the engine did not build the index (index holds %v)", index.Files())
		}
	}
}
