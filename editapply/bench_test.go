package editapply

import (
	"fmt"
	"strings"
	"testing"
)

// genGoFile returns a Go-like file of n lines made of functions of 10 lines
// whose lines are all distinct.
func genGoFile(n int) string {
	var b strings.Builder
	b.WriteString("package big\n")
	lines := 1
	for f := 0; lines < n; f++ {
		fmt.Fprintf(&b, "\nfunc f%d(x int) int {\n\ty := x * %d\n\tif y > %d {\n\t\ty -= %d\n\t}\n\tz := g%d(y)\n\tlog.Printf(\"f%d: %%d\", z)\n\treturn z + %d\n}\n", f, f, f*3, f+1, f, f, f)
		lines += 10
	}
	return b.String()
}

// BenchmarkResolve1000Hunks: 1,000 edit_file edits (three lines each,
// tab-indented, one in four written with spaces so the indentation rung
// runs) resolved against a 10,000-line file, then turned into one
// annotated WorkspaceEdit.
func BenchmarkResolve1000Hunks(b *testing.B) {
	content := genGoFile(10000)
	files := mapFiles{"big.go": content}
	var edits []Edit
	for f := 0; f < 1000; f++ {
		old := fmt.Sprintf("\ty := x * %d\n\tif y > %d {\n\t\ty -= %d\n", f, f*3, f+1)
		neu := fmt.Sprintf("\ty := x * %d\n\tif y >= %d {\n\t\ty -= %d\n", f, f*3, f+2)
		if f%4 == 3 {
			old = strings.ReplaceAll(old, "\t", "    ")
			neu = strings.ReplaceAll(neu, "\t", "    ")
		}
		edits = append(edits, Edit{Kind: KindEdit, Path: "big.go", OldText: old, NewText: neu})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := Resolve(edits, files, Options{})
		if len(res.Hunks) != 1000 || len(res.Failures) != 0 {
			b.Fatalf("hunks %d failures %d", len(res.Hunks), len(res.Failures))
		}
		we := BuildWorkspaceEdit(res.Hunks, func(p string) Doc { return Doc{URI: "file:///big.go", Content: content} }, BuildOptions{Annotated: true, Encoding: UTF16})
		if len(we.DocumentChanges) != 1 {
			b.Fatal("no edit")
		}
	}
}

// BenchmarkFuzzyWorstCase5000: a 5,000-line file in which every line is
// ~95% like every line of a 10- (and 40-) line old_text, so no window can be
// abandoned early and every window scores above the threshold: the fuzzy
// rung does all lines × len(old) comparisons and then refuses (ambiguous).
func BenchmarkFuzzyWorstCase5000(b *testing.B) {
	for _, m := range []int{10, 40} {
		b.Run(fmt.Sprintf("old=%dlines", m), func(b *testing.B) {
			var fb strings.Builder
			for i := 0; i < 5000; i++ {
				fmt.Fprintf(&fb, "\tresults = append(results, item.Field%02d)\n", i%100)
			}
			files := mapFiles{"w.go": fb.String()}
			var ob strings.Builder
			for i := 0; i < m; i++ {
				fmt.Fprintf(&ob, "\tresult = append(result, item.Field%02d)\n", i%100)
			}
			edits := []Edit{{Kind: KindEdit, Path: "w.go", OldText: ob.String(), NewText: "x\n"}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := Resolve(edits, files, Options{})
				if len(res.Failures) != 1 {
					b.Fatalf("want a refusal, got %+v", res)
				}
			}
		})
	}
}

// BenchmarkNotFound5000: the usual failure, old_text nowhere near anything in
// a 5,000-line file (fuzzy scan with early abandonment plus closest lines).
func BenchmarkNotFound5000(b *testing.B) {
	content := genGoFile(5000)
	files := mapFiles{"big.go": content}
	edits := []Edit{{Kind: KindEdit, Path: "big.go", OldText: "func nothing() {\n\treturn\n}\n", NewText: "x\n"}}
	for i := 0; i < b.N; i++ {
		if res := Resolve(edits, files, Options{}); len(res.Failures) != 1 {
			b.Fatal("want a failure")
		}
	}
}

// BenchmarkVerify10000: the verifier alone on the file of
// BenchmarkResolve1000Hunks after its 1,000 edits (one region each), row
// by row: its cost per changed file (docs/performance.md).
func BenchmarkVerify10000(b *testing.B) {
	benchVerify(b, 1000)
}

// BenchmarkVerify10000Few: the same with 10 edits, an answer's usual size.
// The syntax row parses the file after incrementally from the kept tree of
// the file before (treesitter.SyntaxCheckRegions); with 1,000 edits it
// parses it in full, as cheap there.
func BenchmarkVerify10000Few(b *testing.B) {
	benchVerify(b, 10)
}

func benchVerify(b *testing.B, n int) {
	content := genGoFile(10000)
	var edits []Edit
	for f := 0; f < 1000; f += 1000 / n {
		edits = append(edits, Edit{Kind: KindEdit, Path: "big.go",
			OldText: fmt.Sprintf("\tif y > %d {\n", f*3), NewText: fmt.Sprintf("\tif y >= %d {\n", f*3)})
	}
	r := &resolver{files: mapFiles{"big.go": content}, units: newUnits(len(edits))}
	g := &fileGroup{path: "big.go"}
	for n, e := range edits {
		rec := &editRec{Edit: e, n: n, path: "big.go", group: "big.go"}
		r.recs = append(r.recs, rec)
		g.recs = append(g.recs, rec)
	}
	f := r.runFile(g, content, true, nil)
	if len(f.fails) != 0 || len(f.hunks) != n {
		b.Fatalf("fails %d hunks %d", len(f.fails), len(f.hunks))
	}
	for _, row := range verifierChecks {
		b.Run(row.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c := f.change("")
				if ref := row.run(c); ref != nil {
					b.Fatal(ref.reason)
				}
			}
		})
	}
}
