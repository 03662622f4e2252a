package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// memFiles is a workspace in memory (editapply.Files).
type memFiles map[string]string

func (m memFiles) Read(p string) (string, bool, error) {
	c, ok := m[p]
	return c, ok, nil
}

func (m memFiles) clone() memFiles {
	out := memFiles{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// resolve turns edits into hunks the way the engine does.
func resolve(t *testing.T, files memFiles, edits ...editapply.Edit) []editapply.Hunk {
	t.Helper()
	res := editapply.Resolve(edits, files, editapply.Options{})
	if len(res.Failures) > 0 {
		t.Fatalf("edits did not resolve: %v", res.Failures[0].Reason)
	}
	return res.Hunks
}

// land applies hunks to files as an accept would (renames and deletes too).
func land(t *testing.T, files memFiles, hunks []editapply.Hunk) {
	t.Helper()
	per := map[string][]editapply.Hunk{}
	var order []string
	for _, h := range hunks {
		if _, ok := per[h.Path]; !ok {
			order = append(order, h.Path)
		}
		per[h.Path] = append(per[h.Path], h)
	}
	for _, p := range order {
		hs := per[p]
		var renameTo string
		deleted := false
		for _, h := range hs {
			switch h.Kind {
			case editapply.KindRename:
				renameTo = h.NewPath
			case editapply.KindDelete:
				deleted = true
			}
		}
		if deleted {
			delete(files, p)
			continue
		}
		if len(hs) == 1 && hs[0].Kind == editapply.KindWrite {
			files[p] = hs[0].NewText
			continue
		}
		out, err := editapply.Apply(files[p], hs)
		if err != nil {
			t.Fatal(err)
		}
		if renameTo != "" {
			delete(files, p)
			p = renameTo
		}
		files[p] = out
	}
}

// revertAll lands the reverts of plan.
func revertAll(t *testing.T, files memFiles, plan Plan) {
	t.Helper()
	var hs []editapply.Hunk
	for _, r := range plan.Reverts {
		hs = append(hs, r.Hunk)
	}
	land(t, files, hs)
}

// accept records hunks and lands them, as an accept in the editor does.
func accept(t *testing.T, rec *Record, files memFiles, hunks []editapply.Hunk) {
	t.Helper()
	if err := rec.Add(hunks, files.Read); err != nil {
		t.Fatal(err)
	}
	land(t, files, hunks)
}

// undoAll reverts every hunk of rec, which must have no conflict.
func undoAll(t *testing.T, rec *Record, files memFiles) {
	t.Helper()
	plan, err := Reverts(rec, files, nil)
	if err != nil || len(plan.Conflicts) != 0 {
		t.Fatalf("plan %+v %v", plan, err)
	}
	revertAll(t, files, plan)
}

const goFile = `package shop

func Total(items []Item) int {
	t := 0
	for _, it := range items {
		t += it.Price
	}
	return t
}

func Count(items []Item) int {
	return len(items)
}

func Empty(items []Item) bool {
	return len(items) == 0
}
`

const pyFile = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"

func threeHunks(t *testing.T, files memFiles) []editapply.Hunk {
	return resolve(t, files,
		editapply.Edit{Kind: editapply.KindEdit, Path: "shop.go", OldText: "\t\tt += it.Price\n", NewText: "\t\tt += it.Price * it.Qty\n"},
		editapply.Edit{Kind: editapply.KindEdit, Path: "shop.go", OldText: "\treturn len(items) == 0\n", NewText: "\treturn Count(items) == 0\n"},
		editapply.Edit{Kind: editapply.KindEdit, Path: "util.py", OldText: "    return 2\n", NewText: "    return 2  # two\n"},
	)
}

func TestUndoRevertsThreeHunksAndKeepsTheTyping(t *testing.T) {
	files := memFiles{"shop.go": goFile, "util.py": pyFile}
	before := files.clone()
	hunks := threeHunks(t, files)
	if len(hunks) != 3 {
		t.Fatalf("%d hunks", len(hunks))
	}
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceServer}
	if err := rec.Add(hunks, files.Read); err != nil {
		t.Fatal(err)
	}
	land(t, files, hunks)
	// The user types elsewhere in one file: a line above the hunks, so they move.
	files["shop.go"] = strings.Replace(files["shop.go"], "package shop\n", "package shop\n\n// Totals and counts.\n", 1)
	plan, err := Reverts(rec, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 0 || len(plan.Undone) != 3 {
		t.Fatalf("plan %+v", plan)
	}
	revertAll(t, files, plan)
	want := strings.Replace(before["shop.go"], "package shop\n", "package shop\n\n// Totals and counts.\n", 1)
	if files["shop.go"] != want || files["util.py"] != before["util.py"] {
		t.Fatalf("after undo:\n%s\n---\n%s", files["shop.go"], files["util.py"])
	}
}

func TestUndoLeavesAChangedHunkAsAConflict(t *testing.T) {
	files := memFiles{"shop.go": goFile, "util.py": pyFile}
	before := files.clone()
	hunks := threeHunks(t, files)
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceServer}
	if err := rec.Add(hunks, files.Read); err != nil {
		t.Fatal(err)
	}
	land(t, files, hunks)
	// The user changes a line the second hunk wrote.
	files["shop.go"] = strings.Replace(files["shop.go"], "return Count(items) == 0", "return Count(items) < 1", 1)
	plan, err := Reverts(rec, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].ID != hunks[1].ID || !strings.Contains(plan.Conflicts[0].Reason, "return Count(items) == 0") {
		t.Fatalf("conflicts %+v", plan.Conflicts)
	}
	if slices.Contains(plan.Undone, hunks[1].ID) || len(plan.Undone) != 2 {
		t.Fatalf("undone %v", plan.Undone)
	}
	revertAll(t, files, plan)
	if !strings.Contains(files["shop.go"], "return Count(items) < 1") || !strings.Contains(files["shop.go"], "t += it.Price\n") {
		t.Fatalf("shop.go after undo:\n%s", files["shop.go"])
	}
	if files["util.py"] != before["util.py"] {
		t.Fatalf("util.py after undo:\n%s", files["util.py"])
	}
}

func TestUndoCreatedRenamedDeleted(t *testing.T) {
	files := memFiles{"old.go": "package a\n\nfunc A() {}\n", "gone.txt": "bye\n", "keep.go": "package a\n"}
	before := files.clone()
	hunks := resolve(t, files,
		editapply.Edit{Kind: editapply.KindWrite, Path: "new.go", NewText: "package a\n\nfunc New() {}\n"},
		editapply.Edit{Kind: editapply.KindEdit, Path: "old.go", OldText: "func A() {}", NewText: "func A() { println() }"},
		editapply.Edit{Kind: editapply.KindRename, Path: "old.go", NewPath: "moved.go"},
		editapply.Edit{Kind: editapply.KindDelete, Path: "gone.txt"},
	)
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceRun}
	if err := rec.Add(hunks, files.Read); err != nil {
		t.Fatal(err)
	}
	land(t, files, hunks)
	if _, ok := files["moved.go"]; !ok || files["new.go"] == "" {
		t.Fatalf("landed: %v", files)
	}
	if f := rec.File("moved.go"); f == nil || f.Before == nil || f.Before.Exists || string(f.After.Data) != files["moved.go"] {
		t.Fatalf("record of moved.go: %+v", f)
	}
	plan, err := Reverts(rec, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 0 {
		t.Fatalf("conflicts %+v", plan.Conflicts)
	}
	revertAll(t, files, plan)
	if fmt.Sprint(files) != fmt.Sprint(before) {
		t.Fatalf("after undo %v, want %v", files, before)
	}
}

func TestUndoConflictsOnResourceChanges(t *testing.T) {
	files := memFiles{"old.go": "package a\n", "gone.txt": "bye\n"}
	hunks := resolve(t, files,
		editapply.Edit{Kind: editapply.KindWrite, Path: "new.go", NewText: "package a\n"},
		editapply.Edit{Kind: editapply.KindRename, Path: "old.go", NewPath: "moved.go"},
		editapply.Edit{Kind: editapply.KindDelete, Path: "gone.txt"},
	)
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceRun}
	if err := rec.Add(hunks, files.Read); err != nil {
		t.Fatal(err)
	}
	land(t, files, hunks)
	files["new.go"] += "// mine\n"
	files["old.go"] = "package mine\n"
	files["gone.txt"] = "back\n"
	plan, err := Reverts(rec, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Reverts) != 0 || len(plan.Conflicts) != 3 {
		t.Fatalf("plan %+v", plan)
	}
}

// Hunks accepted one at a time, the second one next to the first: each
// undoes, in either order, and all together.
func TestUndoHunksAcceptedApart(t *testing.T) {
	files := memFiles{"a.txt": "one\ntwo\nx\nx\nthree\nx\nx\n"}
	before := files.clone()
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceServer}
	h1 := resolve(t, files, editapply.Edit{Kind: editapply.KindEdit, Path: "a.txt", OldText: "two\n", NewText: "TWO\n"})
	accept(t, rec, files, h1)
	h2 := resolve(t, files, editapply.Edit{Kind: editapply.KindEdit, Path: "a.txt", OldText: "one\n", NewText: "ONE\n"})
	h2[0].ID = "h2"
	accept(t, rec, files, h2)
	undoAll(t, rec, files)
	if files["a.txt"] != before["a.txt"] {
		t.Fatalf("after undo %q", files["a.txt"])
	}
}

// A pure deletion of repeated lines is found by its context.
func TestUndoDeletionOfRepeatedLines(t *testing.T) {
	files := memFiles{"a.txt": "x\nx\nmid\nx\nx\nend\n"}
	before := files.clone()
	hunks := resolve(t, files, editapply.Edit{Kind: editapply.KindEdit, Path: "a.txt", OldText: "mid\nx\n", NewText: ""})
	rec := &Record{Version: 1, Workspace: "/w", Session: "s1", Source: SourceServer}
	accept(t, rec, files, hunks)
	undoAll(t, rec, files)
	if files["a.txt"] != before["a.txt"] {
		t.Fatalf("after undo %q", files["a.txt"])
	}
}

func TestStoreSaveLoadListAndBounds(t *testing.T) {
	state := t.TempDir()
	root := t.TempDir()
	s, err := Open(state, root)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(state, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir() == other.Dir() {
		t.Fatal("two workspaces share a folder")
	}
	files := memFiles{"shop.go": goFile, "util.py": pyFile}
	for i := 0; i < Keep+3; i++ {
		r := s.New(fmt.Sprintf("2026-%03d", i), fmt.Sprintf("task %d", i), SourceRun)
		if err := r.Add(threeHunks(t, files), files.Read); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
		// Distinct modification times, oldest first, whatever the clock's grain.
		_ = os.Chtimes(filepath.Join(s.Dir(), r.Session+".json"), s.now(), s.now().Add(-time.Hour*time.Duration(Keep+3-i)))
	}
	rs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != Keep {
		t.Fatalf("%d records kept, want %d", len(rs), Keep)
	}
	if _, err := s.Load("2026-000"); err == nil {
		t.Fatal("the oldest record was kept")
	}
	got, err := s.Load(fmt.Sprintf("2026-%03d", Keep+2))
	if err != nil || got.Task != fmt.Sprintf("task %d", Keep+2) || len(got.Hunks) != 3 {
		t.Fatalf("load: %+v %v", got, err)
	}
	if other, _ := other.List(); len(other) != 0 {
		t.Fatal("another workspace sees these records")
	}
	last, err := s.Last(SourceRun)
	if err != nil || last.Session != rs[0].Session {
		t.Fatalf("last %v %v", last, err)
	}
	last.MarkUndone(last.Standing(), "u1")
	if err := s.Save(last); err != nil {
		t.Fatal(err)
	}
	if l2, _ := s.Last(SourceRun); l2 == nil || l2.Session == last.Session {
		t.Fatal("an undone record is still the last apply")
	}
	ents, _ := os.ReadDir(s.Dir())
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
		if info, _ := e.Info(); info.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s is readable by others: %v", e.Name(), info.Mode())
		}
	}
}

func TestStoreRefusesAStateFolderInTheWorkspace(t *testing.T) {
	root := t.TempDir()
	_, err := Open(filepath.Join(root, "state"), root)
	if err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Fatalf("err %v", err)
	}
	// Through a link too.
	outside := t.TempDir()
	if err := os.Symlink(root, filepath.Join(outside, "ln")); err != nil {
		t.Skip(err)
	}
	if _, err := Open(filepath.Join(outside, "ln", "state"), root); err == nil {
		t.Fatal("a state folder reached through a link into the workspace was accepted")
	}
}

func TestStoreRefusesForeignRecords(t *testing.T) {
	state := t.TempDir()
	s, _ := Open(state, t.TempDir())
	o, _ := Open(state, t.TempDir())
	r := o.New("s1", "t", SourceRun)
	r.Hunks = []Hunk{{ID: "h1", Path: "a", Kind: "delete"}}
	if err := o.Save(r); err != nil {
		t.Fatal(err)
	}
	// A record copied into another workspace's folder is not that workspace's.
	data, _ := os.ReadFile(filepath.Join(o.Dir(), "s1.json"))
	_ = os.MkdirAll(s.Dir(), 0o700)
	_ = os.WriteFile(filepath.Join(s.Dir(), "s1.json"), data, 0o600)
	if _, err := s.Load("s1"); err == nil {
		t.Fatal("loaded another workspace's record")
	}
	if _, err := s.Load("../x"); err == nil {
		t.Fatal("loaded a path")
	}
}
