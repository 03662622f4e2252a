package editapply

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sourcegraph/go-diff/diff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const storeGo = "package store\n\nfunc Get() int {\n\treturn 1\n}\n\nfunc Put(v int) {\n\tsave(v)\n}\n"

func resolveOne(t *testing.T, files mapFiles, edits ...Edit) Result {
	t.Helper()
	res := Resolve(edits, files, Options{})
	checkHunkInvariants(t, res.Hunks, files)
	return res
}

func TestWorkspaceEditJSONAnnotated(t *testing.T) {
	files := mapFiles{"store.go": storeGo, "old.go": "package old\n", "a.go": "package a\n"}
	res := resolveOne(t, files,
		Edit{Kind: KindEdit, Path: "store.go", OldText: "\treturn 1\n", NewText: "\treturn 2\n"},
		Edit{Kind: KindWrite, Path: "new.go", NewText: "package store\n"},
		Edit{Kind: KindDelete, Path: "old.go"},
		Edit{Kind: KindRename, Path: "a.go", NewPath: "b.go"},
	)
	if len(res.Failures) != 0 || len(res.Hunks) != 4 {
		t.Fatalf("hunks %d failures %+v", len(res.Hunks), res.Failures)
	}
	v := int32(7)
	we := BuildWorkspaceEdit(res.Hunks, func(p string) Doc {
		d := Doc{URI: uri.URI("file:///ws/" + p), Content: files[p]}
		if p == "store.go" {
			d.Version = &v
		}
		return d
	}, BuildOptions{Label: "AIDE: bump", Annotated: true, Encoding: UTF16, ResourceOps: true})
	raw, err := protocol.Marshal(&we)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		DocumentChanges []map[string]any `json:"documentChanges"`
		Annotations     map[string]struct {
			Label             string `json:"label"`
			NeedsConfirmation bool   `json:"needsConfirmation"`
			Description       string `json:"description"`
		} `json:"changeAnnotations"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	dc := got.DocumentChanges
	if len(dc) != 5 {
		t.Fatalf("documentChanges: %s", raw)
	}
	// 1: the edit of store.go, versioned, one annotated minimal edit.
	td := dc[0]["textDocument"].(map[string]any)
	if td["uri"] != "file:///ws/store.go" || td["version"] != float64(7) {
		t.Errorf("textDocument = %v", td)
	}
	e0 := dc[0]["edits"].([]any)[0].(map[string]any)
	if e0["annotationId"] != "h1" || e0["newText"] != "2" {
		t.Errorf("edit = %v (want the single changed character, annotated h1)", e0)
	}
	rng := e0["range"].(map[string]any)["start"].(map[string]any)
	if rng["line"] != float64(3) || rng["character"] != float64(8) {
		t.Errorf("range start = %v, want 3:8", rng)
	}
	// 2, 3: create new.go, then insert its content with version null.
	if dc[1]["kind"] != "create" || dc[1]["uri"] != "file:///ws/new.go" || dc[1]["annotationId"] != "h2" {
		t.Errorf("create = %v", dc[1])
	}
	td = dc[2]["textDocument"].(map[string]any)
	if v, ok := td["version"]; !ok || v != nil {
		t.Errorf("created document's version = %v (present %v), want null", v, ok)
	}
	// 4, 5: delete and rename.
	if dc[3]["kind"] != "delete" || dc[3]["uri"] != "file:///ws/old.go" {
		t.Errorf("delete = %v", dc[3])
	}
	if dc[4]["kind"] != "rename" || dc[4]["oldUri"] != "file:///ws/a.go" || dc[4]["newUri"] != "file:///ws/b.go" {
		t.Errorf("rename = %v", dc[4])
	}
	a := got.Annotations["h1"]
	if a.Label != "AIDE: bump" || !a.NeedsConfirmation || !strings.Contains(a.Description, "store.go:4") {
		t.Errorf("annotation h1 = %+v", a)
	}
	if len(got.Annotations) != 4 {
		t.Errorf("annotations: %d, want one per hunk", len(got.Annotations))
	}
	// It decodes back into the protocol types (the union kinds are right).
	var back protocol.WorkspaceEdit
	if err := protocol.Unmarshal(raw, &back); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if _, ok := back.DocumentChanges[1].(*protocol.CreateFile); !ok {
		t.Errorf("documentChanges[1] decodes as %T", back.DocumentChanges[1])
	}
	if _, ok := back.DocumentChanges[4].(*protocol.RenameFile); !ok {
		t.Errorf("documentChanges[4] decodes as %T", back.DocumentChanges[4])
	}
}

func TestWorkspaceEditPlain(t *testing.T) {
	files := mapFiles{"store.go": storeGo, "old.go": "x\n"}
	res := resolveOne(t, files,
		Edit{Kind: KindEdit, Path: "store.go", OldText: "\tsave(v)\n", NewText: "\tsave(v)\n\tflush()\n"},
		Edit{Kind: KindDelete, Path: "old.go"})
	we := BuildWorkspaceEdit(res.Hunks, func(p string) Doc { return Doc{URI: uri.File("/ws/" + p), Content: files[p]} },
		BuildOptions{Encoding: UTF8})
	raw, err := protocol.Marshal(&we)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if strings.Contains(s, "annotationId") || strings.Contains(s, "changeAnnotations") {
		t.Errorf("plain edit carries annotations: %s", s)
	}
	if strings.Contains(s, `"delete"`) {
		t.Errorf("resource operation without ResourceOps: %s", s)
	}
	if !strings.Contains(s, `"version":null`) || !strings.Contains(s, `"newText":"\tflush()\n"`) {
		t.Errorf("want an unversioned pure insertion of the new line: %s", s)
	}
	if !NeedsResourceOps(res.Hunks[1]) || NeedsResourceOps(res.Hunks[0]) {
		t.Error("NeedsResourceOps")
	}
}

func TestTextEditsAreMinimalAndEncoded(t *testing.T) {
	content := "a := \"😀 x\"\nb := 1\nc := 2\n"
	h := Hunk{Kind: KindEdit, Start: 0, End: len(content), OldText: content, NewText: "a := \"😀 y\"\nb := 1\nc := 3\n"}
	for _, c := range []struct {
		enc  Encoding
		char uint32
	}{{UTF16, 9}, {UTF8, 11}, {UTF32, 8}} {
		tes := TextEdits(h, content, c.enc)
		if len(tes) != 2 {
			t.Fatalf("%s: %d edits %+v, want 2 small ones", c.enc, len(tes), tes)
		}
		if tes[0].NewText != "y" || tes[0].Range.Start.Character != c.char || tes[0].Range.Start.Line != 0 {
			t.Errorf("%s: first edit %+v, want 'y' at 0:%d", c.enc, tes[0], c.char)
		}
		if tes[1].NewText != "3" || tes[1].Range.Start.Line != 2 {
			t.Errorf("%s: second edit %+v", c.enc, tes[1])
		}
	}
	// A hunk that no longer matches its content gives no edits.
	if tes := TextEdits(h, "changed", UTF16); tes != nil {
		t.Errorf("stale hunk: %+v", tes)
	}
}

func TestRebase(t *testing.T) {
	files := mapFiles{"store.go": storeGo}
	res := resolveOne(t, files, Edit{Kind: KindEdit, Path: "store.go", OldText: "\tsave(v)\n", NewText: "\tstore(v)\n"})
	h := res.Hunks[0]
	if _, st := Rebase(h, storeGo); st != RebaseUnchanged {
		t.Errorf("same content: %s", st)
	}
	moved := "// header\n// more\n" + storeGo
	nh, st := Rebase(h, moved)
	if st != RebaseMoved || moved[nh.Start:nh.End] != h.OldText || !strings.Contains(nh.Summary, "store.go:10") {
		t.Errorf("moved: %s %+v", st, nh)
	}
	if got, err := Apply(moved, []Hunk{nh}); err != nil || !strings.Contains(got, "\tstore(v)\n") {
		t.Errorf("apply moved: %v %q", err, got)
	}
	if _, st := Rebase(h, strings.Replace(storeGo, "save(v)", "persist(v)", 1)); st != RebaseStale {
		t.Errorf("changed under the hunk: %s", st)
	}
	// The user pasted a copy of the target: two places, never guessed.
	twice := storeGo + "\nfunc Put2(v int) {\n\tsave(v)\n}\n"
	if _, st := Rebase(h, twice); st != RebaseStale {
		t.Errorf("ambiguous: %s", st)
	}
}

func TestApplyRefusesOverlapAndStale(t *testing.T) {
	c := "abcdef"
	if _, err := Apply(c, []Hunk{{ID: "h1", Kind: KindEdit, Start: 0, End: 3, OldText: "abc"}, {ID: "h2", Kind: KindEdit, Start: 2, End: 4, OldText: "cd"}}); err == nil {
		t.Error("overlap accepted")
	}
	if _, err := Apply(c, []Hunk{{ID: "h1", Kind: KindEdit, Start: 0, End: 3, OldText: "xyz"}}); err == nil {
		t.Error("stale hunk accepted")
	}
	got, err := Apply(c, []Hunk{{Kind: KindEdit, Start: 3, End: 6, OldText: "def", NewText: "D"}, {Kind: KindEdit, Start: 0, End: 1, OldText: "a", NewText: "A"}})
	if err != nil || got != "AbcD" {
		t.Errorf("got %q %v", got, err)
	}
}

func TestRenderDiffLabelsHunks(t *testing.T) {
	big := strings.Repeat("line\n", 40)
	files := mapFiles{"store.go": storeGo, "big.txt": "first\n" + big + "last\n"}
	res := resolveOne(t, files,
		Edit{Kind: KindEdit, Path: "store.go", OldText: "\treturn 1\n", NewText: "\treturn 2\n"},
		Edit{Kind: KindEdit, Path: "store.go", OldText: "\tsave(v)\n", NewText: "\tsave(v)\n\tflush()\n"},
		Edit{Kind: KindEdit, Path: "big.txt", OldText: "first\n", NewText: "FIRST\n"},
		Edit{Kind: KindEdit, Path: "big.txt", OldText: "last\n", NewText: "LAST\n"},
		Edit{Kind: KindWrite, Path: "n.txt", NewText: "x"},
	)
	d := RenderDiff(res.Hunks, files)
	for _, want := range []string{
		"--- a/store.go\n+++ b/store.go\n@@ -1,9 +1,10 @@ h1 h2\n", // close hunks share a block
		"@@ -1,4 +1,4 @@ h3\n-first\n+FIRST\n",
		"@@ -39,4 +39,4 @@ h4\n",
		"--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@ h5\n+x\n\\ No newline at end of file\n",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	fds, err := diff.ParseMultiFileDiff([]byte(d))
	if err != nil || len(fds) != 3 {
		t.Fatalf("not a valid patch (%v, %d files):\n%s", err, len(fds), d)
	}
}

func TestFromToolCallErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"edit_file", `{"path":"a.go","old_text":"x"}`, `missing argument "new_text"`},
		{"edit_file", `not json`, "not a JSON object"},
		{"edit_file", `{"path":"a.go","old_text":1,"new_text":"y"}`, "must be a string"},
		{"write_file", `{"content":"x"}`, `missing argument "path"`},
		{"rename_file", `{"path":"a.go"}`, `missing argument "new_path"`},
		{"shell", `{}`, "unknown tool"},
		{"delete_file", `{"path":"  "}`, "is empty"},
	} {
		_, err := FromToolCall(c.name, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want %q", c.name, c.args, err, c.want)
		}
	}
	e, err := FromToolCall("write_file", "```json\n{\"filename\":\"a.go\",\"contents\":[\"a\",\"b\"]}\n```")
	if err != nil || e.Path != "a.go" || e.NewText != "a\nb" || e.Kind != KindWrite {
		t.Errorf("variants: %+v %v", e, err)
	}
}

func TestToolsSchemas(t *testing.T) {
	tools := Tools()
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
		raw, err := json.Marshal(tl.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `"required":["path"`) {
			t.Errorf("%s: schema %s", tl.Name, raw)
		}
		if ToolName(tl.Name) != tl.Name {
			t.Errorf("ToolName(%q) = %q", tl.Name, ToolName(tl.Name))
		}
	}
	for _, n := range []string{"edit_file", "write_file", "delete_file", "rename_file"} {
		if !names[n] {
			t.Errorf("missing tool %s", n)
		}
	}
}

func TestAllowIsCalledForBothRenamePaths(t *testing.T) {
	var seen []string
	res := Resolve([]Edit{{Kind: KindRename, Path: "./a.go", NewPath: "../b.go"}}, mapFiles{"a.go": "x"}, Options{Allow: func(p string) (string, error) {
		seen = append(seen, p)
		return corpusAllow(p)
	}})
	if len(seen) != 2 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "outside the workspace") {
		t.Errorf("seen %v, failures %+v", seen, res.Failures)
	}
}

func TestFailureMessageForRetry(t *testing.T) {
	files := mapFiles{"store.go": storeGo}
	res := Resolve([]Edit{{Kind: KindEdit, Path: "store.go", OldText: "}\n", NewText: "x\n"}}, files, Options{})
	if len(res.Failures) != 1 {
		t.Fatalf("%+v", res)
	}
	msg := res.RetryPrompt()
	for _, want := range []string{"could not be applied", "matches 2 places in store.go", "lines 5 and 9"} {
		if !strings.Contains(msg, want) {
			t.Errorf("retry prompt lacks %q:\n%s", want, msg)
		}
	}
	nf := Resolve([]Edit{{Kind: KindEdit, Path: "store.go", OldText: "func Get() string {\n\treturn \"one\"\n}\n", NewText: "x\n"}}, files, Options{})
	if len(nf.Failures) != 1 || !strings.Contains(nf.Failures[0].Closest, "3 | func Get() int {") {
		t.Errorf("closest lines: %+v", nf.Failures)
	}
}

func TestElisionDetector(t *testing.T) {
	yes := []string{"...", "// ...", "# ...", "// ... existing code ...", "# rest unchanged", "/* ... */",
		"// rest of the function unchanged", "<!-- ... -->", "    // existing code here", "// ... other methods ...",
		"# ... rest of file ...", "-- remaining code unchanged"}
	no := []string{"x...", "fmt.Println(\"...\")", "// unchanged behaviour for nil input, see #12", "// the rest of this loop handles retries",
		"args...)", "// TODO: keep the existing retry count", "return nil"}
	for _, l := range yes {
		if !isElision(l, "a.go") {
			t.Errorf("%q should be an elision line", l)
		}
	}
	for _, l := range no {
		if isElision(l, "a.go") {
			t.Errorf("%q should not be an elision line", l)
		}
	}
	if isElision("    ...", "stub.pyi") {
		t.Error("a bare ... is a statement in Python")
	}
}

func FuzzBitLevenshtein(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("", "abc")
	f.Add(strings.Repeat("ab", 32), strings.Repeat("ba", 40))
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) == 0 || len(a) > 64 || len(b) > 200 {
			return
		}
		p := newPattern(a)
		if p.s != a {
			return
		}
		if got, want := bitLevenshtein(p.peq, len(a), b), levenshtein(b, a); got != want {
			t.Fatalf("bitLevenshtein(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

func TestOverlappingEditsMergeIntoOneHunk(t *testing.T) {
	files := mapFiles{"store.go": storeGo}
	res := resolveOne(t, files,
		Edit{Kind: KindEdit, Path: "store.go", OldText: "func Put(v int) {\n", NewText: "func Put(v int) error {\n"},
		Edit{Kind: KindEdit, Path: "store.go", OldText: "\treturn 1\n", NewText: "\treturn 3\n"},
		Edit{Kind: KindEdit, Path: "store.go", OldText: "func Put(v int) error {\n\tsave(v)\n", NewText: "func Put(v int) error {\n\treturn save(v)\n"},
	)
	if len(res.Hunks) != 2 || len(res.Failures) != 0 {
		t.Fatalf("hunks %+v failures %+v", res.Hunks, res.Failures)
	}
	got, err := Apply(storeGo, res.Hunks)
	want := "package store\n\nfunc Get() int {\n\treturn 3\n}\n\nfunc Put(v int) error {\n\treturn save(v)\n}\n"
	if err != nil || got != want {
		t.Errorf("got %q, %v", got, err)
	}
	if res.Hunks[0].ID != "h1" || !strings.Contains(res.Hunks[1].Summary, "store.go:7-8") {
		t.Errorf("ids/summaries: %+v", res.Hunks)
	}
}

func TestFailuresInEditOrder(t *testing.T) {
	files := mapFiles{"a.go": "a\n", "b.go": "b\n"}
	res := Resolve([]Edit{
		{Kind: KindEdit, Path: "b.go", OldText: "zzz\n", NewText: "y\n"},
		{Kind: KindEdit, Path: "a.go", OldText: "qqq\n", NewText: "y\n"},
		{Kind: KindEdit, Path: "../x", OldText: "x", NewText: "y"},
	}, files, Options{Allow: corpusAllow})
	if len(res.Failures) != 3 || res.Failures[0].Index != 0 || res.Failures[1].Index != 1 || res.Failures[2].Index != 2 {
		t.Errorf("failures out of order: %+v", res.Failures)
	}
}

func TestAnthropicTextEditorCommands(t *testing.T) {
	e, err := FromToolCall("str_replace_based_edit_tool", `{"command":"str_replace","path":"a.py","old_str":"x","new_str":"y"}`)
	if err != nil || e.Kind != KindEdit || e.OldText != "x" || e.NewText != "y" {
		t.Errorf("str_replace: %+v %v", e, err)
	}
	e, err = FromToolCall("str_replace_based_edit_tool", `{"command":"create","path":"b.py","file_text":"print(1)\n"}`)
	if err != nil || e.Kind != KindWrite || e.NewText != "print(1)\n" {
		t.Errorf("create: %+v %v", e, err)
	}
}

func TestHunkRange(t *testing.T) {
	files := mapFiles{"store.go": storeGo}
	res := resolveOne(t, files, Edit{Kind: KindEdit, Path: "store.go", OldText: "\tsave(v)\n", NewText: "\tstore(v)\n"})
	r := HunkRange(res.Hunks[0], storeGo, UTF16)
	if r.Start.Line != 7 || r.Start.Character != 0 || r.End.Line != 8 || r.End.Character != 0 {
		t.Errorf("range %+v, want 7:0-8:0", r)
	}
}

func TestUnitsHoldBackDependentEdits(t *testing.T) {
	files := mapFiles{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package b\n\nfunc B() {}\n", "old.go": "package old\n\nfunc Old() {}\n"}
	res := Resolve([]Edit{
		{Kind: KindEdit, Path: "a.go", OldText: "func A() {}\n", NewText: "func A() { println() }\n"},
		{Kind: KindEdit, Path: "b.go", OldText: "func B() {}\n", NewText: "func B() { println() }\n"},
		{Kind: KindEdit, Path: "a.go", OldText: "func Missing() {}\n", NewText: "x\n"},
		{Kind: KindDelete, Path: "old.go"},
		{Kind: KindWrite, Path: "new.go", NewText: "package old\n\n// ...\n"},
	}, files, Options{})
	// a.go: its good edit waits for the failed one; old.go's delete waits
	// for the write that fails on its elision; b.go is its own unit.
	if len(res.Hunks) != 1 || res.Hunks[0].Path != "b.go" {
		t.Fatalf("hunks %+v", res.Hunks)
	}
	if len(res.Failures) != 2 || len(res.HeldBack) != 2 || res.HeldBack[0].Index != 0 || res.HeldBack[1].Index != 3 {
		t.Fatalf("failures %+v held back %+v", res.Failures, res.HeldBack)
	}
	msg := res.RetryPrompt()
	for _, want := range []string{"2 other edits were held back with them and NOT applied", "- edit_file a.go (old_text starting \"func A() {}\")", "- delete_file old.go", "The edits not listed here were applied"} {
		if !strings.Contains(msg, want) {
			t.Errorf("retry prompt lacks %q:\n%s", want, msg)
		}
	}
	// Nothing applied: the prompt must not say anything was.
	res = Resolve([]Edit{
		{Kind: KindEdit, Path: "a.go", OldText: "func A() {}\n", NewText: "func A() { println() }\n"},
		{Kind: KindEdit, Path: "a.go", OldText: "func Missing() {}\n", NewText: "x\n"},
	}, files, Options{})
	if msg := res.RetryPrompt(); strings.Contains(msg, "were applied") || !strings.Contains(msg, "1 other edit was held back") {
		t.Errorf("retry prompt:\n%s", msg)
	}
}

func TestInvalidBlockIsAFailureThatHoldsBackItsFile(t *testing.T) {
	files := mapFiles{"a.go": "package a\n\nfunc A() {}\n"}
	res := Resolve([]Edit{
		{Kind: KindEdit, Path: "a.go", OldText: "func A() {}\n", NewText: "func A() { println() }\n"},
		{Kind: KindInvalid, Path: "a.go", Reason: "the block is not closed"},
	}, files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) != 1 || len(res.HeldBack) != 1 {
		t.Fatalf("%+v", res)
	}
	if msg := res.RetryPrompt(); !strings.Contains(msg, "a block of your answer (for a.go) could not be read: the block is not closed") {
		t.Errorf("retry prompt:\n%s", msg)
	}
}

func TestFormatCheckKeepsParsableFilesParsable(t *testing.T) {
	for _, tt := range []struct {
		path, before, after string
		bad                 bool
	}{
		{"a.json", "{\"a\": 1}\n", "{\"a\": 1,}\n", true},
		{"a.json", "{\"a\": 1}\n", "{\"a\": 2}\n", false},
		{"a.json", "// comment\n{\"a\": 1}\n", "// comment\n{\"a\": 1,}\n", false}, // not JSON before: not judged
		{"ci.yml", "a:\n  b: 1\n", "a:\n  b: 1\n c: 2\n", true},
		{"ci.yml", "a:\n  b: 1\n", "a:\n  b: 1\n  c: 2\n", false},
		{"ci.yml", "a: |\n  x\n", "a: |\n  x\n  \ty\n", false}, // a tab inside a block scalar is content
		{"Cargo.toml", "[package]\nname = \"a\"\n", "[package]\nname = \"a\nversion = 1\n", true},
		{"Cargo.toml", "[package]\nname = \"a\"\n", "[package]\nname = \"a\"\nname = \"b\"\n", true},
		{"Cargo.toml", "[package]\nname = \"a\"\n", "[package]\nname = \"a\"\nkeywords = [\n  \"x\",\n]\n\n[[bin]]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n", false},
		{"Makefile", "build:\n\tgo build\n", "build:\n    go build\n", true},
		{"Makefile", "build:\n\tgo build\n", "build:\n\tgo build ./...\n", false},
	} {
		ref := checkSyntax(&fileChange{path: tt.path, before: tt.before, after: tt.after, spans: []region{{start: 0, end: len(tt.before), text: tt.after, write: true}}})
		if (ref != nil) != tt.bad {
			t.Errorf("%s %q: %+v, want refusal %v", tt.path, tt.after, ref, tt.bad)
		}
	}
}

// The fuzzy rung is bounded: a long old_text that is not in a long file is
// refused with the reason at once instead of scanned line by line.
func TestFuzzyRungIsBounded(t *testing.T) {
	var fb, ob strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&fb, "\tresults = append(results, item.Field%03d)\n", i%1000)
	}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&ob, "\tresult = append(result, item.Field%03d)\n", i)
	}
	res := Resolve([]Edit{{Kind: KindEdit, Path: "w.go", OldText: ob.String(), NewText: "x\n"}}, mapFiles{"w.go": fb.String()}, Options{})
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "too long to be searched approximately") {
		t.Fatalf("want the bounded refusal, got %+v", res.Failures)
	}
}

// An apply_patch operation whose path is only white space (a vertical tab
// after "Add File:", found by FuzzApplyPatch) is an unreadable block that
// says what is missing, never an edit of a file without a name.
func TestApplyPatchOperationWithoutAPath(t *testing.T) {
	for _, op := range []string{"*** Add File: \v\n+x", "*** Delete File:\t", "*** Update File: a.go\n*** Move to: \f\n@@\n-x\n+y"} {
		edits, _ := ParseText("*** Begin Patch\n" + op + "\n*** End Patch\n")
		if len(edits) != 1 || edits[0].Kind != KindInvalid || !strings.Contains(edits[0].Reason, "names no file") {
			t.Errorf("%q parsed as %+v", op, edits)
		}
	}
}
