package abuse_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The absolute path of the workspace (which names the user, their folders)
// is never sent to a model (contract §8): not in the architect's prompt, not in
// the editor's, not in a retry that quotes a failed edit, nor for a path the
// model wrote outside the workspace.
func TestWorkspacePathNeverReachesTheModel(t *testing.T) {
	plan := "## Plan\n1. In m.go, make A return 10.\n## End Plan\n"
	r := newRig(t, rigOpts{files: map[string]string{"m.go": mGo}, replies: []modeltest.Reply{
		{Text: plan},
		// A failed edit (its retry quotes the reason) and one aimed
		// outside through the absolute path of a file the model saw.
		{ToolCalls: []model.ToolCall{editCall("c1", "m.go", "return 7 }", "return 10 }")}},
		{ToolCalls: []model.ToolCall{writeCall("c2", "/etc/aide-abuse.txt", "x\n"), editCall("c3", "m.go", "return 1 }", "return 10 }")}},
		good,
	}})
	id := r.start("aide.architect", map[string]any{"uri": r.ed.URI("m.go"), "task": "make A return 10"})
	r.waitSettled(id)
	roots := []string{r.root}
	if real, err := filepath.EvalSymlinks(r.root); err == nil && real != r.root {
		roots = append(roots, real)
	}
	reqs := r.fake.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model requests, want the architect's, the editor's and a retry", len(reqs))
	}
	for i, req := range reqs {
		for _, root := range roots {
			if strings.Contains(string(req.Raw), root) {
				t.Errorf("request %d sends the workspace's absolute path %s", i+1, root)
			}
		}
	}
}
