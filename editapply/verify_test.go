package editapply

import (
	"strings"
	"testing"
)

// The verifier's rows, each with a case built from a public report of a
// model's broken edit (the report is named above the case). Each goes
// through Resolve, as every answer does.

func verifyOne(t *testing.T, files mapFiles, plan string, edits ...Edit) Result {
	t.Helper()
	res := Resolve(edits, files, Options{Plan: plan})
	checkHunkInvariants(t, res.Hunks, files)
	return res
}

func applied(t *testing.T, files mapFiles, res Result, p string) string {
	t.Helper()
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %+v", res.Failures)
	}
	out, err := Apply(files[p], hunksOf(res.Hunks, p))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hunksOf(hs []Hunk, p string) []Hunk {
	var out []Hunk
	for _, h := range hs {
		if h.Path == p {
			out = append(out, h)
		}
	}
	return out
}

func refused(t *testing.T, res Result, want string) {
	t.Helper()
	if len(res.Hunks) != 0 {
		t.Errorf("hunks proposed: %+v", res.Hunks)
	}
	if len(res.Failures) == 0 {
		t.Fatalf("nothing refused; want %q", want)
	}
	for _, f := range res.Failures {
		if strings.Contains(f.Reason, want) {
			return
		}
	}
	t.Errorf("no failure says %q: %+v", want, res.Failures)
}

// earendil-works/pi#8544: editing "c" in "a\r\nb\nc" turned line 2's LF
// into CRLF. Every line an edit keeps keeps its bytes, whatever form the
// edit came in.
func TestVerifyMixedLineEndingsKeepTheirBytes(t *testing.T) {
	files := mapFiles{"f.txt": "a\r\nb\nc"}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "f.txt", OldText: "c", NewText: "C"})
	if got := applied(t, files, res, "f.txt"); got != "a\r\nb\nC" {
		t.Errorf("got %q", got)
	}
	// A whole-file write of the same change, in LF: only line 3 changes.
	files = mapFiles{"f.go": "package f\r\n\r\nvar a = 1\nvar b = 2\r\nvar c = 3   \n"}
	res = verifyOne(t, files, "", Edit{Kind: KindWrite, Path: "f.go", NewText: "package f\n\nvar a = 1\nvar b = 20\nvar c = 3\n"})
	if got := applied(t, files, res, "f.go"); got != "package f\r\n\r\nvar a = 1\nvar b = 20\r\nvar c = 3   \n" {
		t.Errorf("got %q", got)
	}
	// A write that changes only whitespace means it.
	files = mapFiles{"g.go": "package g\n\nvar a = 1   \n"}
	res = verifyOne(t, files, "", Edit{Kind: KindWrite, Path: "g.go", NewText: "package g\n\nvar a = 1\n"})
	if got := applied(t, files, res, "g.go"); got != "package g\n\nvar a = 1\n" {
		t.Errorf("whitespace-only write: got %q", got)
	}
}

// A file without a final newline keeps its absence when the edit does not
// touch its last line, and gets none added by a write that keeps it.
func TestVerifyFinalNewlineKept(t *testing.T) {
	files := mapFiles{"a.py": "x = 1\ny = 2"}
	res := verifyOne(t, files, "", Edit{Kind: KindWrite, Path: "a.py", NewText: "x = 10\ny = 2\n"})
	if got := applied(t, files, res, "a.py"); got != "x = 10\ny = 2" {
		t.Errorf("got %q", got)
	}
}

// The locality row on its own: a region that rewrites a line it keeps is
// refused, whoever built it.
func TestVerifyLocalityRow(t *testing.T) {
	before := "a\r\nb\r\nc\r\n"
	c := &fileChange{path: "x.txt", before: before, spans: []region{{start: 0, end: len(before), text: "a\nB\r\nc\r\n"}}}
	c.after = spliceSpans(before, c.spans)
	if ref := checkLocality(c); ref == nil || !strings.Contains(ref.reason, "rewrites lines it keeps") {
		t.Errorf("got %+v", ref)
	}
	c.spans[0].text = "a\r\nB\r\nc\r\n"
	c.after = spliceSpans(before, c.spans)
	if ref := checkLocality(c); ref != nil {
		t.Errorf("a clean change refused: %+v", ref)
	}
	c.after += "x"
	if ref := checkLocality(c); ref == nil {
		t.Error("an after that is not the regions applied passed")
	}
}

// aaif-goose/goose#7774: Qwen wrote "\n" literally, the whole function on
// one line. In a language whose file writes no escapes outside strings,
// that is the wire, not the file: as written it is refused, and the
// reading with the escapes undone, which passes, is taken.
func TestVerifyLiteralEscapes(t *testing.T) {
	files := mapFiles{"calc.py": "def add(a, b):\n    return a + b\n"}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "calc.py", OldText: "    return a + b\n",
		NewText: `    return a + b\n\ndef sub(a, b):\n    return a - b` + "\n"})
	if got := applied(t, files, res, "calc.py"); got != "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n" {
		t.Errorf("the unescaped reading was not taken: %q", got)
	}
	// Without that reading the row refuses it.
	c := &fileChange{path: "calc.py", before: files["calc.py"]}
	c.spans = []region{{start: 15, end: len(c.before), text: `    return a + b\n\ndef sub(a, b):\n    return a - b` + "\n"}}
	c.after = spliceSpans(c.before, c.spans)
	if ref := verify(c); ref == nil || !strings.Contains(ref.reason, "escape sequences") {
		t.Errorf("the escapes row: %+v", ref)
	}
	// Escapes inside strings are the file's own.
	res = verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "calc.py", OldText: "    return a + b\n",
		NewText: "    print(\"a\\tb\\n\")\n    return a + b\n"})
	if len(res.Failures) != 0 {
		t.Errorf("escapes in a string refused: %+v", res.Failures)
	}
	// `print(\"hi\")`: quotes still escaped.
	files = mapFiles{"m.go": "package m\n\nfunc f() {\n}\n"}
	res = verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "m.go", OldText: "func f() {\n}\n", NewText: "func f() {\n\tprintln(\\\"hi\\\")\n}\n"})
	refused(t, res, "escape sequences")
}

// RooCodeInc/Roo-Code#1408: markers of the edit format ended up in the
// file. A marker line the file does not have is refused; a Markdown file
// (a heading underline, a document about the format) is left alone.
func TestVerifyFormatMarkers(t *testing.T) {
	files := mapFiles{"app.ts": "export const a = 1;\nexport const b = 2;\n", "README.md": "# Title\n"}
	for _, marker := range []string{"=======", ">>>>>>> REPLACE", "------- SEARCH", "*** End of File", ":start_line:12", "@@ -1,2 +1,2 @@", "</parameter>", "<tool_call>"} {
		res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "app.ts", OldText: "export const b = 2;\n", NewText: "export const b = 3;\n" + marker + "\n"})
		refused(t, res, "not to the file")
	}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "README.md", OldText: "# Title\n", NewText: "Title\n=======\n"})
	if len(res.Failures) != 0 {
		t.Errorf("a Markdown underline refused: %+v", res.Failures)
	}
	// A file that has conflict markers may keep or move them.
	files = mapFiles{"c.txt.go": "package c\n\n// <<<<<<< HEAD\nvar a = 1\n"}
	res = verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "c.txt.go", OldText: "var a = 1\n", NewText: "var a = 2\n"})
	if len(res.Failures) != 0 {
		t.Errorf("%+v", res.Failures)
	}
}

// zed-industries/zed#56779: read_file output carries `cat -n` gutters,
// which a model may copy into new_text.
func TestVerifyLineNumberGutters(t *testing.T) {
	files := mapFiles{"s.go": "package s\n\nfunc A() {}\n"}
	res := verifyOne(t, files, "", Edit{Kind: KindWrite, Path: "s.go", NewText: "     1\tpackage s\n     2\t\n     3\tfunc A() {}\n     4\tfunc B() {}\n"})
	refused(t, res, "")
	// Consecutive numbers that are the file's own (a YAML list of
	// numbered keys would be one) are kept when the file has them.
	files = mapFiles{"n.txt": "1: one\n2: two\n"}
	res = verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "n.txt", OldText: "2: two\n", NewText: "2: two\n3: three\n4: four\n5: five\n"})
	if len(res.Failures) != 0 {
		t.Errorf("%+v", res.Failures)
	}
}

// dcdpr/jp#741: a read tool's footer "... (truncated after line #N) ..."
// copied into a file.
func TestVerifyTruncationNotice(t *testing.T) {
	files := mapFiles{"a.js": "function a() {\n  return 1;\n}\n"}
	for _, notice := range []string{"... (truncated after line #40) ...", "[120 more lines]", "<response clipped>"} {
		res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "a.js", OldText: "  return 1;\n", NewText: "  return 2;\n" + notice + "\n"})
		refused(t, res, "truncation notice")
	}
}

// A non-Markdown file whose new content is wrapped in a fence.
func TestVerifyWrappedFence(t *testing.T) {
	files := mapFiles{"x.toml": ""}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "x.toml", OldText: "", NewText: "```toml\na = 1\n```\n"})
	refused(t, res, "Markdown fence")
}

// JacksonKearl/vscode-search-editor-apply-changes#13 and every
// replacement that repeats the lines after its SEARCH text: a block the
// file had once is there twice.
func TestVerifyDuplicatedBlock(t *testing.T) {
	body := "func handle(w http.ResponseWriter, r *http.Request) {\n\tuser := r.URL.Query().Get(\"user\")\n\tif user == \"\" {\n\t\thttp.Error(w, \"no user\", http.StatusBadRequest)\n\t\treturn\n\t}\n\tfmt.Fprintf(w, \"hello %s\", user)\n}\n"
	files := mapFiles{"h.go": "package h\n\n" + body}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "h.go", OldText: "package h\n", NewText: "package h\n\n// handle greets.\n" + body})
	refused(t, res, "twice")
}

// A whole-file write that leaves out definitions the plan does not name,
// or most of the file.
func TestVerifyConservation(t *testing.T) {
	src := "package c\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nfunc C() int { return 3 }\n"
	files := mapFiles{"c.go": src}
	res := verifyOne(t, files, "make A return 10", Edit{Kind: KindWrite, Path: "c.go", NewText: "package c\n\nfunc A() int { return 10 }\n\nfunc C() int { return 3 }\n"})
	refused(t, res, "B (line 5)")
	res = verifyOne(t, files, "make A return 10 and remove B", Edit{Kind: KindWrite, Path: "c.go", NewText: "package c\n\nfunc A() int { return 10 }\n\nfunc C() int { return 3 }\n"})
	if len(res.Failures) != 0 {
		t.Errorf("a removal the plan names refused: %+v", res.Failures)
	}
	var long strings.Builder
	long.WriteString("# notes\n")
	for i := 0; i < 20; i++ {
		long.WriteString("line of the notes that matter\n")
	}
	files = mapFiles{"n.cfg": long.String()}
	res = verifyOne(t, files, "add a title", Edit{Kind: KindWrite, Path: "n.cfg", NewText: "# Notes\nline of the notes that matter\n"})
	refused(t, res, "")
}

// Syntax rows: one per language, each keeping a parser's verdict.
func TestVerifySyntaxRows(t *testing.T) {
	for _, c := range []struct {
		path, before, old, new, want string
	}{
		{"a.go", "package a\n\nfunc f() {\n}\n", "func f() {\n}\n", "func f() {\n", "syntax error"},
		{"s.sh", "#!/bin/sh\nif true; then\n  echo hi\nfi\n", "fi\n", "\n", "syntax error"},
		{"c.json", "{\"a\": 1}\n", "{\"a\": 1}", "{\"a\": 1,}", "valid JSON"},
		{"tsconfig.jsonc", "{\n  // comment\n  \"a\": 1,\n}\n", "\"a\": 1,", "\"a\": 1 \"b\": 2,", "JSON with comments"},
		{"d.yaml", "a:\n  b: 1\n", "  b: 1\n", "  b: 1\n   c: [\n", "YAML"},
		{"e.toml", "a = 1\n", "a = 1\n", "a = \"x\n", "TOML"},
		{"Makefile", "all:\n\tgo build\n", "\tgo build\n", "    go build\n", "instead of a tab"},
		{"doc.md", "# T\n\n```go\nx\n```\n", "```go\nx\n```\n", "```go\nx\n", "never closed"},
		{"p.py", "def f():\n    return 1\n", "    return 1\n", "    x = 1\n      return 1\n", "IndentationError"},
	} {
		files := mapFiles{c.path: c.before}
		res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: c.path, OldText: c.old, NewText: c.new})
		t.Run(c.path, func(t *testing.T) { refused(t, res, c.want) })
	}
	// JSONC keeps its comments and trailing commas when it had them.
	files := mapFiles{"settings.json": "{\n  // editor\n  \"a\": 1,\n}\n"}
	res := verifyOne(t, files, "", Edit{Kind: KindEdit, Path: "settings.json", OldText: "\"a\": 1,", NewText: "\"a\": 2,"})
	if len(res.Failures) != 0 {
		t.Errorf("JSONC edit refused: %+v", res.Failures)
	}
}

// The syntax row singles out the edit that breaks the file; the other
// edits of the file are held back with it, and two edits that are each
// broken but together whole pass.
func TestVerifySyntaxBlamesTheBreakingEdit(t *testing.T) {
	files := mapFiles{"store.go": storeGo}
	res := Resolve([]Edit{
		{Kind: KindEdit, Path: "store.go", OldText: "\treturn 1\n", NewText: "\treturn 2\n"},
		{Kind: KindEdit, Path: "store.go", OldText: "func Put(v int) {\n", NewText: "func Put(v int) {\n\tif v > 0 {\n"},
	}, files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "syntax error") || res.Failures[0].Index != 1 {
		t.Fatalf("hunks %+v failures %+v", res.Hunks, res.Failures)
	}
	if len(res.HeldBack) != 1 || res.HeldBack[0].Index != 0 || res.HeldBack[0].Failed != 1 {
		t.Fatalf("held back %+v", res.HeldBack)
	}
	res = Resolve([]Edit{
		{Kind: KindEdit, Path: "store.go", OldText: "func Put(v int) {\n", NewText: "func Put(v int) {\n\tif v > 0 {\n"},
		{Kind: KindEdit, Path: "store.go", OldText: "\tsave(v)\n}\n", NewText: "\tsave(v)\n\t}\n}\n"},
	}, files, Options{})
	if len(res.Failures) != 0 || len(res.Hunks) != 1 {
		t.Errorf("pair: hunks %d failures %+v", len(res.Hunks), res.Failures)
	}
}

// TestArtefactFirstBytes: every line an artefact row's regexp matches
// passes the row's cheap first-byte test, so the test never hides one.
func TestArtefactFirstBytes(t *testing.T) {
	lines := []string{"<<<<<<< SEARCH", ">>>>>>> REPLACE", "------- SEARCH", "+++++++ REPLACE", "=======", "======= ",
		"*** Begin Patch", "*** End of File", "diff --git a/x b/x", "@@ -1,2 +3,4 @@", "index 0123abc..4567def", "--- a/x", "+++ b/x",
		":start_line: 3", `\:end_line:`, "  <tool_call>", "</parameter>", `  {"name": "edit_file"`, `"old_text": "x"`,
		"[... 40 more lines ...]", "  (output truncated)", "... 12 lines omitted", "… clipped", "<3 lines hidden>", "{truncated}"}
	for _, l := range lines {
		matched := false
		for _, a := range artefacts {
			if !a.line.MatchString(l) {
				continue
			}
			matched = true
			if b := firstByte(l); b != 0 && !strings.ContainsRune(a.first, rune(b)) && strings.IndexByte(a.first, b) < 0 {
				t.Errorf("%q matches %s but its first byte %q is not in %q", l, a.what, b, a.first)
			}
		}
		if !matched {
			t.Errorf("%q: no row matches it; the example is wrong", l)
		}
	}
}
