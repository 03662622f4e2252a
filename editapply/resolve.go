package editapply

import (
	"fmt"
	"sort"
	"strings"
)

// Resolve matches each edit against the current content, in order, with the
// matching ladder of design.md, and checks every changed file with the
// verifier (verify.go) before anything is proposed.
//
// Edits to one file resolve in order against the text as the earlier edits
// left it, but every hunk is expressed against the file's current content
// (as files returned it); edits whose ranges overlap or touch are merged into
// one hunk, so the hunks of a file never overlap. Hunk ids are h1, h2, ... in
// the order of the files' first edit, then by position.
//
// opts.Allow is called once for every path (and rename target) the model
// wrote. Resolve runs as named phases over one record per edit, each phase
// reading what the ones before it wrote (as locate's ladder runs rungs).
//
// An answer that can be read more than one way is resolved once per
// reading (readings.go) and applied only when the readings agree.
func Resolve(edits []Edit, files Files, opts Options) Result {
	if rs := readingsOf(edits, files, opts); len(rs) > 1 {
		return agree(rs, files, opts, len(edits))
	}
	return resolveOnce(edits, files, opts)
}

// resolveOnce resolves one reading of an answer.
func resolveOnce(edits []Edit, files Files, opts Options) Result {
	r := &resolver{files: files, opts: opts, units: newUnits(len(edits))}
	for n, e := range edits {
		r.recs = append(r.recs, &editRec{Edit: e, n: n})
	}
	r.vetPaths()
	r.chainRenames()
	r.groupByFile()
	r.transportDamage()
	for _, g := range r.groups {
		r.resolveGroup(g)
	}
	r.holdBackUnits()
	r.number()
	return r.res
}

// editRec is one edit of the answer while it is resolved: the record every
// phase reads and writes.
type editRec struct {
	Edit
	n       int    // position in the answer (Failure.Index, HeldBack.Index)
	path    string // the vetted path; "" when refused or none
	newPath string // the vetted rename target
	group   string // the file whose content it resolves against
	failed  bool
	already bool
}

// fileGroup is the edits that resolve against one file's content, and the
// hunks they came to.
type fileGroup struct {
	path  string
	recs  []*editRec
	hunks []Hunk
}

type resolver struct {
	recs   []*editRec
	files  Files
	opts   Options
	units  units
	groups []*fileGroup
	res    Result
}

func (r *resolver) fail(rec *editRec, reason, closest string) {
	rec.failed = true
	r.res.Failures = append(r.res.Failures, Failure{Edit: rec.Edit, Reason: reason, Closest: closest, Index: rec.n})
}

// vetPaths: every path (and rename target) the model wrote goes through
// opts.Allow once; a refused path fails its edit.
func (r *resolver) vetPaths() {
	for _, rec := range r.recs {
		if rec.Kind == KindInvalid {
			// A block that could not be read still names its file: the
			// file's other edits wait for it.
			if strings.TrimSpace(rec.Path) != "" {
				if p, err := allow(r.opts, rec.Path); err == nil {
					rec.path = p
				}
			}
			r.fail(rec, rec.Reason, "")
			continue
		}
		p, err := allow(r.opts, rec.Path)
		if err != nil {
			r.fail(rec, err.Error(), "")
			continue
		}
		rec.path = gitPrefixed(r.files, p, r.opts)
		if rec.Kind == KindRename {
			np, err := allow(r.opts, intoFolder(r.files, rec.NewPath, rec.path))
			if err != nil {
				// A target the workspace refuses (outside, denied) is
				// refused alone: the file's other edits are judged without
				// it, as they would be had the rename not been written.
				r.fail(rec, err.Error(), "")
				rec.path = ""
				continue
			}
			rec.newPath = np
		}
	}
}

// chainRenames: an edit or write to the new name of a file renamed earlier
// in this answer (and not on disk) is an edit of the renamed file's
// content, applied before the rename.
func (r *resolver) chainRenames() {
	renamedTo := map[string]*editRec{}
	for _, rec := range r.recs {
		rec.group = rec.path
		if from, ok := renamedTo[rec.path]; ok && rec.changesText() {
			if _, exists, _ := r.files.Read(rec.path); !exists {
				rec.group = from.path
			}
		}
		if rec.Kind == KindRename && rec.newPath != "" {
			if _, ok := renamedTo[rec.newPath]; !ok {
				renamedTo[rec.newPath] = rec
			}
		}
	}
}

func (rec *editRec) changesText() bool {
	return rec.Kind == KindEdit || rec.Kind == KindWrite || rec.Kind == ""
}

// groupByFile puts the edits that resolve against one file's content
// together, files in the order of their first edit, and joins the units
// (resolve_units.go).
func (r *resolver) groupByFile() {
	byPath := map[string]*fileGroup{}
	for _, rec := range r.recs {
		if rec.Kind == KindInvalid || rec.path == "" || rec.Kind == KindRename && rec.newPath == "" {
			continue
		}
		g := byPath[rec.group]
		if g == nil {
			g = &fileGroup{path: rec.group}
			byPath[rec.group] = g
			r.groups = append(r.groups, g)
		}
		g.recs = append(g.recs, rec)
	}
	r.units.link(r.recs)
}

// resolveGroup resolves one file's edits in order, then has the verifier
// judge the file they leave: a refusal fails the edits it blames.
func (r *resolver) resolveGroup(g *fileGroup) {
	content, exists, err := r.files.Read(g.path)
	if err != nil {
		for _, rec := range g.recs {
			r.fail(rec, fmt.Sprintf("cannot read %s: %v", g.path, err), "")
		}
		return
	}
	if exists && isBinary(content) {
		for _, rec := range g.recs {
			if rec.changesText() {
				r.fail(rec, fmt.Sprintf("%s is a binary file (it holds a NUL byte or is not valid UTF-8); edits to it as text would corrupt it, so it is left unchanged", g.path), "")
			}
		}
	}
	if !exists {
		if other := caseClash(r.files, g.path); other != "" {
			for _, rec := range g.recs {
				r.fail(rec, fmt.Sprintf("%s does not exist but %s does: the names differ only in case, and on many systems they are the same file; edit %s, or choose a name that differs in more than case", g.path, other, other), "")
			}
			return
		}
	}
	f := r.runFile(g, content, exists, nil)
	if ref := f.verdict(); ref != nil {
		if alt := r.otherReading(g, content, exists); alt != nil {
			f = alt
		} else {
			f.refuse(ref)
		}
	}
	f.commit()
	g.hunks = f.output()
}

// runFile resolves a group's edits as read by read (nil: as written).
func (r *resolver) runFile(g *fileGroup, content string, exists bool, read func(Edit) Edit) *fileRun {
	f := newFileRun(r, g.path, content, exists, read)
	for k, rec := range g.recs {
		if !rec.failed {
			f.rest = g.recs[k+1:]
			f.step(rec)
		}
	}
	f.rest = nil
	f.keepUnchangedLines()
	return f
}

// verdict is the verifier's refusal of the file the run leaves, or nil.
func (f *fileRun) verdict() *refusal {
	if !f.changed() {
		return nil
	}
	return verify(f.change(f.r.opts.Plan))
}

// readings are the other ways an answer can honestly be read, tried only
// when the file as written is refused: one that passes the verifier, with
// no more failed edits, is taken (docs/edits.md, readings). A new text
// that arrived still JSON-escaped ("\n" and no line break) is read
// unescaped; one whose added lines are indented with spaces where its old
// text has tabs is read in the old text's tabs (tabsAsOldText).
var readings = []func(Edit) (Edit, bool){
	func(e Edit) (Edit, bool) {
		if e.Kind != KindEdit && e.Kind != KindWrite && e.Kind != "" {
			return e, false
		}
		n, ok := unescapeJSON(e.NewText)
		if !ok || decodedIntoString(e.Path, n) {
			return e, false
		}
		if o, ook := unescapeJSON(e.OldText); ook {
			e.OldText = o
		}
		e.NewText = n
		return e, true
	},
	func(e Edit) (Edit, bool) {
		if e.Kind != KindEdit && e.Kind != "" {
			return e, false
		}
		return tabsAsOldText(e)
	},
}

// otherReading returns the run of the first other reading that changes
// some edit of the group and passes the verifier, or nil.
func (r *resolver) otherReading(g *fileGroup, content string, exists bool) *fileRun {
	for _, read := range readings {
		changes := false
		for _, rec := range g.recs {
			if _, ok := read(rec.Edit); ok && !rec.failed {
				changes = true
			}
		}
		if !changes {
			continue
		}
		alt := r.runFile(g, content, exists, func(e Edit) Edit { n, _ := read(e); return n })
		if len(alt.fails) == 0 && alt.changed() && alt.verdict() == nil {
			return alt
		}
	}
	return nil
}

// holdBackUnits: one failed edit holds back every other edit of its unit
// (contract §9.2: an answer is applied whole or not at all).
func (r *resolver) holdBackUnits() {
	sort.SliceStable(r.res.Failures, func(i, j int) bool { return r.res.Failures[i].Index < r.res.Failures[j].Index })
	failedUnit := map[int]int{}
	for _, f := range r.res.Failures {
		if f.Index >= 0 && f.Index < len(r.recs) {
			if _, ok := failedUnit[r.units.find(f.Index)]; !ok {
				failedUnit[r.units.find(f.Index)] = f.Index
			}
		}
	}
	for _, g := range r.groups {
		if why, bad := failedUnit[r.units.find(g.recs[0].n)]; bad {
			for _, rec := range g.recs {
				if !rec.failed && !rec.already {
					r.res.HeldBack = append(r.res.HeldBack, HeldBack{Edit: rec.Edit, Index: rec.n, Failed: why})
				}
			}
			continue
		}
		r.res.Hunks = append(r.res.Hunks, g.hunks...)
	}
	sort.SliceStable(r.res.HeldBack, func(i, j int) bool { return r.res.HeldBack[i].Index < r.res.HeldBack[j].Index })
}

// number gives the hunks their ids, h1, h2, ... in order.
func (r *resolver) number() {
	for n := range r.res.Hunks {
		r.res.Hunks[n].ID = fmt.Sprintf("h%d", n+1)
	}
}

// units is a union-find over an answer's edits: the edits of one unit are
// applied together or not at all.
type units []int

func newUnits(n int) units {
	u := make(units, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u units) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u units) union(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[rb] = ra
	}
}

// link joins the edits of one file, a rename with its target's edits, and
// a delete with every write of the answer (deleting a file and writing its
// code elsewhere is one move: the delete must not go out alone).
func (u units) link(recs []*editRec) {
	first := map[string]int{}
	join := func(n int, p string) {
		if p == "" {
			return
		}
		if f, ok := first[p]; ok {
			u.union(f, n)
		} else {
			first[p] = n
		}
	}
	var deletes, writes []int
	for n, rec := range recs {
		if rec.Kind == KindInvalid && rec.path == "" {
			// A block that names no file could have been meant for any:
			// nothing of the answer goes out without it.
			for m := range recs {
				u.union(n, m)
			}
		}
		join(n, rec.path)
		if rec.Kind == KindRename {
			join(n, rec.newPath)
		}
		switch rec.Kind {
		case KindDelete:
			deletes = append(deletes, n)
		case KindWrite:
			writes = append(writes, n)
		}
	}
	for _, d := range deletes {
		for _, w := range writes {
			u.union(d, w)
		}
	}
}
