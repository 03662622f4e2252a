package treesitter

import (
	"errors"
	"strings"
	"testing"
)

func TestSyntaxCheckCatchesNewErrors(t *testing.T) {
	cases := []struct {
		name, path, before, after string
		line                      int
		mentions                  string // in the message
	}{
		{
			name:   "go missing brace",
			path:   "main.go",
			before: "package main\n\nfunc main() {\n\tprintln(1)\n}\n",
			after:  "package main\n\nfunc main() {\n\tprintln(1)\n",
			line:   5, mentions: "'}'",
		},
		{
			name:   "go stray token",
			path:   "main.go",
			before: "package main\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n",
			after:  "package main\n\nfunc add(a, b int) int {\n\treturn a + + ) b\n}\n",
			line:   4,
		},
		{
			name:   "python unclosed call",
			path:   "app.py",
			before: "def f(x):\n    return g(x)\n\n\ndef g(y):\n    return y\n",
			after:  "def f(x):\n    return g(x\n\n\ndef g(y):\n    return y\n",
			line:   2,
		},
		{
			name:   "typescript broken signature",
			path:   "src/a.ts",
			before: "export function area(r: number): number {\n  return r * r;\n}\n",
			after:  "export function area(r: number: number {\n  return r * r;\n}\n",
			line:   1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := SyntaxCheck(c.path, c.before, c.before); err != nil {
				t.Fatalf("unchanged valid text blamed: %v", err)
			}
			err := SyntaxCheck(c.path, c.before, c.after)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("SyntaxCheck = %v, want a *SyntaxError", err)
			}
			if se.Path != c.path || se.Line != c.line || se.Col < 1 {
				t.Errorf("location %s:%d:%d, want %s:%d", se.Path, se.Line, se.Col, c.path, c.line)
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, c.path+":") || !strings.Contains(msg, "syntax error: ") {
				t.Errorf("message %q lacks path and kind", msg)
			}
			if c.mentions != "" && !strings.Contains(msg, c.mentions) {
				t.Errorf("message %q does not name %s", msg, c.mentions)
			}
		})
	}
}

func TestSyntaxCheckKeepsPreexistingErrors(t *testing.T) {
	// The file already has a broken line; the edit adds a valid function
	// above it, moving the error down. The edit is not to blame.
	before := "package main\n\nfunc broken() {\n\treturn 1 +\n}\n"
	after := "package main\n\nfunc added() int {\n\treturn 2\n}\n\nfunc broken() {\n\treturn 1 +\n}\n"
	if SyntaxCheck("main.go", before, before) != nil {
		t.Fatal("identical text blamed")
	}
	if err := SyntaxCheck("main.go", before, after); err != nil {
		t.Fatalf("pre-existing error blamed on the edit: %v", err)
	}
	// A second, new error in the same file is caught.
	worse := strings.Replace(after, "return 2", "return 2 +", 1)
	if err := SyntaxCheck("main.go", before, worse); err == nil {
		t.Fatal("new error next to a pre-existing one was not caught")
	}
}

func TestSyntaxCheckUnsupported(t *testing.T) {
	if err := SyntaxCheck("notes.md", "# a", "# a ((("); err != nil {
		t.Fatalf("unsupported language: %v, want nil", err)
	}
}

func FuzzSyntaxCheck(f *testing.F) {
	f.Add("main.go", "package main\nfunc main() {}\n", "package main\nfunc main() {\n")
	f.Add("a.py", "def f():\n    pass\n", "def f(:\n")
	f.Add("a.ts", "let x: number = 1;", "let x: = ;")
	f.Add("a.rb", "class A\nend\n", "class A\n")
	f.Add("tool", "#!/bin/sh\necho hi\n", "#!/bin/sh\nif then fi\n")
	f.Fuzz(func(t *testing.T, path, before, after string) {
		err := SyntaxCheck(path, before, after)
		var se *SyntaxError
		if err != nil && (!errors.As(err, &se) || se.Line < 1 || se.Col < 1) {
			t.Fatalf("bad error %v", err)
		}
	})
}

func FuzzTags(f *testing.F) {
	f.Add("main.go", []byte("package main\nfunc main() { f() }\n"))
	f.Add("a.py", []byte("class A:\n  def f(self): g()\n"))
	f.Add("a.cpp", []byte("namespace n { class C { void f(); }; }"))
	f.Add("a.tsx", []byte("export const A = () => <div/>;"))
	f.Add("a.sh", []byte("\xff\xfe f() { :; }"))
	f.Fuzz(func(t *testing.T, path string, src []byte) {
		tags, err := Tags(path, src)
		if err != nil {
			return
		}
		for _, tg := range tags {
			if tg.Def && (tg.Line < 1 || strings.Contains(tg.Signature, "\n")) {
				t.Fatalf("bad tag %+v", tg)
			}
		}
	})
}

func TestPythonIndentationCheck(t *testing.T) {
	before := "def f(x):\n    if x:\n        return 1\n    return 2\n"
	for _, tt := range []struct {
		name, after, want string
	}{
		// A re-indented diff left a 9-space line in an 8-space block.
		{"unindent", "def f(x):\n    if x:\n        y = 1\n         return y\n    return 2\n", "unexpected indent"},
		{"dedent to no level", "def f(x):\n    if x:\n        return 1\n  return 2\n", "unindent does not match any outer indentation level"},
		{"empty block", "def f(x):\n    if x:\n    return 2\n", "expected an indented block"},
	} {
		err := SyntaxCheck("m.py", before, tt.after)
		if err == nil || !strings.Contains(err.Error(), "IndentationError: "+tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	for _, ok := range []string{
		"def f(x):\n    if x:\n        return 1\n    return 2\n\n\ndef g(\n        a,\n        b,\n):\n    s = \"\"\"\n  text\n\"\"\"\n    return (a +\n  b)\n",
		"class A:\n\tdef m(self):  # tabs\n\t\treturn {\n  'k': 1}\n",
	} {
		if line, msg := pythonIndentError(ok); line != 0 {
			t.Errorf("valid Python refused at line %d: %s\n%s", line, msg, ok)
		}
	}
	// An indentation error already in the file is not blamed on the edit.
	bad := "def f():\n    x = 1\n      y = 2\n"
	if err := SyntaxCheck("m.py", bad, bad+"z = 3\n"); err != nil {
		t.Errorf("old error blamed: %v", err)
	}
}
