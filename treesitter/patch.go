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

// patched returns a copy of g in which file i has the tags ft. g is not
// changed: maps being rendered from it meanwhile stay consistent.
func (g *graph) patched(i int32, ft *fileTags) *graph {
	p := *g
	p.tags = slices.Clone(g.tags)
	p.tags[i] = ft
	p.extra = maps.Clone(g.extra)
	p.usersPatch = maps.Clone(g.usersPatch)

	p.defNames = slices.Clone(g.defNames)
	defNames := make([]*nameInfo, len(ft.Defs))
	for j, d := range ft.Defs {
		ni := p.name(d.Name)
		if ni == nil {
			// A name no file defined at the build: only this file defines
			// it, and no file is counted as using it yet.
			ni = &nameInfo{id: int32(p.nameCount), definers: []int32{i}, landmark: 1}
			ni.weight = p.nameWeight(d.Name, ni)
			p.nameCount++
			if p.extra == nil {
				p.extra = map[string]*nameInfo{}
			}
			p.extra[d.Name] = ni
		}
		defNames[j] = ni
	}
	p.defNames[i] = defNames

	before := resolveRefs(g, g.tags[i].Refs)
	after := resolveRefs(&p, ft.Refs)
	row, total := newRowBuilder(len(p.paths)).appendRow(nil, i, after)
	p.rows = slices.Clone(g.rows)
	p.rows[i] = row
	p.outW = slices.Clone(g.outW)
	p.outW[i] = total
	p.pushAt = slices.Clone(g.pushAt)
	p.pushAt[i] = pushEpsilon * float64(max(1, len(row)))

	was := make(map[*nameInfo]bool, len(before))
	for _, ni := range before {
		was[ni] = true
	}
	for _, ni := range after {
		if !was[ni] {
			p.setUser(ni, i, true)
		}
		delete(was, ni)
	}
	for ni := range was {
		p.setUser(ni, i, false)
	}
	return &p
}

// resolveRefs looks a file's references up among g's names.
func resolveRefs(g *graph, refs []string) []*nameInfo {
	var out []*nameInfo
	for _, r := range refs {
		if ni := g.name(r); ni != nil {
			out = append(out, ni)
		}
	}
	return out
}

// setUser adds file i to, or removes it from, the users of ni, keeping the
// list in path order; the list is copied, never changed in place (other
// graphs share it).
func (g *graph) setUser(ni *nameInfo, i int32, uses bool) {
	users := g.usersOf(ni)
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
		g.usersPatch = map[*nameInfo][]int32{}
	}
	g.usersPatch[ni] = users
}
