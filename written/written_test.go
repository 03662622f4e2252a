package written

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record outlives the store that wrote it (a restart), is the last text
// written, and belongs to its workspace and path only.
func TestRecordSurvivesARestart(t *testing.T) {
	state, root, other := t.TempDir(), t.TempDir(), t.TempDir()
	doc := filepath.Join(root, ".aide", "plans", "s1.md")
	s, err := Open(state, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record(doc, "first"); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(doc, "second"); err != nil {
		t.Fatal(err)
	}
	again, _ := Open(state, root)
	if text, ok := again.Text(doc); !ok || text != "second" || !again.Wrote(doc, "second") || again.Wrote(doc, "first") {
		t.Fatalf("after a restart: %q, %v", text, ok)
	}
	if _, ok := again.Text(filepath.Join(root, ".aide", "plans", "latest.md")); ok {
		t.Fatal("a document never written has a record")
	}
	// Another workspace's store knows nothing of it, even for the same path.
	o, _ := Open(state, other)
	if _, ok := o.Text(doc); ok {
		t.Fatal("another workspace's store has the record")
	}
	// Nothing is written under the workspace.
	if _, err := os.Stat(filepath.Join(root, ".aide")); err == nil {
		t.Fatal("the store wrote under the workspace")
	}
}

// A state folder inside the workspace is refused: the workspace would say
// who wrote its files. A nil store (none) records nothing and knows
// nothing.
func TestStateFolderInsideTheWorkspaceIsRefused(t *testing.T) {
	root := t.TempDir()
	if _, err := Open(filepath.Join(root, ".state"), root); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Fatalf("a state folder inside the workspace: %v", err)
	}
	var s *Store
	if err := s.Record(filepath.Join(root, "x.md"), "t"); err != nil || s.Wrote(filepath.Join(root, "x.md"), "t") {
		t.Fatal("a nil store remembered something")
	}
}

// A record whose file names another path (planted, or a collision) is not
// that path's; the store keeps the newest Keep records of a workspace.
func TestRecordsAreCheckedAndBounded(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	s, _ := Open(state, root)
	a, b := filepath.Join(root, "a.md"), filepath.Join(root, "b.md")
	if err := s.Record(a, "A"); err != nil {
		t.Fatal(err)
	}
	_, fa := s.file(a)
	_, fb := s.file(b)
	data, _ := os.ReadFile(fa)
	if err := os.WriteFile(fb, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Text(b); ok {
		t.Fatal("a record naming a.md was taken for b.md")
	}
	for i := range Keep + Keep/4 + 1 {
		if err := s.Record(filepath.Join(root, fmt.Sprintf("p%d.md", i)), "x"); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(s.ws)
	if len(entries) > Keep+Keep/4 {
		t.Fatalf("%d records kept; at most %d", len(entries), Keep+Keep/4)
	}
	if _, ok := s.Text(filepath.Join(root, fmt.Sprintf("p%d.md", Keep+Keep/4))); !ok {
		t.Fatal("the newest record was dropped")
	}
	// Too big to remember: not remembered, and an older text is forgotten.
	if err := s.Record(a, strings.Repeat("x", MaxBytes+1)); err == nil {
		t.Fatal("a text past MaxBytes was recorded")
	}
	if _, ok := s.Text(a); ok {
		t.Fatal("the older text of a document is still taken as what it holds")
	}
}
