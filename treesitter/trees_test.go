package treesitter

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// freshTags is what a full parse of src gives.
func freshTags(t testing.TB, rel string, src []byte) []Tag {
	t.Helper()
	ix := NewIndex(t.TempDir(), "")
	ix.Update(rel, src)
	return ix.FileTags(rel)
}

// TestUpdateIncrementalMatchesFullParse: a file edited again and again is
// re-parsed from its kept tree, and each time its tags are exactly those of
// a full parse of the new text (edits at the start, middle and end, that
// insert, delete and replace, in several languages).
func TestUpdateIncrementalMatchesFullParse(t *testing.T) {
	for _, name := range []string{"sample.go", "sample.py", "sample.ts", "sample.rs"} {
		src, err := os.ReadFile(filepath.Join("testdata", "tags", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			ix := NewIndex(t.TempDir(), "")
			rng := rand.New(rand.NewPCG(1, uint64(len(src))))
			cur := src
			ix.Update(name, cur)
			insertions := [][]byte{
				[]byte("\nfunc Added() {}\n"), []byte("\ndef added():\n    pass\n"),
				[]byte("\nclass Added {}\n"), []byte("\nfn added() {}\n"), []byte("X"), []byte("\n"),
			}
			for step := 0; step < 40; step++ {
				at := rng.IntN(len(cur) + 1)
				end := min(len(cur), at+rng.IntN(20))
				ins := insertions[rng.IntN(len(insertions))]
				if rng.IntN(3) == 0 {
					ins = nil // a deletion
				}
				next := append(append(append([]byte(nil), cur[:at]...), ins...), cur[end:]...)
				ix.Update(name, next)
				kept := ix.trees.take(name)
				if kept == nil {
					t.Fatalf("step %d: no tree kept for the next incremental parse", step)
				}
				ix.trees.put(kept)
				want := freshTags(t, name, next)
				if got := ix.FileTags(name); !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d (replace [%d,%d) with %q): incremental tags differ from a full parse\n got %v\nwant %v",
						step, at, end, ins, got, want)
				}
				cur = next
			}
		})
	}
}

// TestRecentTreesBounded: the kept trees stay within their count and byte
// limits whatever is updated.
func TestRecentTreesBounded(t *testing.T) {
	ix := NewIndex(t.TempDir(), "")
	for i := 0; i < 3*maxRecentTrees; i++ {
		ix.Update(fmt.Sprintf("f%d.go", i), []byte(fmt.Sprintf("package p\nfunc F%d() {}\n", i)))
	}
	big := make([]byte, maxRecentTreeBytes/2)
	for i := range big {
		big[i] = '\n'
	}
	copy(big, "package p\n")
	ix.Update("big1.go", big)
	ix.Update("big2.go", big)
	ix.Update("big3.go", big)
	ix.trees.mu.Lock()
	n, bytes := len(ix.trees.list), ix.trees.bytes
	ix.trees.mu.Unlock()
	if n > maxRecentTrees || bytes > maxRecentTreeBytes {
		t.Fatalf("%d trees over %d bytes kept; limits %d trees, %d bytes", n, bytes, maxRecentTrees, maxRecentTreeBytes)
	}
	ix.Remove("big3.go")
	if ix.trees.take("big3.go") != nil {
		t.Fatal("a removed file's tree is still kept")
	}
}

// FuzzIncrementalUpdate: for any old and new text, the tags after an
// incremental re-parse equal those of a full parse of the new text.
func FuzzIncrementalUpdate(f *testing.F) {
	f.Add([]byte("package p\nfunc A() {}\n"), []byte("package p\nfunc A() {}\nfunc B() { A() }\n"))
	f.Add([]byte("package p\ntype T struct{}\n"), []byte("package p\n"))
	f.Add([]byte("package p\nvar x = `a\nb`\n"), []byte("package p\nvar x = `a\n/* b`\n"))
	f.Add([]byte("package p\n// é\nconst C = 'é'\n"), []byte("package p\n// e\nconst C = 'é'\n"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		if len(old) > 4096 || len(new) > 4096 {
			return
		}
		ix := NewIndex(t.TempDir(), "")
		ix.Update("f.go", old)
		ix.Update("f.go", new)
		if got, want := ix.FileTags("f.go"), freshTags(t, "f.go", new); !reflect.DeepEqual(got, want) {
			t.Fatalf("incremental tags differ from a full parse\n got %v\nwant %v", got, want)
		}
	})
}

// TestEditBetween: the edit spans exactly the changed bytes, with rows and
// byte columns.
func TestEditBetween(t *testing.T) {
	e := editBetween([]byte("ab\ncd\nef"), []byte("ab\ncXYd\nef"))
	if e.StartIndex != 4 || e.OldEndIndex != 4 || e.NewEndIndex != 6 ||
		e.StartPoint.Row != 1 || e.StartPoint.Column != 1 || e.NewEndPoint.Row != 1 || e.NewEndPoint.Column != 3 {
		t.Fatalf("insertion: %+v", e)
	}
	e = editBetween([]byte("aaa"), []byte("aa"))
	if e.StartIndex != 2 || e.OldEndIndex != 3 || e.NewEndIndex != 2 {
		t.Fatalf("deletion of a repeated byte: %+v", e)
	}
	e = editBetween([]byte("x\ny"), []byte("z"))
	if e.StartIndex != 0 || e.OldEndIndex != 3 || e.NewEndIndex != 1 || e.OldEndPoint.Row != 1 || e.OldEndPoint.Column != 1 {
		t.Fatalf("replacement: %+v", e)
	}
}

// TestWarmMakesTheFirstChangeIncremental: a file the editor opened has its
// tree kept, and the first save after it gives the tags of a full parse.
func TestWarmMakesTheFirstChangeIncremental(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "tags", "sample.go"))
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(t.TempDir(), "")
	ix.Update("sample.go", src)
	ix.trees.drop("sample.go") // as after a cold Build: tags, no tree
	ix.Warm("sample.go", src)
	if !ix.trees.has("sample.go") {
		t.Fatal("Warm kept no tree")
	}
	ix.Warm("sample.go", src) // again: still one tree
	ix.trees.mu.Lock()
	n := len(ix.trees.list)
	ix.trees.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d trees kept for one file", n)
	}
	edited := append([]byte("// edited\n"), src...)
	ix.Update("sample.go", edited)
	if got, want := ix.FileTags("sample.go"), freshTags(t, "sample.go", edited); !reflect.DeepEqual(got, want) {
		t.Fatalf("tags after a warmed update differ from a full parse\n got %v\nwant %v", got, want)
	}
	ix.Warm("notes.txt", []byte("not code")) // unsupported: nothing kept
	if ix.trees.has("notes.txt") {
		t.Fatal("kept a tree for an unsupported file")
	}
}
