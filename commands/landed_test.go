package commands

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/editapply"
)

const landedBase = "package p\n\n// AI: do it\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 1\n}\n"

func hunkAt(base, old, new string, nth int) editapply.Hunk {
	at := -1
	for i := 0; i <= nth; i++ {
		at = strings.Index(base[at+1:], old) + at + 1
	}
	return editapply.Hunk{ID: "h", Path: "p.go", Kind: editapply.KindEdit, Start: at, End: at + len(old), OldText: old, NewText: new}
}

func TestClassify(t *testing.T) {
	// "\treturn 1\n" stands twice: only the anchors tell the hunks apart.
	first := hunkAt(landedBase, "\treturn 1\n", "\treturn 2\n", 0)
	second := hunkAt(landedBase, "\treturn 1\n", "\treturn 3\n", 1)
	comment := hunkAt(landedBase, "// AI: do it\n", "", 0)
	insert := hunkAt(landedBase, "func b() int {\n", "func b() int {\n\t// added\n", 0)
	apply := func(text string, hs ...editapply.Hunk) string {
		out, err := editapply.Apply(text, hs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []struct {
		name string
		h    editapply.Hunk
		cur  string
		want fate
	}{
		{"untouched", first, landedBase, fatePending},
		{"applied", first, apply(landedBase, first), fateLanded},
		{"the twin applied, not this one", first, apply(landedBase, second), fatePending},
		{"both twins applied", second, apply(landedBase, first, second), fateLanded},
		{"deletion applied", comment, apply(landedBase, comment), fateLanded},
		{"deletion applied with its neighbour", comment, apply(landedBase, comment, first), fateLanded},
		{"deletion pending, neighbour applied", comment, apply(landedBase, first), fatePending},
		{"insertion containing the old text, pending", insert, landedBase, fatePending},
		{"insertion applied", insert, apply(landedBase, insert), fateLanded},
		{"typed inside", first, strings.Replace(landedBase, "\treturn 1\n}\n\nfunc b", "\treturn 1 + x\n}\n\nfunc b", 1), fateStale},
		{"typed above: moved", second, "// header\n" + landedBase, fatePending},
	}
	for _, c := range cases {
		got, fate := classify(c.h, landedBase, c.cur)
		if fate != c.want {
			t.Errorf("%s: fate %d, want %d", c.name, fate, c.want)
			continue
		}
		if fate == fatePending && c.cur[got.Start:got.End] != c.h.OldText {
			t.Errorf("%s: re-located to %q", c.name, c.cur[got.Start:got.End])
		}
	}
}

// FuzzClassify: any base, hunk range and current text; classify never
// panics, and a pending hunk always points at its old text in cur.
func FuzzClassify(f *testing.F) {
	f.Add(landedBase, 40, 51, "\treturn 2\n", landedBase+"x")
	f.Add("", 0, 0, "new", "")
	f.Add("a\nb\n", 2, 4, "", "a\n")
	f.Fuzz(func(t *testing.T, base string, start, end int, newText, cur string) {
		if start < 0 || end < start || end > len(base) {
			return
		}
		h := editapply.Hunk{Kind: editapply.KindEdit, Start: start, End: end, OldText: base[start:end], NewText: newText}
		got, fate := classify(h, base, cur)
		if fate == fatePending && (got.Start < 0 || got.End > len(cur) || cur[got.Start:got.End] != h.OldText) {
			t.Fatalf("pending hunk at [%d,%d) of %q does not hold %q", got.Start, got.End, cur, h.OldText)
		}
	})
}

// TestJudgeAdjacentDeletion: a deletion right above an edited line, both
// landed through one edit (the AI comment's removal beside the change):
// judged landed together, where classify alone finds no context left.
func TestJudgeAdjacentDeletion(t *testing.T) {
	base := "package main\n\n// AI: rename\nfunc greet() string {\n\treturn \"hi\"\n}\n"
	del := editapply.Hunk{ID: "h2", Path: "m.go", Kind: editapply.KindEdit, Start: 14, End: 28, OldText: "// AI: rename\n"}
	sig := editapply.Hunk{ID: "h1", Path: "m.go", Kind: editapply.KindEdit, Start: 28, End: 50, OldText: "func greet() string {\n", NewText: "func greet() (s string) {\n"}
	if base[del.Start:del.End] != del.OldText || base[sig.Start:sig.End] != sig.OldText {
		t.Fatal("bad fixture offsets")
	}
	both := "package main\n\nfunc greet() (s string) {\n\treturn \"hi\"\n}\n"
	onlySig := "package main\n\n// AI: rename\nfunc greet() (s string) {\n\treturn \"hi\"\n}\n"
	ts := []ReviewHunk{{Hunk: del, Abs: "/m.go", Base: base}, {Hunk: sig, Abs: "/m.go", Base: base}}
	for _, tc := range []struct {
		cur  string
		want []fate
	}{
		{both, []fate{fateLanded, fateLanded}},
		{onlySig, []fate{fatePending, fateLanded}},
		{base, []fate{fatePending, fatePending}},
	} {
		got := judge(ts, func(string) (string, bool) { return tc.cur, true })
		for i, j := range got {
			if j.Fate != tc.want[i] {
				t.Errorf("cur %q: %s is %v, want %v", tc.cur, ts[i].Hunk.ID, j.Fate, tc.want[i])
			}
		}
	}
	// Only the deletion landed: the signature hunk moves up by its length.
	onlyDel := "package main\n\nfunc greet() string {\n\treturn \"hi\"\n}\n"
	got := judge(ts, func(string) (string, bool) { return onlyDel, true })
	if got[0].Fate != fateLanded || got[1].Fate != fatePending || onlyDel[got[1].Hunk.Start:got[1].Hunk.End] != sig.OldText {
		t.Errorf("only the deletion landed: %+v", got)
	}
}

// An empty new file reads as "" before it exists and after: only its
// existence says it landed (a Codex or Cline "Add File" with no lines).
func TestEmptyCreationLandsOnlyOnceTheFileExists(t *testing.T) {
	h := editapply.Hunk{ID: "h1", Path: "pkg/__init__.py", Kind: editapply.KindWrite, Created: true}
	ts := []ReviewHunk{{Hunk: h, Abs: "/pkg/__init__.py"}}
	if got := judge(ts, func(string) (string, bool) { return "", false })[0].Fate; got != fatePending {
		t.Errorf("file not there yet: %v, want pending", got)
	}
	if got := judge(ts, func(string) (string, bool) { return "", true })[0].Fate; got != fateLanded {
		t.Errorf("empty file created: %v, want landed", got)
	}
}
