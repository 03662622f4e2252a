//go:build unix

package abuse_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// uriField finds the URIs a WorkspaceEdit names.
var uriField = regexp.MustCompile(`"(?:uri|oldUri|newUri)"\s*:\s*"([^"]*)"`)

// A folder swapped for a symbolic link out of the workspace after a hunk
// was proposed (contract §8: an accepted create then wrote at the filesystem
// root): the hunk's path is checked again when its code action is built,
// no edit names a file outside the workspace, and the hunk goes stale with
// the reason; accepting it writes nothing (checkOutside).
func TestFolderSwappedForALinkAfterTheProposal(t *testing.T) {
	r := newRig(t, rigOpts{files: map[string]string{"m.go": mGo, "sub/a.go": "package sub\n"},
		replies: []modeltest.Reply{{ToolCalls: []model.ToolCall{writeCall("c1", "sub/new.go", "package sub\n\nfunc New() {}\n")}}}})
	id := r.start("aide.edit", map[string]any{"uri": r.ed.URI("m.go"), "task": "add New to sub"})
	if st := r.waitSettled(id); st != "proposed" {
		t.Fatalf("state %s, want proposed (events %s)", st, names(r.fileEvents(id)))
	}
	// The editor has the proposal (its diagnostic in sub/new.go) before the
	// swap, as a user who then asks for the file's code actions would: the
	// state turns proposed a moment before the proposal is delivered.
	for deadline := time.Now().Add(hangGuard); len(r.ed.Diagnostics("sub/new.go")) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the proposal was never marked in sub/new.go (events %s)", names(r.fileEvents(id)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The swap: sub becomes a link to the folder beside the workspace.
	if err := os.RemoveAll(filepath.Join(r.root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(r.outside, filepath.Join(r.root, "sub")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	actions, err := r.ed.CodeActions("sub/new.go", protocol.Range{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if strings.HasPrefix(a.Title, "AIDE: Accept") {
			t.Errorf("an accept action is offered for a path that now leads outside: %q", a.Title)
		}
		for _, m := range uriField.FindAllStringSubmatch(string(a.Edit), -1) {
			if !strings.HasPrefix(m[1], r.ed.URI("m.go")[:len(r.ed.URI("m.go"))-len("m.go")]) {
				t.Errorf("action %q edits %s, outside the workspace", a.Title, m[1])
			}
		}
	}
	// The hunk is withdrawn as stale, with the reason.
	deadline := time.Now().Add(hangGuard)
	for {
		stale := named(r.fileEvents(id), "stale")
		if len(stale) > 0 {
			if why := fmt.Sprint(stale[0]); !strings.Contains(why, "path is refused") {
				t.Errorf("stale without the path's reason: %v", stale[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hunk never went stale (events %s)", names(r.fileEvents(id)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Accepting it anyway writes nothing anywhere.
	r.ed.ExecuteCommand("aide.accept", map[string]any{"session": id, "hunks": []string{"h1"}})
	if _, err := os.Lstat(filepath.Join(r.outside, "new.go")); err == nil {
		t.Error("the accepted create wrote through the link, outside the workspace")
	}
}
