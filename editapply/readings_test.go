package editapply

import (
	"strings"
	"testing"
)

// The readings of an answer (readings.go): each is resolved and verified,
// and the answer is applied only when they agree.

func TestReadingsToolAndText(t *testing.T) {
	files := mapFiles{"a.py": "A = 1\n", "b.py": "B = 1\n"}
	call := Edit{Kind: KindEdit, Path: "a.py", OldText: "A = 1\n", NewText: "A = 2\n", Source: "tool"}
	same := AlsoInText([]Edit{{Kind: KindEdit, Path: "a.py", OldText: "A = 1\n", NewText: "A = 2\n", Source: "search_replace"}})
	res := Resolve(append([]Edit{call}, same...), files, Options{})
	if len(res.Failures) != 0 || len(res.Hunks) != 1 || len(res.AlreadyApplied) != 0 {
		t.Fatalf("text repeating the call: %+v", res)
	}
	other := AlsoInText([]Edit{{Kind: KindEdit, Path: "b.py", OldText: "B = 1\n", NewText: "B = 2\n", Source: "search_replace"}})
	res = Resolve(append([]Edit{call}, other...), files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) == 0 || !strings.Contains(res.Failures[0].Reason, "3 ways") {
		t.Fatalf("text editing another file beside a call was not refused: %+v", res)
	}
	// Without the mark the text's edits are simply part of the answer.
	plain := []Edit{{Kind: KindEdit, Path: "b.py", OldText: "B = 1\n", NewText: "B = 2\n"}}
	if res := Resolve(append([]Edit{call}, plain...), files, Options{}); len(res.Hunks) != 2 {
		t.Fatalf("unmarked edits: %+v", res)
	}
}

func TestReadingsBareName(t *testing.T) {
	files := mapFiles{"api/conf.py": "X = 1\nY = 1\n", "job/conf.py": "X = 1\nZ = 1\n"}
	e := Edit{Kind: KindEdit, Path: "conf.py", OldText: "Z = 1\n", NewText: "Z = 2\n"}
	res := Resolve([]Edit{e}, files, Options{})
	if len(res.Failures) != 0 || len(res.Hunks) != 1 || res.Hunks[0].Path != "job/conf.py" {
		t.Fatalf("the text fits one file: %+v", res)
	}
	e.OldText, e.NewText = "X = 1\n", "X = 2\n"
	res = Resolve([]Edit{e}, files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "conf.py as api/conf.py | conf.py as job/conf.py") {
		t.Fatalf("the text fits both files: %+v", res)
	}
	// A creation with a bare name is a new file at the root.
	w := Edit{Kind: KindWrite, Path: "conf.py", NewText: "X = 3\n"}
	res = Resolve([]Edit{w}, files, Options{})
	if len(res.Hunks) != 1 || res.Hunks[0].Path != "conf.py" {
		t.Fatalf("a bare-name write: %+v", res)
	}
	// A path with a folder is read as written.
	e.Path = "web/conf.py"
	if res := Resolve([]Edit{e}, files, Options{}); len(res.Hunks) != 0 || !strings.Contains(res.Failures[0].Reason, "does not exist") {
		t.Fatalf("a path with a folder was moved: %+v", res)
	}
}

func TestReadingsFence(t *testing.T) {
	for _, c := range []struct {
		name, cur, content, want, fail string
	}{
		{"new file, bare fence", "", "```\n# T\n```\n", "", "as a wrapper"},
		{"fence says markdown", "# Old\n", "```markdown\n# T\n```\n", "# T\n", ""},
		{"fence says sh", "", "```sh\nmake\n```\n", "```sh\nmake\n```\n", ""},
		{"file is one fence now", "```\nold\n```\n", "```\nnew\n```\n", "```\nnew\n```\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := mapFiles{}
			if c.cur != "" {
				files["doc.md"] = c.cur
			}
			res := Resolve([]Edit{{Kind: KindWrite, Path: "doc.md", NewText: c.content}}, files, Options{})
			if c.fail != "" {
				if len(res.Hunks) != 0 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, c.fail) {
					t.Fatalf("want a refusal naming %q: %+v", c.fail, res)
				}
				return
			}
			if len(res.Failures) != 0 || len(res.Hunks) != 1 {
				t.Fatalf("%+v", res)
			}
			if got, _ := Apply(c.cur, res.Hunks); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestReadingsClosingDivider(t *testing.T) {
	answer := "%s\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n>>>>>>> REPLACE\n"
	for _, c := range []struct {
		path, want, fail string
	}{
		{"m.py", "x = 2\n", ""},
		{"m.md", "", "as its end"},
	} {
		edits, err := ParseText(strings.Replace(answer, "%s", c.path, 1))
		if err != nil {
			t.Fatal(err)
		}
		res := Resolve(edits, mapFiles{c.path: "x = 1\n"}, Options{})
		if c.fail != "" {
			if len(res.Hunks) != 0 || len(res.Failures) == 0 || !strings.Contains(res.Failures[0].Reason, c.fail) {
				t.Fatalf("%s: want a refusal: %+v", c.path, res)
			}
			continue
		}
		if got, _ := Apply("x = 1\n", res.Hunks); got != c.want || len(res.Failures) != 0 {
			t.Fatalf("%s: got %q %+v", c.path, got, res.Failures)
		}
	}
	// With no REPLACE marker the second divider closes the block.
	edits, _ := ParseText("m.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n\nThat is all.\n")
	if len(edits) != 1 || edits[0].Kind != KindEdit || edits[0].NewText != "x = 2\n" {
		t.Fatalf("closing divider: %+v", edits)
	}
}

func TestReadingsDevNull(t *testing.T) {
	edits, err := ParseText("```diff\n--- /dev/null\n+++ m.txt\n@@ ... @@\n-one\n+uno\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	res := Resolve(edits, mapFiles{"m.txt": "one\ntwo\n"}, Options{})
	if got, _ := Apply("one\ntwo\n", res.Hunks); got != "uno\ntwo\n" || len(res.Failures) != 0 {
		t.Fatalf("got %q %+v", got, res.Failures)
	}
	// A file that holds other lines: neither reading passes; the creation
	// over an existing file is the failure reported.
	res = Resolve(edits, mapFiles{"m.txt": "three\n"}, Options{})
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "new file, but it exists") {
		t.Fatalf("%+v", res)
	}
}

// Readings multiply; past maxReadings the answer is read as written.
func TestReadingsBounded(t *testing.T) {
	files := mapFiles{}
	var edits []Edit
	for k := 0; k < 6; k++ {
		files["a/x.py"] = "V = 0\n"
		files["b/x.py"] = "V = 0\n"
		edits = append(edits, Edit{Kind: KindEdit, Path: "x.py", OldText: "V = 0\n", NewText: "V = 1\n"})
	}
	if rs := readingsOf(edits, files, Options{}); len(rs) != 1 {
		t.Fatalf("%d readings, want the answer as written only", len(rs))
	}
}

// FuzzReadings: any answer, read beside a tool call, against a workspace
// with one file name in two folders and a Markdown file: Resolve never
// panics, every failure and held-back edit points at an edit of the
// answer, a refusal for ambiguity proposes nothing, and the hunks stand at
// their ranges.
func FuzzReadings(f *testing.F) {
	f.Add("conf.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n", true)
	f.Add("m.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n>>>>>>> REPLACE\n", false)
	f.Add("```diff\n--- /dev/null\n+++ a/conf.py\n@@ ... @@\n-X = 1\n+X = 3\n```\n", false)
	f.Add("doc.md\n```\n# T\n```\n", true)
	f.Add("a/conf.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 5\n=======\n\nprose\n", true)
	f.Fuzz(func(t *testing.T, answer string, withCall bool) {
		if len(answer) > 4096 {
			return
		}
		files := mapFiles{"a/conf.py": "X = 1\n", "b/conf.py": "X = 1\nY = 2\n", "doc.md": "# Doc\n", "m.py": "x = 1\n"}
		edits, _ := ParseText(answer)
		if withCall {
			edits = append([]Edit{{Kind: KindEdit, Path: "m.py", OldText: "x = 1\n", NewText: "x = 9\n", Source: "tool"}}, AlsoInText(edits)...)
		}
		res := Resolve(edits, files, Options{})
		for _, x := range res.Failures {
			if x.Index < 0 || x.Index >= len(edits) || x.Reason == "" {
				t.Fatalf("failure %+v does not point at an edit of the answer (%d)", x, len(edits))
			}
		}
		for _, h := range res.HeldBack {
			if h.Index < 0 || h.Index >= len(edits) {
				t.Fatalf("held back %+v out of range", h)
			}
		}
		for _, x := range res.Failures {
			if strings.Contains(x.Reason, "ways that give different files") && len(res.Hunks) > 0 {
				t.Fatalf("an ambiguous answer proposed hunks: %+v", res.Hunks)
			}
		}
		checkHunkInvariants(t, res.Hunks, files)
	})
}

// A whole Markdown file whose content opens a code block of its own: the
// first bare closer may be the inner block's. The reading that leaves the
// page's code block unclosed is refused by the verifier.
func TestReadingsInnerFence(t *testing.T) {
	answer := "docs/run.md\n```\n# Run\n\n```sh\nmake\n```\n\nThen open it.\n```\n\nDone.\n"
	edits, err := ParseText(answer)
	if err != nil || len(edits) != 1 || len(edits[0].variants) != 1 {
		t.Fatalf("edits %+v, err %v", edits, err)
	}
	res := Resolve(edits, mapFiles{"docs/run.md": "# Run\n"}, Options{})
	want := "# Run\n\n```sh\nmake\n```\n\nThen open it.\n"
	if got, _ := Apply("# Run\n", res.Hunks); got != want || len(res.Failures) != 0 {
		t.Fatalf("got %q %+v", got, res.Failures)
	}
	// A sentence above a fence is no file name.
	if edits, _ := ParseText("Then run it.\n```\nmake\n```\n"); len(edits) != 0 {
		t.Fatalf("a sentence read as a file: %+v", edits)
	}
	// Without an inner opening fence there is one reading.
	if edits, _ := ParseText("notes.txt\n```\na\n```\nb\n```\n"); len(edits) != 1 || len(edits[0].variants) != 0 {
		t.Fatalf("%+v", edits)
	}
}

// unfence reads every fence the parser reads: backticks, tildes, tags.
func TestUnfenceKinds(t *testing.T) {
	for _, in := range []string{"```go\nx\n```\n", "~~~\nx\n~~~\n", "<source>python\nx\n</source>\n", "<source>\nx\n</source>\n"} {
		if got, ok := unfence(in); !ok || got != "x\n" {
			t.Errorf("unfence(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"```\nx\n~~~\n", "<source>\nx\n```\n", "x\n"} {
		if _, ok := unfence(in); ok {
			t.Errorf("unfence(%q) unwrapped mismatched fences", in)
		}
	}
}
