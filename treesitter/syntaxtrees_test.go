package treesitter

import (
	"strings"
	"testing"
)

// agree checks that SyntaxCheckRegions gives exactly SyntaxCheck's verdict
// and message for after = before with regions [start, end) replaced.
func agree(t *testing.T, path, before string, edits ...[3]any) {
	t.Helper()
	var regions []Region
	var b strings.Builder
	at := 0
	for _, e := range edits {
		s, end, text := e[0].(int), e[1].(int), e[2].(string)
		b.WriteString(before[at:s])
		b.WriteString(text)
		at = end
		regions = append(regions, Region{Start: s, End: end, Len: len(text)})
	}
	b.WriteString(before[at:])
	after := b.String()
	for round := 0; round < 2; round++ { // the second one with before's tree kept
		full, inc := SyntaxCheck(path, before, after), SyntaxCheckRegions(path, before, after, regions)
		if (full == nil) != (inc == nil) || full != nil && full.Error() != inc.Error() {
			t.Fatalf("%s, round %d: regions give %v, a full parse %v\nafter:\n%s", path, round, inc, full, after)
		}
	}
}

func TestSyntaxCheckRegionsAgreesWithAFullParse(t *testing.T) {
	goSrc := "package p\n\nfunc a(x int) int {\n\tif x > 1 {\n\t\treturn 2\n\t}\n\treturn x\n}\n\nfunc b() string { return \"b\" }\n"
	i := strings.Index(goSrc, "x > 1")
	j := strings.Index(goSrc, "return 2")
	k := strings.Index(goSrc, "\"b\"")
	agree(t, "p.go", goSrc, [3]any{i, i + 5, "x >= 1"})                                   // clean
	agree(t, "p.go", goSrc, [3]any{i, i + 5, "x >= 1"}, [3]any{k, k + 3, "\"bee\""})      // two regions, clean
	agree(t, "p.go", goSrc, [3]any{i, i + 5, "x >= 1 {"})                                 // an extra brace
	agree(t, "p.go", goSrc, [3]any{j, j + 8, "return 2\n\t}\n}\n\nfunc c() {\n\tx := 1"}) // lines added, clean
	agree(t, "p.go", goSrc, [3]any{j, j + 8, "}"}, [3]any{k, k + 3, "\"b"})               // two errors
	js := "function f(a) {\n  const b = a + 1;\n  return b;\n}\n"
	m := strings.Index(js, "a + 1")
	agree(t, "f.js", js, [3]any{m, m + 5, "a * 2"})
	agree(t, "f.js", js, [3]any{m, m + 5, "a * (2"})
	// Python goes to the full parse (its indentation reads columns).
	py := "def f():\n    return 1\n"
	n := strings.Index(py, "1")
	agree(t, "f.py", py, [3]any{n, n + 1, "(1"})
	agree(t, "f.py", py, [3]any{n, n + 1, "2"})
}

// FuzzSyntaxCheckRegions: for any file and any one or two replaced ranges,
// the verdict and message of the incremental check are a full parse's.
func FuzzSyntaxCheckRegions(f *testing.F) {
	f.Add("p.go", "package p\nfunc a() { x := 1; _ = x }\n", 20, 26, "y := 2", 30, 31, "y")
	f.Add("f.js", "let a = [1, 2];\nf(a);\n", 8, 14, "[1, (2]", 16, 16, "")
	f.Add("m.c", "int main(void) {\n  return 0;\n}\n", 26, 27, "1 +", 0, 0, "")
	f.Fuzz(func(t *testing.T, path, before string, s1, e1 int, t1 string, s2, e2 int, t2 string) {
		if len(before) > 2048 || len(t1) > 256 || len(t2) > 256 {
			return
		}
		in := func(v int) int {
			if v < 0 {
				v = -v
			}
			return v % (len(before) + 1)
		}
		s1, e1, s2, e2 = in(s1), in(e1), in(s2), in(e2)
		if e1 < s1 {
			s1, e1 = e1, s1
		}
		if e2 < s2 {
			s2, e2 = e2, s2
		}
		edits := [][3]any{{s1, e1, t1}}
		if s2 >= e1 {
			edits = append(edits, [3]any{s2, e2, t2})
		}
		agree(t, path, before, edits...)
	})
}
