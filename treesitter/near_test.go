package treesitter

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A map asked while the index builds is made from the files near its focus
// as soon as those are indexed, without waiting for the rest: here every
// file outside the focus file's driver and the shared headers, taken after
// the map asked, is held until the map returned, so the map cannot wait
// for the whole build.
func TestMapDuringBuildUsesTheNearFilesFirst(t *testing.T) {
	files := driverTree()
	for i := range 300 { // far away, listed first
		files[fmt.Sprintf("arch/a%03d/setup.c", i)] = fmt.Sprintf("int a%03d_setup(void) { return %d; }\n", i, i)
	}
	// Listed but never indexed: the coverage does not count them.
	const docs = 40
	for i := range docs {
		files[fmt.Sprintf("Documentation/d%03d.rst", i)] = "text\n"
	}
	root, paths := writeTree(t, files)
	sources := len(paths) - docs
	ix := NewIndex(root, "")
	release := make(chan struct{})
	var once sync.Once
	// Files taken after the map asked are held, but for the near ones:
	// the map must not wait for them. (Those taken before go through, as
	// a worker already parsing a far file finishes it.)
	indexHook = func(rel string, asked bool) {
		if !asked || strings.HasPrefix(rel, "drivers/net/e1000/") || strings.HasPrefix(rel, "include/") {
			return
		}
		<-release
	}
	t.Cleanup(func() { once.Do(func() { close(release) }); indexHook = nil })
	built := make(chan Stats, 1)
	go func() {
		st, err := ix.Build(t.Context(), paths)
		if err != nil {
			t.Error(err)
		}
		built <- st
	}()
	<-ix.Started()
	m := ix.Map(MapRequest{Focus: []string{"drivers/net/e1000/main.c"}, Task: "count dropped packets", Tokens: 200})
	cov := ix.Coverage()
	once.Do(func() { close(release) })
	for _, want := range []string{"drivers/net/e1000/main.c", "drivers/net/e1000/e1000.h", "include/linux/skbuff.h"} {
		if !contains(mapFiles(m), want) {
			t.Errorf("the map during the build lacks %s:\n%s", want, m)
		}
	}
	if !cov.Partial() || cov.Listed != sources {
		t.Errorf("Coverage during the build = %+v, want part of the %d source files", cov, sources)
	}
	st := <-built
	if st.Files != sources {
		t.Errorf("the build indexed %d of %d files", st.Files, sources)
	}
	if cov := ix.Coverage(); cov.Partial() || cov.Indexed != sources {
		t.Errorf("Coverage after the build = %+v, want all %d source files", cov, sources)
	}
}

// A map with neither focus nor task, asked while the build runs, waits for
// files that entered the index, not for files merely looked at: a tree
// whose first files in path order are all documentation would otherwise
// give an empty map.
func TestMapDuringBuildWithoutFocusIsNotEmpty(t *testing.T) {
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("Documentation/d%03d.rst", i)] = "Text.\n"
	}
	for i := range 300 {
		files[fmt.Sprintf("kernel/k%03d.c", i)] = fmt.Sprintf("int k%03d_init(void) { return %d; }\n", i, i)
	}
	root, paths := writeTree(t, files)
	ix := NewIndex(root, "")
	release := make(chan struct{})
	var once sync.Once
	// Past the first 256 C files, files are held until the map returned.
	var seen atomic.Int64
	indexHook = func(rel string, asked bool) {
		if strings.HasSuffix(rel, ".c") && seen.Add(1) > nearWait {
			<-release
		}
	}
	built := make(chan struct{})
	t.Cleanup(func() { once.Do(func() { close(release) }); <-built; indexHook = nil })
	go func() { _, _ = ix.Build(context.Background(), paths); close(built) }()
	<-ix.Started()
	m := ix.Map(MapRequest{Tokens: 100})
	once.Do(func() { close(release) })
	if len(mapFiles(m)) == 0 {
		t.Errorf("the map during the build is empty")
	}
}
