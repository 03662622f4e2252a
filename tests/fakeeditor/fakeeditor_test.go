package fakeeditor_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

func textEdit(u string, version *int32, rng protocol.Range, text string) *protocol.TextDocumentEdit {
	return &protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: version},
		Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{Range: rng, NewText: text}},
	}
}

// roundTrip sends the edit through the wire codec, as the server would.
func roundTrip(t *testing.T, we protocol.WorkspaceEdit) protocol.WorkspaceEdit {
	t.Helper()
	b, err := lsp.Codec.Marshal(protocol.ApplyWorkspaceEditParams{Edit: we})
	if err != nil {
		t.Fatal(err)
	}
	var p protocol.ApplyWorkspaceEditParams
	if err := lsp.Codec.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p.Edit
}

func TestStaleVersionRefusesTheWholeEditLikeVSCode(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{})
	if err := os.WriteFile(ed.Abs("b.txt"), []byte("bee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed.Open("a.txt", "alpha\n")
	ed.Replace("a.txt", "alpha beta\n") // now version 2
	old := int32(1)
	res := ed.ApplyWorkspaceEdit(roundTrip(t, protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		textEdit(ed.URI("b.txt"), nil, protocol.Range{}, "// first\n"),
		textEdit(ed.URI("a.txt"), &old, ed.Range("a.txt", 0, 5), "ALPHA"),
	}}))
	if res.Applied || res.FailureReason == nil || res.FailedChange == nil || *res.FailedChange != 1 {
		t.Fatalf("stale edit: %+v, want applied:false naming change 1", res)
	}
	if got := ed.Text("a.txt"); got != "alpha beta\n" {
		t.Errorf("a.txt = %q, nothing may change", got)
	}
	if got := ed.Text("b.txt"); got != "bee\n" {
		t.Errorf("b.txt = %q, nothing may change (VS Code applies nothing)", got)
	}
}

func TestCurrentVersionAppliesAndTellsTheServer(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "helix-25.1"}) // utf-8 positions
	ed.Open("a.txt", "héllo wörld\n")
	cur := int32(1)
	w := len("héllo ")
	res := ed.ApplyWorkspaceEdit(roundTrip(t, protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		textEdit(ed.URI("a.txt"), &cur, ed.Range("a.txt", w, w+len("wörld")), "gophers"),
		&protocol.CreateFile{Kind: "create", URI: uri.URI(ed.URI("new/c.txt"))},
	}}))
	if !res.Applied {
		t.Fatalf("applied:false: %v", *res.FailureReason)
	}
	if got, v, _ := ed.Doc("a.txt"); got != "héllo gophers\n" || v != 2 {
		t.Errorf("a.txt = %q v%d", got, v)
	}
	if _, err := os.Stat(ed.Abs("new/c.txt")); err != nil {
		t.Errorf("create: %v", err)
	}
	if _, err := ed.CodeActions("a.txt", protocol.Range{}); err != nil { // barrier
		t.Fatal(err)
	}
	if got, v, _ := ed.Server().Documents().Buffer(ed.Abs("a.txt")); got != "héllo gophers\n" || v != 2 {
		t.Errorf("server saw %q v%d; the editor must send didChange after applying", got, v)
	}
}

func TestAnswersConfigurationRequests(t *testing.T) {
	ed := fakeeditor.Start(t, fakeeditor.Options{ // VS Code advertises workspace.configuration
		Configuration: func(section string) any { return map[string]any{"delivery": "codeActions", "section": section} },
	})
	got, err := ed.Server().Configuration(context.Background(), "aide")
	if err != nil || !strings.Contains(string(got), `"section":"aide"`) {
		t.Fatalf("configuration = %s, %v", got, err)
	}
	nvim := fakeeditor.Start(t, fakeeditor.Options{Profile: "neovim-0.7"}) // does not advertise it
	if got, err := nvim.Server().Configuration(context.Background(), "aide"); got != nil || err != nil {
		t.Errorf("asked a client without workspace.configuration: %s, %v", got, err)
	}
	if n := len(nvim.Requests("")); n != 0 {
		t.Errorf("sent %d requests to Neovim 0.7", n)
	}
}
