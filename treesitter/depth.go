package treesitter

/*
#include <stdint.h>
// Defined by the tree-sitter runtime that github.com/smacker/go-tree-sitter
// compiles into the binary; its Go binding does not expose it.
typedef struct TSQueryCursor TSQueryCursor;
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
*/
import "C"

import (
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// The tags query only looks for definitions, and definitions sit near the
// root (a method is at most a few levels under its class or namespace).
// Limiting the depth at which a pattern may start lets the query cursor
// skip function bodies, which are most of a tree's nodes: without it the
// query walked every node and cost about 40% of a parse.

// cursorPointerOK says whether sitter.QueryCursor still begins with the
// pointer to its C cursor, as the pinned binding declares it. The module is
// pinned in go.mod; this guard turns a layout change in some future version
// into a slower index (the depth is simply not limited), never into a write
// through a wrong pointer.
var cursorPointerOK = func() bool {
	t := reflect.TypeOf(sitter.QueryCursor{})
	if t.NumField() == 0 {
		return false
	}
	f := t.Field(0)
	return f.Name == "c" && f.Offset == 0 && f.Type.Kind() == reflect.Pointer &&
		f.Type.Elem().Name() == "_Ctype_struct_TSQueryCursor" &&
		f.Type.Elem().PkgPath() == reflect.TypeOf(sitter.QueryCursor{}).PkgPath()
}()

// setMaxStartDepth limits the depth (0 is the node the query runs on) at
// which qc may start a match; deeper nodes are visited only to finish a
// match begun above. It reports whether the limit was set.
func setMaxStartDepth(qc *sitter.QueryCursor, depth uint32) bool {
	if !cursorPointerOK || qc == nil {
		return false
	}
	c := *(**C.TSQueryCursor)(unsafe.Pointer(qc))
	if c == nil {
		return false
	}
	C.ts_query_cursor_set_max_start_depth(c, C.uint32_t(depth))
	return true
}
