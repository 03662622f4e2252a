package editapply

import (
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// Seeds: the f.Add calls below, the corpus answers and tool calls, and the
// files under testdata/fuzz/<FuzzName>/.

func FuzzFromToolCall(f *testing.F) {
	f.Add("edit_file", `{"path":"a.go","old_text":"x","new_text":"y"}`)
	f.Add("write_file", `"{\"path\":\"a\",\"content\":\"b\"}"`)
	f.Add("rename_file", `{"path":"a","new_path":null}`)
	f.Add("functions.str_replace", `{"file_path":"a","old_str":["x"],"new_str":{}}`)
	for _, c := range loadCorpus(f) {
		for _, call := range c.calls {
			f.Add(call[0], call[1])
		}
	}
	f.Add("MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"x","new_string":"y"},{"old_string":"y","new_string":"z","replace_all":true}]}`)
	f.Fuzz(func(t *testing.T, name, args string) {
		edits, err := FromToolCalls(name, args)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(edits) == 0 || len(edits) > maxMultiEdits {
			t.Fatalf("%d edits from one call", len(edits))
		}
		for _, e := range edits {
			if e.Kind == KindInvalid {
				t.Fatalf("a readable call gave an invalid edit: %+v", e)
			}
		}
		checkParsed(t, edits)
	})
}

func FuzzParseText(f *testing.F) {
	f.Add("a.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
	f.Add("```go\na.go\n<<<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n```")
	f.Add("<<<<<<< SEARCH\n=======\n")
	f.Add("a.go\n```go\npackage a\n```\n")
	for _, c := range loadCorpus(f) {
		if c.answer != nil {
			f.Add(*c.answer)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		edits, _ := ParseText(text)
		checkParsed(t, edits)
	})
}

func FuzzUnifiedDiff(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Add("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n")
	f.Add("--- a/x\n+++ /dev/null\n@@\n-x\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ ... @@\n\tctx\n-o\n+n\n")
	f.Add("@@ -1 +1 @@\n-x\n+y\n")
	f.Fuzz(func(t *testing.T, body string) {
		edits, _ := ParseText("```diff\n" + body + "\n```\n")
		checkParsed(t, edits)
		// The same diff bare in the text.
		edits, _ = ParseText(body)
		checkParsed(t, edits)
		// The normaliser's output is always something go-diff can try.
		_ = normalizeHunks(strings.Split(body, "\n"))
	})
}

// checkParsed: every edit a parser returns names its file and is of a known
// kind, except a KindInvalid one, which says why it could not be read.
func checkParsed(t *testing.T, edits []Edit) {
	t.Helper()
	for _, e := range edits {
		if e.Kind == KindInvalid {
			if e.Reason == "" {
				t.Fatalf("invalid block without a reason: %+v", e)
			}
			continue
		}
		if strings.TrimSpace(e.Path) == "" {
			t.Fatalf("edit without a path: %+v", e)
		}
		switch e.Kind {
		case KindEdit, KindWrite, KindDelete:
		case KindRename:
			if e.NewPath == "" {
				t.Fatalf("rename without a target: %+v", e)
			}
		default:
			t.Fatalf("kind %q", e.Kind)
		}
		if e.EndLine > 0 && (e.StartLine < 1 || e.EndLine < e.StartLine) {
			t.Fatalf("line range %d-%d", e.StartLine, e.EndLine)
		}
	}
}

// FuzzApplyPatch: any body of an apply_patch envelope parses into edits of
// named files or one invalid block, and resolving them never panics.
func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Update File: a.go\n@@ func A\n-x\n+y\n")
	f.Add("*** Add File: n.txt\n+hello\n*** Delete File: old.txt\n")
	f.Add("*** Update File: a.go\n*** Move to: b.go\n@@\n ctx\n-x\n+y\n*** End of File\n")
	f.Add("*** Update File: a.go\n+only added\n*** End of File\n")
	f.Add("*** Update File: a.go\nnot a patch line\n")
	f.Fuzz(func(t *testing.T, body string) {
		edits, _ := ParseText("*** Begin Patch\n" + body + "\n*** End Patch\n")
		checkParsed(t, edits)
		res := Resolve(edits, mapFiles{"a.go": "package a\n\nx\n", "old.txt": "o\n"}, Options{Allow: corpusAllow})
		checkHunkInvariants(t, res.Hunks, mapFiles{"a.go": "package a\n\nx\n", "old.txt": "o\n"})
	})
}

// FuzzSearchReplaceBlocks: SEARCH/REPLACE bodies with any number of divider
// lines, Roo headers and escapes parse into edits of the named file, and
// every reading Resolve picks stands at its range.
func FuzzSearchReplaceBlocks(f *testing.F) {
	f.Add("Title\n=======\ntext\n=======\nTitle\n=======\nnew text\n")
	f.Add(":start_line:3\n-------\nx\n=======\n=======\ny\n")
	f.Add("\\=======\n=======\n\\>>>>>>> REPLACE\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, m := range [][2]string{{"<<<<<<< SEARCH", ">>>>>>> REPLACE"}, {"------- SEARCH", "+++++++ REPLACE"}} {
			edits, _ := ParseText("README.md\n" + m[0] + "\n" + body + "\n" + m[1] + "\n")
			checkParsed(t, edits)
			files := mapFiles{"README.md": "Title\n=======\ntext\nx\n"}
			res := Resolve(edits, files, Options{})
			checkHunkInvariants(t, res.Hunks, files)
		}
	})
}

// FuzzResolveApply: whatever the content and the edit, Resolve never panics,
// its hunks stand at their ranges and never overlap, Apply and the LSP
// TextEdits agree, and Rebase on the same content never moves a hunk.
func FuzzResolveApply(f *testing.F) {
	f.Add(storeGo, "\treturn 1\n", "\treturn 2\n", "}\n", "")
	f.Add("a\r\nb\r\nc", "b\nc", "B\nC\n", "a", "A")
	f.Add("\uFEFFx\n  y\n", "y", "z\n  w", "...", "...")
	f.Add("f(){\n\tg()\n}\n", "    g()", "    h()\n    i()", "f(){", "f() {")
	f.Add("", "", "new", "x", "y")
	f.Fuzz(func(t *testing.T, content, old1, new1, old2, new2 string) {
		if !utf8.ValidString(content) || len(content) > 4096 {
			return
		}
		files := mapFiles{"f.go": content}
		res := Resolve([]Edit{
			{Kind: KindEdit, Path: "f.go", OldText: old1, NewText: new1},
			{Kind: KindEdit, Path: "f.go", OldText: old2, NewText: new2},
		}, files, Options{})
		if len(res.Hunks)+len(res.Failures)+len(res.AlreadyApplied) == 0 && (old1 != new1 || old2 != new2) {
			// Edits can cancel out (the second undoes the first); that is
			// the only way to have nothing to report.
			if _, err := Apply(content, nil); err != nil {
				t.Fatal(err)
			}
		}
		sort.Slice(res.Hunks, func(i, j int) bool { return res.Hunks[i].Start < res.Hunks[j].Start })
		for n, h := range res.Hunks {
			if h.Start < 0 || h.End > len(content) || h.Start > h.End || content[h.Start:h.End] != h.OldText {
				t.Fatalf("hunk %s not at its range", h.ID)
			}
			if n > 0 && h.Start < res.Hunks[n-1].End {
				t.Fatalf("hunks overlap: %+v %+v", res.Hunks[n-1], h)
			}
			if _, st := Rebase(h, content); st == RebaseMoved {
				t.Fatalf("rebase on unchanged content moved %s", h.ID)
			}
		}
		got, err := Apply(content, res.Hunks)
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if via := applyTextEdits(t, content, res.Hunks); via != got {
			t.Fatalf("TextEdits give %q, Apply %q", via, got)
		}
		_ = RenderDiff(res.Hunks, files)
	})
}

// FuzzVerify: the verifier never fails on any file and any region; a
// refusal has a reason and blames regions that exist; keepLineBytes keeps
// every line's text, and what it gives the locality row accepts.
func FuzzVerify(f *testing.F) {
	f.Add("a.go", "package a\n\nfunc f() {\n}\n", 11, 24, "func f() {\n\treturn\n}\n")
	f.Add("f.txt", "a\r\nb\nc", 6, 7, "C")
	f.Add("c.json", "{\n  // x\n  \"a\": 1,\n}\n", 9, 16, "\"a\": 2,")
	f.Add("d.yaml", "a:\n  b: 1\n", 3, 10, "  b: [\n")
	f.Add("doc.md", "# T\n\n```go\nx\n```\n", 5, 17, "```go\nx\n")
	f.Add("Makefile", "all:\n\tgo build\n", 5, 15, "    go build\n")
	f.Add("p.py", "def f():\n    return 1\n", 9, 22, `    x = 1\n    return x`+"\n")
	f.Add("e.toml", "a = 1\n", 0, 6, "a = \"x\n")
	f.Add("s.sh", "if true; then\n  echo hi\nfi\n", 0, 0, "<<<<<<< SEARCH\n")
	f.Add("n.ts", "const a = 1;\n", 0, 13, "     1\tconst a = 2;\n     2\tconst b = 3;\n     3\tconst c = 4;\n")
	f.Fuzz(func(t *testing.T, path, before string, s, e int, text string) {
		if len(before) > 4096 || len(text) > 4096 {
			return
		}
		if s < 0 {
			s = -s
		}
		if e < 0 {
			e = -e
		}
		s, e = s%(len(before)+1), e%(len(before)+1)
		if s > e {
			s, e = e, s
		}
		old := before[s:e]
		atEOF := e == len(before)
		kept, ok := keepLineBytes(old, text, atEOF)
		if ok {
			a, b := splitKeep(kept), splitKeep(text)
			if len(a) != len(b) {
				t.Fatalf("keepLineBytes changed the line count: %q -> %q", text, kept)
			}
			for i := range a {
				if lineKey(a[i]) != lineKey(b[i]) {
					t.Fatalf("keepLineBytes changed line %d: %q -> %q", i, b[i], a[i])
				}
			}
		}
		c := &fileChange{path: path, before: before, spans: []region{{start: s, end: e, text: kept}}}
		c.after = spliceSpans(before, c.spans)
		if ref := checkLocality(c); ref != nil {
			t.Fatalf("the locality row refuses what keepLineBytes built: %s", ref.reason)
		}
		c = &fileChange{path: path, before: before, spans: []region{{start: s, end: e, text: text, write: s == 0 && e == len(before)}}}
		c.after = spliceSpans(before, c.spans)
		if ref := verify(c); ref != nil {
			if ref.reason == "" || ref.check == "" {
				t.Fatalf("a refusal without a reason: %+v", ref)
			}
			for _, k := range ref.spans {
				if k < 0 || k >= len(c.spans) {
					t.Fatalf("refusal blames region %d of %d", k, len(c.spans))
				}
			}
		}
	})
}

// FuzzTransportDamage: the damage stage reads any new text against any
// file without failing, every finding has a reason, and a reading that
// explains damage away leaves none.
func FuzzTransportDamage(f *testing.F) {
	f.Add("a.go", "x := \"a\\n\"\n", "x := \"a\\n\"\n", "x := \"b\\\\n\"\n")
	f.Add("README.md", "# T\n", "# T\n", "<<<<<<< HEAD\nT\n=======\nU\n>>>>>>> b\n")
	f.Add("README.md", "", "", "# N\\n\\nSay \\\"hi\\\".\\n")
	f.Add("a.py", "", "", "def f():\n    return 1 + 2 + 3 + 4 + 5\n\n\ndef g():\n    pass\ndef f():\n    return 1 + 2 + 3 + 4 + 5\n\n\ndef g():\n    pass\n")
	f.Add("x.txt", "a\n", "a\n", "b \ufeff... [truncated]\n(rest of the file unchanged)\n")
	f.Add("a.py", "import os\nimport sys\n", "", "\"import os\\nimport sys\\nprint(\\\"x\\\")\\n\"")
	f.Add("a.js", "const a = {\n  b: \"c\",\n};\n", "  b: \"c\",", "  b: \\\"d\\\",")
	f.Fuzz(func(t *testing.T, p, content, old, neu string) {
		e := Edit{Kind: KindEdit, Path: p, OldText: old, NewText: neu}
		d := damageOf(e, p, content)
		if d != nil && (d.what == "" || d.reason(p) == "") {
			t.Fatalf("a finding without a reason: %+v", d)
		}
		if v, ok := explainAway(e, p, content); ok && damageOf(v, p, content) != nil {
			t.Fatalf("the reading taken still has damage: %q", v.NewText)
		}
		if h, ok := halveEscapes(neu); ok && len(h) >= len(neu) {
			t.Fatalf("halving escapes did not shorten %q", neu)
		}
		if d, ok := decodeOnce(neu, p); ok && len(d) >= len(neu) {
			t.Fatalf("decoding once did not shorten %q", neu)
		}
	})
}
