package editapply

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// Resolve matches each edit against the current content, in order, with the
// matching ladder of design.md.
//
// Edits to one file resolve in order against the text as the earlier edits
// left it, but every hunk is expressed against the file's current content
// (as files returned it); edits whose ranges overlap or touch are merged into
// one hunk, so the hunks of a file never overlap. Hunk ids are h1, h2, ... in
// the order of the files' first edit, then by position.
//
// opts.Allow is called once for every path (and rename target) the model
// wrote; opts.Syntax once per changed file with its content before and after
// all of that file's edits, and — only when that reports an error — again per
// edit to single out the edits that break the syntax.
func Resolve(edits []Edit, files Files, opts Options) Result {
	var res Result
	type group struct {
		path  string
		edits []int
	}
	var order []*group
	byPath := map[string]*group{}
	clean := make([]string, len(edits))
	cleanNew := make([]string, len(edits))
	failAt := func(n int, reason string) {
		res.Failures = append(res.Failures, Failure{Edit: edits[n], Reason: reason, Index: n})
	}
	units := newUnits(len(edits))
	for n, e := range edits {
		if e.Kind == KindInvalid {
			// A block that could not be read still names its file: the
			// file's other edits wait for it.
			if strings.TrimSpace(e.Path) != "" {
				if p, err := allow(opts, e.Path); err == nil {
					clean[n] = p
				}
			}
			failAt(n, e.Reason)
			continue
		}
		p, err := allow(opts, e.Path)
		if err != nil {
			failAt(n, err.Error())
			continue
		}
		clean[n] = gitPrefixed(files, p, opts)
		if e.Kind == KindRename {
			np, err := allow(opts, e.NewPath)
			if err != nil {
				// A target the workspace refuses (outside, denied) is
				// refused alone: the file's other edits are judged without
				// it, as they would be had the rename not been written.
				failAt(n, err.Error())
				clean[n] = ""
				continue
			}
			cleanNew[n] = np
		}
	}
	// Rename chains: an edit or write to the new name of a file renamed
	// earlier in this answer (and not on disk) is an edit of the renamed
	// file's content, applied before the rename.
	renamedTo := map[string]int{}
	at := make([]string, len(edits)) // the group each edit resolves in
	for n, e := range edits {
		at[n] = clean[n]
		if r, ok := renamedTo[clean[n]]; ok && r < n && (e.Kind == KindEdit || e.Kind == KindWrite || e.Kind == "") {
			if _, exists, _ := files.Read(clean[n]); !exists {
				at[n] = clean[r]
			}
		}
		if e.Kind == KindRename && cleanNew[n] != "" {
			if _, ok := renamedTo[cleanNew[n]]; !ok {
				renamedTo[cleanNew[n]] = n
			}
		}
	}
	for n, e := range edits {
		if e.Kind == KindInvalid || clean[n] == "" || e.Kind == KindRename && cleanNew[n] == "" {
			continue
		}
		g := byPath[at[n]]
		if g == nil {
			g = &group{path: at[n]}
			byPath[at[n]] = g
			order = append(order, g)
		}
		g.edits = append(g.edits, n)
	}
	units.link(edits, clean, cleanNew)
	type done struct {
		g     *group
		hunks []Hunk
		fr    *fileResult
	}
	var results []done
	for _, g := range order {
		content, exists, err := files.Read(g.path)
		if err != nil {
			for _, n := range g.edits {
				failAt(n, fmt.Sprintf("cannot read %s: %v", g.path, err))
			}
			continue
		}
		if exists && isBinary(content) {
			for _, n := range g.edits {
				if edits[n].Kind == KindEdit || edits[n].Kind == KindWrite || edits[n].Kind == "" {
					failAt(n, fmt.Sprintf("%s is a binary file (it holds a NUL byte or is not valid UTF-8); edits to it as text would corrupt it, so it is left unchanged", g.path))
				}
			}
		}
		if !exists {
			if other := caseClash(files, g.path); other != "" {
				for _, n := range g.edits {
					failAt(n, fmt.Sprintf("%s does not exist but %s does: the names differ only in case, and on many systems they are the same file; edit %s, or choose a name that differs in more than case", g.path, other, other))
				}
				continue
			}
		}
		syntax := func(p, before, after string) error {
			if err := formatCheck(p, before, after); err != nil {
				return err
			}
			if opts.Syntax != nil {
				return opts.Syntax(p, before, after)
			}
			return nil
		}
		fr := resolveFile(g.path, content, exists, edits, g.edits, clean, cleanNew, files, nil)
		if fr.changed() {
			if serr := syntax(g.path, content, fr.final); serr != nil {
				check := func(before, after string) error { return syntax(g.path, before, after) }
				fr = resolveFile(g.path, content, exists, edits, g.edits, clean, cleanNew, files, check)
				if fr.changed() {
					if serr := syntax(g.path, content, fr.final); serr != nil {
						for _, h := range fr.hunks {
							for _, n := range h.edits {
								fr.failures = append(fr.failures, Failure{Edit: edits[n], Index: n, Reason: fmt.Sprintf("together the edits to %s introduce a syntax error (%v); make each edit leave the file syntactically valid", g.path, serr)})
							}
						}
						fr.hunks, fr.resource = nil, nil
					}
				}
			}
		}
		res.Failures = append(res.Failures, fr.failures...)
		res.AlreadyApplied = append(res.AlreadyApplied, fr.already...)
		results = append(results, done{g, fr.output(g.path), fr})
	}
	// Units: one failed edit holds back every other edit of its unit.
	failedUnit := map[int]int{}
	failed := map[int]bool{}
	sort.SliceStable(res.Failures, func(i, j int) bool { return res.Failures[i].Index < res.Failures[j].Index })
	for _, f := range res.Failures {
		failed[f.Index] = true
		if f.Index >= 0 && f.Index < len(edits) {
			if _, ok := failedUnit[units.find(f.Index)]; !ok {
				failedUnit[units.find(f.Index)] = f.Index
			}
		}
	}
	var hunks []Hunk
	for _, d := range results {
		if len(d.g.edits) == 0 {
			continue
		}
		if why, bad := failedUnit[units.find(d.g.edits[0])]; bad {
			for _, n := range d.g.edits {
				if !failed[n] && !d.fr.alreadyIdx[n] {
					res.HeldBack = append(res.HeldBack, HeldBack{Edit: edits[n], Index: n, Failed: why})
				}
			}
			continue
		}
		hunks = append(hunks, d.hunks...)
	}
	sort.SliceStable(res.HeldBack, func(i, j int) bool { return res.HeldBack[i].Index < res.HeldBack[j].Index })
	for n := range hunks {
		hunks[n].ID = fmt.Sprintf("h%d", n+1)
	}
	res.Hunks = hunks
	return res
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
func (u units) link(edits []Edit, clean, cleanNew []string) {
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
	for n, e := range edits {
		if e.Kind == KindInvalid && clean[n] == "" {
			// A block that names no file could have been meant for any:
			// nothing of the answer goes out without it.
			for m := range edits {
				u.union(n, m)
			}
		}
		join(n, clean[n])
		if e.Kind == KindRename {
			join(n, cleanNew[n])
		}
		switch e.Kind {
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

// isBinary: a NUL byte or invalid UTF-8. Such a file is never edited as
// text.
func isBinary(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

func allow(opts Options, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("the edit names no file path; give the path relative to the workspace root")
	}
	// "app\\server.go" is app/server.go to anyone reading it: a backslash in
	// a file name is never what a model means, and creating one would put
	// a file nobody asked for at the root.
	p = cleanModelPath(p)
	if len(p) >= 3 && p[1] == ':' && p[2] == '/' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') {
		return "", fmt.Errorf("%s is a Windows absolute path; give the path relative to the workspace root", p)
	}
	if opts.Allow == nil {
		return p, nil
	}
	return opts.Allow(p)
}

// hunkRec is a hunk while a file's edits are being resolved: [start, end)
// of the original content becomes text.
type hunkRec struct {
	start, end int
	text       string
	write      bool
	edits      []int
}

type fileResult struct {
	orig     string
	final    string
	created  bool
	hunks    []*hunkRec
	resource *Hunk // delete or rename, after the text hunks
	failures []Failure
	already  []Edit
	// alreadyIdx: the answer indices of already.
	alreadyIdx map[int]bool
	checkErr   error // why the last change was refused by the syntax check
}

// why is the syntax check's reason for the last refused change, for the
// failure's message: ": line 3 of a.py: IndentationError: ...".
func (fr *fileResult) why() string {
	if fr.checkErr == nil {
		return ""
	}
	return ": " + fr.checkErr.Error()
}

// changed: the file's text is different afterwards and the file stays (a
// deleted file has no syntax to check).
func (fr *fileResult) changed() bool {
	return fr.final != fr.orig && (fr.resource == nil || fr.resource.Kind != KindDelete)
}

// resolveFile resolves the edits of one file in order. check, when set, is
// asked about every single edit.
func resolveFile(path, content string, exists bool, edits []Edit, idx []int, clean, cleanNew []string, files Files, check func(before, after string) error) *fileResult {
	fr := &fileResult{orig: content, final: content, alreadyIdx: map[int]bool{}}
	if !exists {
		fr.orig, fr.final = "", ""
	}
	gone := ""       // set when an earlier edit deleted or renamed the file
	renamed := ""    // the new name, after a rename
	rewrite := false // a delete then a write: the file is replaced on purpose
	for _, n := range idx {
		e := edits[n]
		fail := func(reason, closest string) {
			fr.failures = append(fr.failures, Failure{Edit: e, Reason: reason, Closest: closest, Index: n})
		}
		isAlready := func() {
			fr.already = append(fr.already, e)
			fr.alreadyIdx[n] = true
		}
		if renamed != "" && clean[n] == renamed && e.Kind != KindRename && e.Kind != KindDelete {
			// An edit to the new name: the rename goes out after the text
			// hunks, so it is an edit of this content.
		} else if gone == "deleted" && e.Kind == KindWrite {
			// Delete, then write the same path: the answer replaces the
			// file. The delete is undone and the write replaces it whole.
			gone, fr.resource, fr.final, fr.hunks = "", nil, fr.orig, nil
			rewrite = true
		} else if gone != "" {
			fail(fmt.Sprintf("%s was %s by an earlier edit in this answer; make every change to it before that", path, gone), "")
			continue
		}
		switch e.Kind {
		case KindWrite:
			if e.mustCreate && exists && !fr.created {
				if toEOL(e.NewText, newFileText(fr.final).eol) == strings.TrimPrefix(fr.final, bom) {
					isAlready()
				} else {
					fail(fmt.Sprintf("the answer adds %s as a new file, but it exists; to change it use *** Update File: %s with its lines", path, path), "")
				}
				continue
			}
			if u, ok := unfence(e.NewText); ok && !isMarkdown(path) {
				// The model wrapped the file in a fence; a Markdown file
				// may really be one, so its content is kept as written.
				e.NewText = u
			}
			if !exists && !fr.created {
				fr.created = true
			}
			old := fr.final
			base := 0
			if strings.HasPrefix(old, bom) {
				base = len(bom)
			}
			eol := "\n"
			if exists {
				eol = newFileText(old).eol
			}
			if err := checkWriteElision(old, e.NewText, path); err != nil {
				fail(err.reason, "")
				continue
			}
			if exists && !rewrite && cutOff(old, e.NewText) {
				fail(fmt.Sprintf("the content for %s stops where the file goes on (it is the file's first %d of %d lines): it looks cut off, and writing it would delete the rest. Send the complete file, or use edit_file to remove the end", path, len(modelLines(e.NewText)), len(modelLines(old))), "")
				continue
			}
			if exists && !rewrite && isFragment(old, e.NewText) {
				fail(fmt.Sprintf("the content for %s is only a part of the file (%d of its %d lines): write_file replaces the whole file, so the rest would be deleted. Change that part with edit_file, or write the complete file", path, len(nonBlankLines(e.NewText)), len(nonBlankLines(old))), "")
				continue
			}
			text := toEOL(e.NewText, eol)
			if old[base:] == text {
				isAlready()
				continue
			}
			if !fr.apply(base, len(old), text, n, true, check) {
				fail(fmt.Sprintf("the new content of %s would introduce a syntax error; check brackets and quotes", path)+fr.why(), "")
			}
		case KindEdit, "":
			if e.EndLine > 0 && e.OldText == "" && exists {
				s, end, text, err := byLines(fr.final, e)
				if err != "" {
					fail(err, "")
				} else if s < 0 {
					isAlready()
				} else if !fr.apply(s, end, text, n, false, check) {
					fail(fmt.Sprintf("this edit would introduce a syntax error in %s", path)+fr.why(), "")
				}
				continue
			}
			if e.atEOF && exists {
				text := toEOL(e.NewText, newFileText(fr.final).eol)
				if strings.HasSuffix(fr.final, text) {
					isAlready()
					continue
				}
				at := len(fr.final)
				if at > 0 && !strings.HasSuffix(fr.final, "\n") {
					text = newFileText(fr.final).eol + text
				}
				if !fr.apply(at, at, text, n, false, check) {
					fail(fmt.Sprintf("this edit would introduce a syntax error in %s", path)+fr.why(), "")
				}
				continue
			}
			if len(e.alts) > 0 {
				e.OldText, e.NewText = pickSplit(fr.final, e, path)
			}
			if e.ReplaceAll && exists && strings.TrimSpace(e.OldText) != "" {
				if err := fr.replaceAll(e, n, path, check); err != "" {
					fail(err, "")
				}
				continue
			}
			if !exists && !fr.created {
				if strings.TrimSpace(e.OldText) == "" {
					// edit_file with empty old_text on a missing file: a creation.
					fr.created = true
					if !fr.apply(0, 0, toEOL(e.NewText, "\n"), n, true, check) {
						fail(fmt.Sprintf("the new content of %s would introduce a syntax error", path)+fr.why(), "")
					}
					continue
				}
				fail(fmt.Sprintf("%s does not exist; to create it use write_file (or a SEARCH/REPLACE block with an empty SEARCH section)", path), "")
				continue
			}
			if strings.TrimSpace(e.OldText) == "" && strings.TrimSpace(fr.final) == "" {
				if !fr.apply(0, len(fr.final), toEOL(e.NewText, newFileText(fr.final).eol), n, true, check) {
					fail(fmt.Sprintf("the new content of %s would introduce a syntax error", path)+fr.why(), "")
				}
				continue
			}
			loc, lerr := locate(fr.final, e.OldText, e.NewText, path)
			if lerr != nil && lerr.notFound {
				if l, nerr, ok := locateNormalized(fr.final, e.OldText, e.NewText, path); ok {
					loc, lerr = l, nerr
				}
			}
			if lerr != nil {
				if lerr.already {
					isAlready()
				} else {
					fail(lerr.reason, lerr.closest)
				}
				continue
			}
			if !fr.apply(loc.start, loc.end, loc.text, n, false, check) {
				fail(fmt.Sprintf("this edit would introduce a syntax error in %s; check that old_text covers whole statements and new_text keeps brackets balanced", path)+fr.why(), "")
			}
		case KindDelete:
			if !exists || fr.created {
				fail(fmt.Sprintf("%s does not exist, so it cannot be deleted", path), "")
				continue
			}
			fr.hunks = nil // the file goes: earlier changes to it are moot
			fr.final = ""
			fr.resource = &Hunk{Path: path, Kind: KindDelete, Start: 0, End: len(content), OldText: content, Summary: path + ": delete file"}
			gone = "deleted"
		case KindRename:
			np := cleanNew[n]
			if !exists || fr.created {
				fail(fmt.Sprintf("%s does not exist, so it cannot be renamed", path), "")
				continue
			}
			if np == path {
				isAlready()
				continue
			}
			if _, there, err := files.Read(np); err != nil || there {
				fail(fmt.Sprintf("cannot rename %s to %s: the target already exists; choose another name or delete it first", path, np), "")
				continue
			}
			fr.resource = &Hunk{Path: path, Kind: KindRename, NewPath: np, Summary: fmt.Sprintf("%s: rename to %s", path, np)}
			gone, renamed = "renamed to "+np, np
		default:
			fail(fmt.Sprintf("unknown edit kind %q", e.Kind), "")
		}
	}
	return fr
}

// apply replaces [s, e) of the current text with text, expressing the change
// against the original content and merging it with earlier hunks it
// overlaps or touches. It returns false (and changes nothing) when check
// refuses the change.
func (fr *fileResult) apply(s, e int, text string, edit int, write bool, check func(before, after string) error) bool {
	cur := fr.final
	next := cur[:s] + text + cur[e:]
	if check != nil {
		if err := check(cur, next); err != nil {
			fr.checkErr = err
			return false
		}
	}
	delta := 0 // cur offset - orig offset in the unchanged text before s
	var keep, overlap []*hunkRec
	first := -1
	for k, h := range fr.hunks {
		cs := h.start + delta
		ce := cs + len(h.text)
		switch {
		case ce < s:
			delta += len(h.text) - (h.end - h.start)
			keep = append(keep, h)
		case cs > e:
			keep = append(keep, h)
		default:
			if first < 0 {
				first = k
			}
			overlap = append(overlap, h)
		}
	}
	mcs, mce := s, e
	origS, origE := s-delta, 0
	after := delta
	for _, h := range overlap {
		after += len(h.text) - (h.end - h.start)
	}
	origE = e - after
	merged := &hunkRec{write: write, edits: []int{edit}}
	if len(overlap) > 0 {
		f, l := overlap[0], overlap[len(overlap)-1]
		fcs := f.start + delta
		if fcs <= s {
			mcs, origS = fcs, f.start
		}
		lce := l.start + (after - (len(l.text) - (l.end - l.start))) + len(l.text)
		if lce >= e {
			mce, origE = lce, l.end
		}
		for _, h := range overlap {
			merged.write = merged.write || h.write
			merged.edits = append(merged.edits, h.edits...)
		}
		sort.Ints(merged.edits)
	}
	merged.start, merged.end = origS, origE
	merged.text = next[mcs : mce+len(text)-(e-s)]
	fr.final = next
	if merged.text != fr.orig[merged.start:merged.end] || merged.write && merged.start == 0 && fr.orig == "" {
		keep = append(keep, merged)
	}
	sort.SliceStable(keep, func(a, b int) bool { return keep[a].start < keep[b].start })
	fr.hunks = keep
	return true
}

// widenOverCRLF moves a hunk's ends off the middle of a CRLF: LSP
// positions count "\r\n" as one line break and cannot point between its
// two bytes, so such a hunk could not be sent as TextEdits. The CR or LF
// taken in is added to the new text as well, so the result is the same.
func widenOverCRLF(orig string, start, end int, text string) (int, int, string) {
	if start > 0 && start < len(orig) && orig[start-1] == '\r' && orig[start] == '\n' {
		start--
		text = "\r" + text
	}
	if end > 0 && end < len(orig) && orig[end-1] == '\r' && orig[end] == '\n' {
		end++
		text += "\n"
	}
	return start, end, text
}

// output turns the file's records into hunks (ids are set by Resolve).
func (fr *fileResult) output(path string) []Hunk {
	var out []Hunk
	ft := newFileText(fr.orig)
	for _, h := range fr.hunks {
		kind := KindEdit
		if h.write {
			kind = KindWrite
		}
		start, end, text := widenOverCRLF(fr.orig, h.start, h.end, h.text)
		hk := Hunk{Path: path, Kind: kind, Start: start, End: end, OldText: fr.orig[start:end], NewText: text}
		hk.Created = fr.created && fr.orig == ""
		hk.Summary = summarize(ft, hk)
		out = append(out, hk)
	}
	if fr.resource != nil {
		out = append(out, *fr.resource)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// summarize writes a hunk's one-line summary, with 1-based line numbers of
// the content it is expressed against.
func summarize(ft *fileText, h Hunk) string {
	switch h.Kind {
	case KindDelete:
		return h.Path + ": delete file"
	case KindRename:
		return fmt.Sprintf("%s: rename to %s", h.Path, h.NewPath)
	}
	nOld, nNew := countLines(h.OldText), countLines(h.NewText)
	if h.Created {
		return fmt.Sprintf("%s: create file (%s)", h.Path, plural(nNew, "line"))
	}
	line := ft.lineAt(h.Start) + 1
	if len(ft.lines) == 0 {
		line = 1
	}
	where := fmt.Sprintf("%s:%d", h.Path, line)
	if nOld > 1 {
		where = fmt.Sprintf("%s:%d-%d", h.Path, line, line+nOld-1)
	}
	switch {
	case h.Kind == KindWrite && h.Start == 0 && h.End >= len(ft.content)-len(bom):
		return fmt.Sprintf("%s: rewrite file (%s, was %d)", h.Path, plural(nNew, "line"), nOld)
	case h.OldText == "":
		return fmt.Sprintf("%s insert %s", where, plural(nNew, "line"))
	case h.NewText == "":
		return fmt.Sprintf("%s delete %s", where, plural(nOld, "line"))
	case nOld == nNew:
		return fmt.Sprintf("%s change %s", where, plural(nOld, "line"))
	default:
		return fmt.Sprintf("%s replace %s with %d", where, plural(nOld, "line"), nNew)
	}
}

// checkWriteElision refuses whole-file content that elides existing code.
func checkWriteElision(old, content, path string) *locateError {
	oldMarks := map[string]bool{}
	for _, l := range modelLines(old) {
		if isElision(l, path) {
			oldMarks[strings.TrimSpace(l)] = true
		}
	}
	for _, l := range modelLines(content) {
		if isElision(l, path) && !oldMarks[strings.TrimSpace(l)] {
			return &locateError{reason: fmt.Sprintf("the content for %s contains the elision line %q; write_file replaces the whole file, so that line would delete code. Write the complete file, or use edit_file to change only part of it", path, strings.TrimSpace(l))}
		}
	}
	return nil
}

// pickSplit chooses the reading of a SEARCH/REPLACE block with several
// "=======" lines: the one with the longest SEARCH text that the file holds
// (or already holds the replacement of) without the fuzzy rung; the first
// divider when none does, so its failure is the one reported.
func pickSplit(content string, e Edit, path string) (string, string) {
	for k := len(e.alts) - 1; k >= 0; k-- {
		a := e.alts[k]
		if strings.TrimSpace(a[0]) == "" {
			continue
		}
		loc, err := locate(content, a[0], a[1], path)
		if err == nil && loc.rung != rungFuzzy || err != nil && err.already {
			return a[0], a[1]
		}
	}
	return e.OldText, e.NewText
}

// byLines resolves a line-range edit (```12:20:path): [s, end) of content
// becomes text, or s < 0 when the lines already read so. The range must be
// in the file, and its first or last line must be NewText's too: a line
// number is an anchor to check, never trusted alone.
func byLines(content string, e Edit) (s, end int, text, reason string) {
	ft := newFileText(content)
	if e.EndLine > len(ft.lines) {
		return 0, 0, "", fmt.Sprintf("the block names lines %d to %d of %s, which has %d lines; use a SEARCH/REPLACE block with the lines to replace", e.StartLine, e.EndLine, e.Path, len(ft.lines))
	}
	nl := trimBlankEnds(modelLines(e.NewText))
	cur := make([]string, 0, e.EndLine-e.StartLine+1)
	for k := e.StartLine - 1; k < e.EndLine; k++ {
		cur = append(cur, ft.text(k))
	}
	same := len(nl) == len(cur)
	for k := 0; same && k < len(nl); k++ {
		same = trimRightWS(nl[k]) == trimRightWS(cur[k])
	}
	if same {
		return -1, 0, "", ""
	}
	anchored := len(nl) > 0 && (strings.TrimSpace(nl[0]) == strings.TrimSpace(cur[0]) && !isBlank(cur[0]) ||
		strings.TrimSpace(nl[len(nl)-1]) == strings.TrimSpace(cur[len(cur)-1]) && !isBlank(cur[len(cur)-1]))
	if !anchored {
		return 0, 0, "", fmt.Sprintf("lines %d to %d of %s do not begin or end like the new text, so the line numbers may be stale; use a SEARCH/REPLACE block with the exact lines to replace", e.StartLine, e.EndLine, e.Path)
	}
	loc := replaceLines(ft, e.StartLine-1, e.EndLine, nl, rungExact)
	return loc.start, loc.end, loc.text, ""
}

// isMarkdown: prose files whose content may really be a fence. A file
// without an extension is prose only by a prose name (a Dockerfile is not).
func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".rmd", ".txt", ".rst":
		return true
	case "":
		switch strings.ToUpper(path.Base(p)) {
		case "README", "LICENSE", "CHANGELOG", "NOTICE", "AUTHORS", "CONTRIBUTING", "NOTES":
			return true
		}
	}
	return false
}

// gitPrefixed maps "a/app/main.go" (a diff's prefix carried into a path)
// or "@app/main.go" (a mention) to "app/main.go" when only the latter exists: the user would recognise
// it as that file. A path that exists as written is never changed.
func gitPrefixed(files Files, p string, opts Options) string {
	cut := 0
	switch {
	case strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/"):
		cut = 2
	case strings.HasPrefix(p, "@"): // an @-mention of the file
		cut = 1
	default:
		return p
	}
	if _, exists, _ := files.Read(p); exists {
		return p
	}
	q, err := allow(opts, p[cut:])
	if err != nil {
		return p
	}
	if _, exists, _ := files.Read(q); exists {
		return q
	}
	return p
}

// cleanModelPath undoes what models wrap around a path: quotes or
// backticks, a file:// scheme, backslashes. What is left is checked by
// Options.Allow like any path.
func cleanModelPath(p string) string {
	p = strings.TrimSpace(p)
	for len(p) >= 2 && (p[0] == '`' && p[len(p)-1] == '`' || p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
		p = strings.TrimSpace(p[1 : len(p)-1])
	}
	if strings.HasPrefix(p, "file://") {
		p = strings.TrimPrefix(p, "file://")
	}
	// VS Code's variable for the workspace root.
	for _, v := range []string{"${workspaceFolder}/", "${workspaceRoot}/", "$WORKSPACE/"} {
		p = strings.TrimPrefix(p, v)
	}
	return strings.ReplaceAll(p, "\\", "/")
}

// replaceAll replaces every exact occurrence of e.OldText (in the file's
// line endings, never inside a word), last first so earlier offsets hold.
// None at all is a failure; the new text everywhere already is a no-op.
func (fr *fileResult) replaceAll(e Edit, n int, path string, check func(before, after string) error) string {
	eol := detectEOL(fr.final)
	oldN, newN := toEOL(e.OldText, eol), toEOL(e.NewText, eol)
	occ := exactOccurrences(fr.final, oldN, 0)
	if len(occ) == 0 {
		if strings.Contains(fr.final, newN) {
			fr.already = append(fr.already, e)
			fr.alreadyIdx[n] = true
			return ""
		}
		return fmt.Sprintf("old_text was not found in %s (replace_all needs it exactly, as it is in the file)", path)
	}
	for k := len(occ) - 1; k >= 0; k-- {
		if !fr.apply(occ[k], occ[k]+len(oldN), newN, n, false, check) {
			return fmt.Sprintf("replacing every occurrence would introduce a syntax error in %s", path) + fr.why()
		}
	}
	return ""
}
