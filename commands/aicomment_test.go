package commands

import (
	"strings"
	"testing"
)

func TestFindAIComment(t *testing.T) {
	goSrc := "package x\n\n// AI: extract the retry loop\n// into a helper named retry\n\n// unrelated\nfunc f() {}\n"
	pySrc := "import os\n# AI: add type hints\ndef f(a):\n    return a  # ai: not this one\n"
	cases := []struct {
		name, path, text string
		line             int
		task             string
		ok               bool
	}{
		{"on the line", "a.go", goSrc, 2, "extract the retry loop\ninto a helper named retry", true},
		{"inside the block", "a.go", goSrc, 3, "extract the retry loop\ninto a helper named retry", true},
		{"line below", "a.go", goSrc, 4, "extract the retry loop\ninto a helper named retry", true},
		{"far away", "a.go", goSrc, 6, "", false},
		{"python", "a.py", pySrc, 2, "add type hints", true},
		{"trailing comment", "a.py", pySrc, 3, "not this one", true},
		{"no comment", "a.go", "package x\n", 0, "", false},
		{"out of range", "a.go", goSrc, 99, "", false},
		{"block comment", "a.c", "/* AI: free the buffer */\nint x;\n", 0, "free the buffer", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := FindAIComment(c.path, c.text, c.line)
			if ok != c.ok || got.Task != c.task {
				t.Fatalf("FindAIComment = %q, %v; want %q, %v", got.Task, ok, c.task, c.ok)
			}
		})
	}
	c, _ := FindAIComment("a.go", goSrc, 2)
	if c.StartLine != 2 || c.EndLine != 3 || c.Title() != "extract the retry loop into a helper named retry" {
		t.Fatalf("block = %+v, title %q", c, c.Title())
	}
}

func FuzzFindAIComment(f *testing.F) {
	f.Add("a.go", "// AI: do it\n// more\n", 0)
	f.Add("a.py", "x = 1  # AI: fix\n", 0)
	f.Add("x", "/*\n * AI: a\n */", 1)
	f.Add("a.lua", "-- AI:\n--\n", -1)
	f.Fuzz(func(t *testing.T, path, text string, line int) {
		c, ok := FindAIComment(path, text, line)
		if !ok {
			return
		}
		n := strings.Count(text, "\n")
		if c.StartLine < 0 || c.StartLine > n || c.EndLine < c.StartLine || c.EndLine > n {
			t.Fatalf("block %d..%d outside the text (%d lines)", c.StartLine, c.EndLine, n+1)
		}
	})
}

func TestNamedFiles(t *testing.T) {
	e := &Engine{}
	got := e.namedFiles("1. In `server/handler.go`, add ctx; e.g. like v1.2 does. Also update README.md and ./cmd/main.go, not http://x.io/a.go.")
	want := []string{"server/handler.go", "README.md", "cmd/main.go"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("namedFiles = %v, want %v", got, want)
	}
}

// A plan path keeps its leading dot (contract §8): .github/workflows/ci.yml is
// not github/workflows/ci.yml.
func TestNamedFilesKeepLeadingDot(t *testing.T) {
	e := &Engine{}
	got := e.namedFiles("1. In `.github/workflows/ci.yml`, add a job. 2. See .aide-notes/x.md.")
	if strings.Join(got, ",") != ".github/workflows/ci.yml,.aide-notes/x.md" {
		t.Fatalf("namedFiles = %v", got)
	}
}
