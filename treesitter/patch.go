package treesitter

import (
	"maps"
	"slices"
)

// A full graph build reads every reference of every file (about 0.5-1 s of
// CPU on GOROOT/src), too much to pay on the next map each time the user
// saves a file. So a changed file is patched into a copy of the graph in a
// few milliseconds, and the exact graph is rebuilt in the background
// (index.go, Index.graph). The patch makes the changed file's own part
// exact: its definitions (what the map prints), its links to the files it
// references, and its place among the users of each name (how the callers
// of a focus file are found). What it leaves for the rebuild: links from
// other files to a name the changed file starts or stops defining, and the
// name weights that depend on how many files use a name (one file in
// thousands moves them very little).

// patched returns a copy of g in which file i has the entry e. g is not
// changed: maps being rendered from it meanwhile stay consistent.
func (g *graph) patched(i int32, e *entry) *graph {
	ft := e.fileTags()
	p := *g
	p.src = slices.Clone(g.src)
	p.src[i] = e
	p.extra = maps.Clone(g.extra)
	p.extraNames = slices.Clip(g.extraNames) // appends copy
	p.usersPatch = maps.Clone(g.usersPatch)

	p.defNames = slices.Clone(g.defNames)
	defNames := make([]int32, len(ft.Defs))
	for j, d := range ft.Defs {
		id := p.name(d.Name)
		if id < 0 {
			// A name no file defined at the build: only this file defines
			// it, and no file is counted as using it yet.
			id = int32(p.nameCount)
			p.nameCount++
			p.extraNames = append(p.extraNames, extraName{definers: []int32{i}, weight: p.nameWeight(d.Name, 1, 0)})
			if p.extra == nil {
				p.extra = map[string]int32{}
			}
			p.extra[d.Name] = id
		}
		defNames[j] = id
	}
	p.defNames[i] = defNames

	before := resolveRefs(g, g.ft(i).Refs)
	after := resolveRefs(&p, ft.Refs)
	row, total := newRowBuilder(len(p.paths)).appendRow(&p, nil, i, after)
	p.rows = slices.Clone(g.rows)
	p.rows[i] = row
	p.outW = slices.Clone(g.outW)
	p.outW[i] = total
	p.pushAt = slices.Clone(g.pushAt)
	p.pushAt[i] = pushEpsilon * float64(max(1, len(row)))

	was := make(map[int32]bool, len(before))
	for _, id := range before {
		was[id] = true
	}
	for _, id := range after {
		if !was[id] {
			p.setUser(id, i, true)
		}
		delete(was, id)
	}
	for id := range was {
		p.setUser(id, i, false)
	}
	return &p
}

// resolveRefs looks a file's references up among g's names.
func resolveRefs(g *graph, refs []string) []int32 {
	var out []int32
	for _, r := range refs {
		if id := g.name(r); id >= 0 {
			out = append(out, id)
		}
	}
	return out
}

// setUser adds file i to, or removes it from, the users of name id,
// keeping the list in path order; the list is copied, never changed in
// place (other graphs share it, and a mapped graph file is read-only).
func (g *graph) setUser(id int32, i int32, uses bool) {
	users := g.usersOf(id)
	at, found := slices.BinarySearch(users, i)
	if found == uses {
		return
	}
	if uses {
		users = slices.Insert(slices.Clone(users), at, i)
	} else {
		users = slices.Delete(slices.Clone(users), at, at+1)
	}
	if g.usersPatch == nil {
		g.usersPatch = map[int32][]int32{}
	}
	g.usersPatch[id] = users
}
