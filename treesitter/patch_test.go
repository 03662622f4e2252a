package treesitter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// patchFixture is a small Go workspace: a.go uses b.go, c.go uses a.go.
func patchFixture(t *testing.T) (*Index, chan struct{}) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a.go": "package p\n\nfunc Alpha() int { return Beta() }\n",
		"b.go": "package p\n\nfunc Beta() int { return 1 }\n",
		"c.go": "package p\n\nfunc Gamma() int { return Alpha() }\n",
		"d.go": "package p\n\nfunc Delta() int { return 4 }\n",
	}
	var names []string
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	ix := NewIndex(dir, "")
	if _, err := ix.Build(context.Background(), names); err != nil {
		t.Fatal(err)
	}
	rebuilt := make(chan struct{}, 16)
	ix.rebuilt = func() { rebuilt <- struct{}{} }
	return ix, rebuilt
}

// current is the graph a map would use now, and whether it is stale.
func current(ix *Index) (*graph, bool) {
	st := ix.lock()
	defer ix.mu.Unlock()
	return st.ranks, st.stale
}

// linkTargets names the files a file links to, sorted.
func linkTargets(g *graph, file string) []string {
	var out []string
	i, _ := g.at(file)
	for _, l := range g.rows[i] {
		out = append(out, g.paths[l.to])
	}
	slices.Sort(out)
	return out
}

func userNames(g *graph, name string) []string {
	var out []string
	if id := g.name(name); id >= 0 {
		for _, u := range g.usersOf(id) {
			out = append(out, g.paths[u])
		}
	}
	return out
}

// TestMapAfterUpdateShowsTheChangeWithoutWaiting: a saved file is in the
// very next map (its new definitions, its new links, and as a caller of
// what it now uses) without a full graph build; the exact graph then
// replaces the patched one in the background and agrees with it.
func TestMapAfterUpdateShowsTheChangeWithoutWaiting(t *testing.T) {
	ix, rebuilt := patchFixture(t)
	ix.Map(MapRequest{Tokens: 1000}) // the first graph
	before, _ := current(ix)

	// a.go stops using Beta, starts using Delta, and defines Epsilon.
	ix.Update("a.go", []byte("package p\n\nfunc Alpha() int { return Delta() }\n\nfunc Epsilon() {}\n"))
	g, stale := current(ix)
	if g == before || !stale {
		t.Fatal("the update neither patched the graph nor marked it stale")
	}
	if got := linkTargets(g, "a.go"); !slices.Equal(got, []string{"d.go"}) {
		t.Errorf("patched a.go links to %v, want [d.go]", got)
	}
	if got := userNames(g, "Delta"); !slices.Equal(got, []string{"a.go"}) {
		t.Errorf("patched users of Delta: %v, want [a.go]", got)
	}
	if got := userNames(g, "Beta"); len(got) != 0 {
		t.Errorf("patched users of Beta: %v, want none", got)
	}
	if got := linkTargets(before, "a.go"); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("the patch changed the graph it copied: a.go links to %v there", got)
	}

	m := ix.Map(MapRequest{Focus: []string{"d.go"}, Tokens: 1000})
	if !strings.Contains(m, "func Epsilon()") || !strings.Contains(m, "a.go") {
		t.Errorf("the map after the update lacks a.go's new definition:\n%s", m)
	}
	select {
	case <-rebuilt:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("the background rebuild never finished")
	}
	exact, stale := current(ix)
	if stale {
		t.Fatal("still stale after a rebuild with no change meanwhile")
	}
	for _, f := range []string{"a.go", "b.go", "c.go", "d.go"} {
		if p, e := linkTargets(g, f), linkTargets(exact, f); !slices.Equal(p, e) {
			t.Errorf("%s links: patched %v, rebuilt %v", f, p, e)
		}
	}
	for _, name := range []string{"Alpha", "Beta", "Delta", "Epsilon"} {
		if p, e := userNames(g, name), userNames(exact, name); !slices.Equal(p, e) {
			t.Errorf("users of %s: patched %v, rebuilt %v", name, p, e)
		}
	}
}

// TestRemoveAndAddWhileRebuilding: files removed or added reach the graph
// through the rebuild; a removed file leaves the map at once.
func TestRemoveAndAddWhileRebuilding(t *testing.T) {
	ix, rebuilt := patchFixture(t)
	ix.Map(MapRequest{Tokens: 1000})
	ix.Remove("b.go")
	if m := ix.Map(MapRequest{Tokens: 1000}); strings.Contains(m, "Beta") {
		t.Errorf("a removed file is still in the map:\n%s", m)
	}
	<-rebuilt
	ix.Update("e.go", []byte("package p\n\nfunc Eta() int { return Gamma() }\n"))
	ix.Map(MapRequest{Tokens: 1000}) // starts the rebuild that adds e.go
	<-rebuilt
	if m := ix.Map(MapRequest{Tokens: 1000}); !strings.Contains(m, "func Eta()") || strings.Contains(m, "Beta") {
		t.Errorf("after the rebuilds the map should have e.go and not b.go:\n%s", m)
	}
	if _, stale := current(ix); stale {
		t.Error("stale after rebuilding with no change meanwhile")
	}
}

// TestUpdatesAndMapsConcurrently: saves and maps at the same time (run with
// -race) end in the exact graph of the final files.
func TestUpdatesAndMapsConcurrently(t *testing.T) {
	ix, rebuilt := patchFixture(t)
	ix.rebuilt = nil
	ix.Map(MapRequest{Tokens: 1000})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if w%2 == 0 {
					ix.Update("a.go", []byte(fmt.Sprintf("package p\n\nfunc Alpha%d() int { return Beta() + Delta() }\n", i)))
				} else {
					ix.Map(MapRequest{Focus: []string{"a.go"}, Tokens: 500})
				}
			}
		}()
	}
	wg.Wait()
	ix.mu.Lock()
	ix.rebuilt = func() { rebuilt <- struct{}{} }
	st := ix.st
	busy := st.rebuilding
	ix.mu.Unlock()
	if busy {
		<-rebuilt // let the rebuild in flight finish
	}
	for {
		ix.Map(MapRequest{Tokens: 500})
		if _, stale := current(ix); !stale {
			break
		}
		<-rebuilt
	}
	g, _ := current(ix)
	if got := linkTargets(g, "a.go"); !slices.Equal(got, []string{"b.go", "d.go"}) {
		t.Errorf("a.go links to %v, want [b.go d.go]", got)
	}
}
