package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// planEdits are the workspace/applyEdit requests that target the plan file.
func (e *env) planEdits(session string) []protocol.TextDocumentEdit {
	var out []protocol.TextDocumentEdit
	planURI := e.ed.URI(e.planPath(session))
	for _, m := range e.ed.Requests("workspace/applyEdit") {
		var p protocol.ApplyWorkspaceEditParams
		if err := m.Decode(&p); err != nil {
			e.t.Fatalf("applyEdit params: %v", err)
		}
		for _, ch := range p.Edit.DocumentChanges {
			if te, ok := ch.(*protocol.TextDocumentEdit); ok && string(te.TextDocument.URI) == planURI {
				out = append(out, *te)
			}
		}
	}
	return out
}

// TestPlanFileBufferFollowsTheFile: in Helix and Neovim, which do not reload
// a buffer whose file changed on disk, an open and unedited plan file
// follows the engine's rewrites (versioned applyEdit of the whole buffer);
// a buffer the user edited is left as the user left it.
func TestPlanFileBufferFollowsTheFile(t *testing.T) {
	for _, profile := range []string{"neovim-0.7", "helix-25.1"} {
		t.Run(profile+"/unedited", func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil) // opens the plan file as it is on disk
			e.diagnostics(2)                  // proposed: the plan file now has the diff
			planFile := filepath.Join(e.root, e.planPath(session))
			for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
				disk, err := os.ReadFile(planFile)
				if err != nil {
					t.Fatal(err)
				}
				buffer := e.ed.Text(e.planPath(session))
				if buffer == string(disk) && strings.Contains(buffer, "## Proposed changes") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the open plan buffer did not follow the file:\n--- buffer\n%s\n--- file\n%s", buffer, disk)
				}
			}
			edits := e.planEdits(session)
			if len(edits) == 0 {
				t.Fatal("no workspace/applyEdit brought the plan buffer up to date")
			}
			for _, te := range edits {
				if te.TextDocument.Version == nil {
					t.Errorf("the plan buffer edit is not versioned: %+v", te.TextDocument)
				}
			}
		})
		t.Run(profile+"/edited", func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			const note = "USER NOTE: keep the old greeting in a comment.\n"
			e.approveInPlanFile(session, func(text string) string {
				return strings.Replace(text, "## End Plan", note+"## End Plan", 1)
			})
			diags := e.diagnostics(2)
			e.pickOn(diags[0], "AIDE: Accept all") // more rewrites of the plan file
			e.waitEvent(session, "done")
			disk, err := os.ReadFile(filepath.Join(e.root, e.planPath(session)))
			if err != nil || !strings.Contains(string(disk), "## Proposed changes") {
				t.Fatalf("the plan file was not rewritten: %v\n%s", err, disk)
			}
			if buffer := e.ed.Text(e.planPath(session)); !strings.Contains(buffer, note) {
				t.Errorf("the user's edit of the plan buffer was overwritten:\n%s", buffer)
			}
			if edits := e.planEdits(session); len(edits) != 0 {
				t.Errorf("%d applyEdit(s) sent to a plan buffer the user edited", len(edits))
			}
		})
	}
}
