package lsp

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// The store keeps at most its limits of documents and text: past them a
// document is not kept (ErrStoreFull), its changes are ignored rather than
// errors, and closing documents makes room again.
func TestDocumentStoreLimits(t *testing.T) {
	d := newDocuments()
	d.limitDocs, d.limitBytes = 3, 100
	for i := range 3 {
		if _, err := d.Open(fmt.Sprintf("file:///w/%d.txt", i), "plaintext", 1, "0123456789"); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	if _, err := d.Open("file:///w/4.txt", "plaintext", 1, "x"); !errors.Is(err, ErrStoreFull) {
		t.Fatalf("a fourth document: err %v, want ErrStoreFull", err)
	}
	if _, err := d.Change("file:///w/4.txt", 2, []contentChange{{Text: "y"}}, editapply.UTF16); err != nil {
		t.Errorf("a change of a document not kept: %v, want it ignored", err)
	}
	if _, ok := d.Get("file:///w/4.txt"); ok {
		t.Error("a document past the limit is kept")
	}
	d.Close("file:///w/0.txt")
	// A change that grows a document counts against the bytes.
	if _, err := d.Change("file:///w/1.txt", 2, []contentChange{{Text: strings.Repeat("z", 85)}}, editapply.UTF16); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open("file:///w/5.txt", "plaintext", 1, "0123456789"); !errors.Is(err, ErrStoreFull) {
		t.Fatalf("95 bytes held and 10 more: err %v, want ErrStoreFull", err)
	}
	d.Close("file:///w/1.txt")
	if _, err := d.Open("file:///w/5.txt", "plaintext", 1, "0123456789"); err != nil {
		t.Fatalf("after closing: %v", err)
	}
}

// A document outside the workspace roots is not kept, and its changes are
// not errors; one inside is.
func TestDocumentsOutsideTheRootsAreNotKept(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	s := New(Options{})
	s.roots = []string{root}
	in, out := string(uri.File(filepath.Join(root, "a.go"))), string(uri.File(filepath.Join(other, "b.go")))
	for _, u := range []string{in, out} {
		if err := s.didOpen([]byte(`{"textDocument":{"uri":"` + u + `","languageId":"go","version":1,"text":"package a\n"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.docs.Get(in); !ok {
		t.Error("the document inside the workspace is not kept")
	}
	if _, ok := s.docs.Get(out); ok {
		t.Error("the document outside the workspace is kept")
	}
	if err := s.didChange([]byte(`{"textDocument":{"uri":"` + out + `","version":2},"contentChanges":[{"text":"x"}]}`)); err != nil {
		t.Errorf("a change of the document outside: %v, want it ignored", err)
	}
}
