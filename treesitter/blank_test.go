package treesitter

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// blanked is src with the bytes of skip but newlines made spaces: what the
// parser reads of it; nil when skip is.
func blanked(src []byte, skip [][2]int) []byte {
	if skip == nil {
		return nil
	}
	out := append([]byte(nil), src...)
	for _, r := range skip {
		for i := r[0]; i < r[1]; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return out
}

func TestSkippable(t *testing.T) {
	src := []byte(`#include <stdio.h>
struct s { int a; };
static int f(int x)
{
	struct local { int b; } l;
#define INSIDE 1
	if (x) { return "}"[0]; } /* } */
	return '{';
}
enum __attribute__((packed)) e { A, B };
int (*g(void))(int) { return 0; }
`)
	out := blanked(src, skippable(src, false))
	if out == nil {
		t.Fatal("no body skipped")
	}
	sp := func(s string) string { return strings.Repeat(" ", len(s)) }
	want := "#include <stdio.h>\nstruct s { int a; };\nstatic int f(int x)\n{\n" +
		sp("\tstruct local { int b; } l;") + "\n#define INSIDE 1\n" +
		sp("\tif (x) { return \"}\"[0]; } /* } */") + "\n" + sp("\treturn '{';") + "\n}\n" +
		"enum __attribute__((packed)) e { A, B };\nint (*g(void))(int) {" + sp(" return 0; ") + "}\n"
	if string(out) != want {
		t.Errorf("blanked:\n%s\nwant:\n%s", out, want)
	}
	for _, unsure := range []string{
		"int f(void) {\n#ifdef A\n\tif (a) {\n#else\n\tif (b) {\n#endif\n\t}\n}\n",
		"int f(void) {\n#if A\n}\n#else\n}\n#endif\n",
		"int f(void) { /* unterminated\n}\n",
		"int f(void) { return \"unterminated\n; }\n",
		"int f(void) { }\n}\n",
	} {
		if skip := skippable([]byte(unsure), false); skip != nil {
			t.Errorf("skips parts of a file it cannot be sure of:\n%s\nskips %v", unsure, skip)
		}
	}
	if skip := skippable([]byte("auto s = R\"({)\"; int f() { return 1; }\n"), true); skip != nil {
		t.Errorf("skips parts of a C++ file with a raw string: %v", skip)
	}
	cpp := []byte("class A { int f() const { return 1'000; } };\n")
	if out := blanked(cpp, skippable(cpp, true)); string(out) != "class A { int f() const {"+sp(" return 1'000; ")+"} };\n" {
		t.Errorf("C++ method: %q", out)
	}
}

// blankedDiff tags src whole and with its bodies blanked, and returns the
// definitions the skimmed parse lost inside function bodies (the loss
// blank.go accepts), the #defines in bodies only it found, a description of every other difference, and whether
// the whole file has syntax errors (then differences are error recovery's).
func blankedDiff(t *testing.T, lang string, src []byte) (lost, found []def, diffs []string, recovered bool) {
	t.Helper()
	tg := newTagger()
	defer tg.parser.Close()
	defer tg.cursor.Close()
	full, err := tg.tag(lang, src)
	if err != nil {
		t.Fatal(err)
	}
	tg.skipBodies = true
	skim, err := tg.tag(lang, src)
	if err != nil {
		t.Fatal(err)
	}
	tg.skipBodies = false
	b := blanker{src: src, cpp: lang == "cpp"}
	b.scan()
	lines := newLineIndex(src)
	inBody := func(line int32) bool {
		for _, r := range b.bodies {
			if int(line) >= lines.line(uint32(r[0])) && int(line) <= lines.line(uint32(r[1])) {
				return true
			}
		}
		return false
	}
	key := func(d def) string { return fmt.Sprintf("%s %s %d %s", d.Kind, d.Name, d.Line, d.Sig) }
	have := map[string]int{}
	for _, d := range skim.Defs {
		have[key(d)]++
	}
	for _, d := range full.Defs {
		k := key(d)
		if have[k] > 0 {
			have[k]--
			continue
		}
		if inBody(d.Line) {
			lost = append(lost, d)
		} else {
			diffs = append(diffs, "lost "+k)
		}
	}
	for _, d := range skim.Defs {
		k := key(d)
		if have[k] == 0 {
			continue
		}
		have[k]--
		if (d.Kind == "constant" || d.Kind == "macro") && inBody(d.Line) {
			// A #define nested deeper in a body than the query looks in
			// the whole tree (defDepths): the skimmed tree has it near
			// the top.
			found = append(found, d)
		} else {
			diffs = append(diffs, "added "+k)
		}
	}
	if len(diffs) > 0 {
		// Where the whole file does not parse cleanly, error recovery
		// differs with what it reads: those differences are counted, not
		// failed.
		g, _ := grammarFor(lang)
		tree, err := tg.parse(g, src, nil)
		if err == nil {
			recovered = tree.RootNode().HasError()
			tree.Close()
		}
	}
	return lost, found, diffs, recovered
}

// TestBlankedDefinitions compares the definitions of C and C++ files
// parsed whole and with their bodies blanked: the testdata fixtures, the C
// files of GOROOT, and with AIDE_PERF_KERNEL=<dir> every C file of a Linux
// kernel tree. Only definitions inside function bodies may be lost, and
// only #defines inside them found; where the whole file has syntax errors,
// error recovery may differ.
func TestBlankedDefinitions(t *testing.T) {
	var files []string
	roots := []string{"testdata", filepath.Join(runtime.GOROOT(), "src")}
	if k := os.Getenv("AIDE_PERF_KERNEL"); k != "" {
		roots = append(roots, k)
	} else if testing.Short() {
		roots = roots[:1]
	}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if l := Language(p, nil); l == "c" || l == "cpp" {
				if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Size() <= maxFileSize {
					files = append(files, p)
				}
			}
			return nil
		})
	}
	var (
		mu                    sync.Mutex
		blanked, total, nlost int
		lostKinds             = map[string]int{}
		diffs                 []string
		lostSample            []string
		recoveredSample       []string
		recoveredDiffs        = map[string]int{}
		recoveredFiles        int
		nfound                int
		next                  = make(chan string)
		wg                    sync.WaitGroup
	)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				src, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				lang := Language(p, nil)
				isBlanked := skippable(src, lang == "cpp") != nil
				lost, found, d, recovered := blankedDiff(t, lang, src)
				mu.Lock()
				total++
				if isBlanked {
					blanked++
				}
				nfound += len(found)
				for _, l := range lost {
					nlost++
					lostKinds[l.Kind]++
					if len(lostSample) < 20 {
						lostSample = append(lostSample, fmt.Sprintf("%s: %s %s %d %s", p, l.Kind, l.Name, l.Line, l.Sig))
					}
				}
				for _, x := range d {
					if recovered {
						recoveredDiffs[x[:strings.IndexByte(x, ' ')]]++
						if len(recoveredSample) < 20 {
							recoveredSample = append(recoveredSample, p+": "+x)
						}
						continue
					}
					diffs = append(diffs, p+": "+x)
				}
				if recovered && len(d) > 0 {
					recoveredFiles++
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
	t.Logf("%d C/C++ files, %d skimmed; %d definitions inside bodies lost: %v; %d #defines in bodies found", total, blanked, nlost, lostKinds, nfound)
	t.Logf("files with syntax errors where error recovery found other definitions: %d (%v)", recoveredFiles, recoveredDiffs)
	if testing.Verbose() {
		t.Logf("lost inside bodies, for example:\n%s", strings.Join(lostSample, "\n"))
		t.Logf("error recovery, for example:\n%s", strings.Join(recoveredSample, "\n"))
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%d differences outside function bodies:\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 60)], "\n"))
	}
}

// FuzzSkippable: the ranges a skimmed parse leaves out are in order,
// apart, inside the file and inside braces, and the file tags without a
// panic.
func FuzzSkippable(f *testing.F) {
	for _, name := range []string{"testdata/tags/sample.c", "testdata/tags/sample.cpp"} {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src, strings.HasSuffix(name, ".cpp"))
		}
	}
	f.Add([]byte("int f(void) {\n#define X {\n\treturn '}';\n}\n"), false)
	f.Add([]byte("void A::f() const { auto s = u8\"}\"; }\n"), true)
	f.Fuzz(func(t *testing.T, src []byte, cpp bool) {
		skip := skippable(src, cpp)
		at := 0
		for _, r := range skip {
			if r[0] < at || r[1] <= r[0] || r[1] > len(src) {
				t.Fatalf("ranges out of order or bounds: %v in %d bytes", skip, len(src))
			}
			if bytes.Count(src[:r[0]], []byte("{")) == 0 || bytes.Count(src[r[1]:], []byte("}")) == 0 {
				t.Fatalf("range %v is not inside braces", r)
			}
			at = r[1]
		}
		if skip != nil {
			ranges := includedRanges(src, skip)
			lines := newLineIndex(src)
			for _, r := range ranges {
				if l := lines.line(r.StartByte); uint32(l-1) != r.StartPoint.Row || r.StartByte-lines.starts[l-1] != r.StartPoint.Column {
					t.Fatalf("range %+v: start is line %d", r, l)
				}
			}
		}
		lang := "c"
		if cpp {
			lang = "cpp"
		}
		tg := newTagger()
		defer tg.parser.Close()
		defer tg.cursor.Close()
		tg.skipBodies = true
		if _, err := tg.tag(lang, src); err != nil {
			t.Fatal(err)
		}
	})
}
