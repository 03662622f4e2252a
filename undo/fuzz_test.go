package undo

import (
	"encoding/json"
	"testing"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// FuzzParseRecord: a record file is read back from the user's state folder,
// where anything may have been written; a record Parse accepts is whole
// (it survives a round trip) and undoing it touches only the paths it
// names, whatever the workspace holds.
func FuzzParseRecord(f *testing.F) {
	files := memFiles{"shop.go": goFile, "util.py": pyFile, "old.go": "package a\n", "gone.txt": "x\n"}
	rec := &Record{Version: 1, Workspace: "/w", Session: "20260102-150405-a1b2c3", Task: "t", Source: SourceRun}
	hunks := editapply.Resolve([]editapply.Edit{
		{Kind: editapply.KindEdit, Path: "shop.go", OldText: "\t\tt += it.Price\n", NewText: "\t\tt += it.Price * it.Qty\n"},
		{Kind: editapply.KindEdit, Path: "util.py", OldText: "    return 2\n", NewText: ""},
		{Kind: editapply.KindWrite, Path: "new.go", NewText: "package a\n"},
		{Kind: editapply.KindRename, Path: "old.go", NewPath: "moved.go"},
		{Kind: editapply.KindDelete, Path: "gone.txt"},
	}, files, editapply.Options{}).Hunks
	if err := rec.Add(hunks, files.Read); err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal(rec)
	f.Add(good)
	for _, s := range []string{
		`{}`, `{"version":1,"workspace":"/w","session":"s","source":"run","files":[],"hunks":[]}`,
		`{"version":1,"workspace":"/w","session":"s","source":"run","hunks":[{"id":"h1","path":"../x","kind":"delete"}]}`,
		`{"version":1,"workspace":"/w","session":"s","source":"run","hunks":[{"id":"h1","path":"a","kind":"rename","newPath":"a"}]}`,
		`{"version":1,"workspace":"/w","session":"s","source":"run","hunks":[{"id":"h1","path":"a","kind":"edit","start":-4,"after":"eA=="}]}`,
		`{"version":1,"workspace":"/w","session":"s","source":"run","hunks":[{"id":"h1","path":"a","kind":"edit","start":99,"after":"eA==","group":"h1"}]}`,
		`{"version":1,"workspace":"/w","session":"../s","source":"run"}`,
		`{"version":1,"workspace":"/w","session":"s","source":"undo","undoOf":"a/b"}`,
		`{"version":1,"workspace":"/w","session":"s","source":"run","files":[{"path":"a","before":{"exists":false,"data":"eA=="}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(again); err != nil {
			t.Fatalf("a parsed record does not parse again: %v", err)
		}
		named := map[string]bool{}
		for _, h := range r.Hunks {
			named[h.Path], named[h.NewPath] = true, true
		}
		// Undo it over the workspace as the record left it, and over one
		// where every file is something else.
		for _, ws := range []memFiles{after(r), {"shop.go": goFile, "a": "x\n", "moved.go": "y"}} {
			plan, err := Reverts(r, ws, nil)
			if err != nil {
				t.Fatalf("undoing its own hunks: %v", err)
			}
			for _, rv := range plan.Reverts {
				if !named[rv.Hunk.Path] || rv.Hunk.Kind == editapply.KindRename && !named[rv.Hunk.NewPath] {
					t.Fatalf("a revert of %s touches a path the record does not name", rv.Hunk.Path)
				}
				if rv.Hunk.Kind == editapply.KindEdit {
					cur, _, _ := ws.Read(rv.Hunk.Path)
					if _, err := editapply.Apply(cur, []editapply.Hunk{rv.Hunk}); err != nil {
						t.Fatalf("a revert does not apply to the text it was located in: %v", err)
					}
				}
			}
			if len(plan.Undone)+len(plan.Conflicts) < len(r.Standing()) {
				t.Fatalf("%d hunks standing, %d undone, %d conflicts", len(r.Standing()), len(plan.Undone), len(plan.Conflicts))
			}
		}
	})
}

// after is the workspace a record says its session left.
func after(r *Record) memFiles {
	m := memFiles{}
	for _, f := range r.Files {
		if f.After != nil && f.After.Exists {
			m[f.Path] = string(f.After.Data)
		}
	}
	return m
}
