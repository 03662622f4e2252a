package treesitter

import (
	"slices"
	"testing"
)

// TestDefinitionsBelowTheDepthLimit: the query skips function bodies, so a
// type declared inside a function is not part of the file's map, while
// top-level and interface definitions still are. It also proves the limit
// reaches the C cursor (with no limit the local type would be listed).
func TestDefinitionsBelowTheDepthLimit(t *testing.T) {
	if !cursorPointerOK {
		t.Fatal("the pinned go-tree-sitter's QueryCursor layout changed: the depth limit is off and cold indexing walks every node")
	}
	src := []byte(`package p

type Reader interface {
	Read(p []byte) (int, error)
}

func Outer() {
	type local struct{}
	func() {
		type deeper int
	}()
}
`)
	var names []string
	for _, tg := range freshTags(t, "p.go", src) {
		if tg.Def {
			names = append(names, tg.Kind+" "+tg.Name)
		}
	}
	want := []string{"interface Reader", "method Read", "function Outer"}
	if !slices.Equal(names, want) {
		t.Fatalf("definitions %v, want %v", names, want)
	}
}
