package editapply

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// fileRun is one file's edits being resolved in order: the text as the
// earlier edits left it (final), and the hunks that take the original
// content there.
type fileRun struct {
	r        *resolver
	path     string
	orig     string
	final    string
	exists   bool
	created  bool
	hunks    []*hunkRec
	resource *Hunk  // delete or rename, after the text hunks
	gone     string // set when an earlier edit deleted or renamed the file
	renamed  string // the new name, after a rename
	rewrite  bool   // a delete then a write: the file is replaced on purpose
	// read is the reading of the answer this run takes (nil: as written);
	// see readings.
	read func(Edit) Edit
	// What the run found, kept until commit: a run that is not taken
	// leaves nothing behind.
	fails  []Failure
	failed map[*editRec]bool
	done   []*editRec // already applied
	edits  map[*editRec]Edit
	// rest are the file's edits after the one being resolved, in the
	// answer's order: what they need of the text decides between equal
	// matches (equalMatches).
	rest []*editRec
}

// hunkRec is a hunk while a file's edits are being resolved: [start, end)
// of the original content becomes text.
type hunkRec struct {
	start, end int
	text       string
	write      bool
	replace    bool // a write after a delete of the same file: a rewrite on purpose
	edits      []*editRec
}

func newFileRun(r *resolver, path, content string, exists bool, read func(Edit) Edit) *fileRun {
	f := &fileRun{r: r, path: path, orig: content, final: content, exists: exists, read: read,
		failed: map[*editRec]bool{}, edits: map[*editRec]Edit{}}
	if !exists {
		f.orig, f.final = "", ""
	}
	return f
}

// changed: the file's text is different afterwards and the file stays (a
// deleted file has nothing to verify).
func (f *fileRun) changed() bool {
	return f.final != f.orig && (f.resource == nil || f.resource.Kind != KindDelete)
}

func (f *fileRun) fail(rec *editRec, reason string) { f.failWith(rec, reason, "") }

func (f *fileRun) failWith(rec *editRec, reason, closest string) {
	f.failed[rec] = true
	f.fails = append(f.fails, Failure{Edit: f.edits[rec], Reason: reason, Closest: closest, Index: rec.n})
}

func (f *fileRun) isAlready(rec *editRec) { f.done = append(f.done, rec) }

// commit records the run's failures and no-ops in the result.
func (f *fileRun) commit() {
	for _, x := range f.fails {
		f.r.res.Failures = append(f.r.res.Failures, x)
	}
	for rec := range f.failed {
		rec.failed = true
	}
	for _, rec := range f.done {
		rec.already = true
		f.r.res.AlreadyApplied = append(f.r.res.AlreadyApplied, f.edits[rec])
	}
}

// step resolves one edit against the text as the earlier ones left it.
func (f *fileRun) step(rec *editRec) {
	e := rec.Edit
	if f.read != nil {
		e = f.read(e)
	}
	f.edits[rec] = e
	switch {
	case f.renamed != "" && rec.path == f.renamed && rec.Kind != KindRename && rec.Kind != KindDelete:
		// An edit to the new name: the rename goes out after the text
		// hunks, so it is an edit of this content.
	case f.gone == "deleted" && rec.Kind == KindWrite:
		// Delete, then write the same path: the answer replaces the file.
		// The delete is undone and the write replaces it whole.
		f.gone, f.resource, f.final, f.hunks = "", nil, f.orig, nil
		f.rewrite = true
	case f.gone != "":
		f.fail(rec, fmt.Sprintf("%s was %s by an earlier edit in this answer; make every change to it before that", f.path, f.gone))
		return
	}
	switch rec.Kind {
	case KindWrite:
		f.write(rec, e)
	case KindEdit, "":
		f.edit(rec, e)
	case KindDelete:
		if !f.exists || f.created {
			f.fail(rec, fmt.Sprintf("%s does not exist, so it cannot be deleted", f.path))
			return
		}
		if strings.TrimSpace(rec.OldText) != "" && !sameLines(rec.OldText, f.final) {
			// A diff's deletion shows the lines it removes: when they are
			// not the file's, the answer deletes a file it has not seen.
			f.fail(rec, fmt.Sprintf("the diff deletes %s but shows other lines than the file has; if it is to go, delete it with its current content (or delete_file)", f.path))
			return
		}
		f.hunks = nil // the file goes: earlier changes to it are moot
		f.final = ""
		f.resource = &Hunk{Path: f.path, Kind: KindDelete, Start: 0, End: len(f.orig), OldText: f.orig, Summary: f.path + ": delete file"}
		f.gone = "deleted"
	case KindRename:
		np := rec.newPath
		if !f.exists || f.created {
			f.fail(rec, fmt.Sprintf("%s does not exist, so it cannot be renamed", f.path))
			return
		}
		if np == f.path {
			f.isAlready(rec)
			return
		}
		if _, there, err := f.r.files.Read(np); err != nil || there {
			f.fail(rec, fmt.Sprintf("cannot rename %s to %s: the target already exists; choose another name or delete it first", f.path, np))
			return
		}
		f.resource = &Hunk{Path: f.path, Kind: KindRename, NewPath: np, Summary: fmt.Sprintf("%s: rename to %s", f.path, np)}
		f.gone, f.renamed = "renamed to "+np, np
	default:
		f.fail(rec, fmt.Sprintf("unknown edit kind %q", rec.Kind))
	}
}

// write resolves a whole-file write.
func (f *fileRun) write(rec *editRec, e Edit) {
	text := e.NewText
	if e.mustCreate && f.exists && !f.created {
		if toEOL(text, newFileText(f.final).eol) == strings.TrimPrefix(f.final, bom) {
			f.isAlready(rec)
		} else {
			f.fail(rec, fmt.Sprintf("the answer adds %s as a new file, but it exists; to change it, edit its lines (*** Update File: %s, or a diff from a/%s)", f.path, f.path, f.path))
		}
		return
	}
	if e.mustExist {
		if !f.exists || f.created {
			f.fail(rec, fmt.Sprintf("%s does not exist, and the answer names it only over an example (a heading or a sentence); to create it, put its path alone on the line above the fence", f.path))
			return
		}
		if !keepsMostOf(f.final, text) {
			f.fail(rec, fmt.Sprintf("the block under the heading or sentence naming %s keeps less than half of its lines: it reads as an example, not the whole file; give the whole file with its path alone above the fence, or edit the lines with SEARCH/REPLACE", f.path))
			return
		}
	}
	if u, ok := unfence(text); ok && (!isMarkdown(f.path) || ownLanguage(fenceInfo(text), f.path)) {
		// The model wrapped the file in a fence; a Markdown file may really
		// be one, so its content is kept as written unless the fence says
		// it holds Markdown (the other readings: readings.go).
		text = u
	}
	creating := !f.exists && !f.created // an empty new file is still a new file
	if !f.exists {
		f.created = true
	}
	old := f.final
	base := bomLen(old)
	eol := "\n"
	if f.exists {
		eol = newFileText(old).eol
	}
	if err := checkWriteElision(old, text, f.path); err != nil {
		f.fail(rec, err.reason)
		return
	}
	if f.exists && !f.rewrite && cutOff(old, text) {
		f.fail(rec, fmt.Sprintf("the content for %s stops where the file goes on (it is the file's first %d of %d lines): it looks cut off, and writing it would delete the rest. Send the complete file, or use edit_file to remove the end", f.path, len(modelLines(text)), len(modelLines(old))))
		return
	}
	if f.exists && !f.rewrite && isFragment(old, text) {
		f.fail(rec, fmt.Sprintf("the content for %s is only a part of the file (%d of its %d lines): write_file replaces the whole file, so the rest would be deleted. Change that part with edit_file, or write the complete file", f.path, len(nonBlankLines(text)), len(nonBlankLines(old))))
		return
	}
	if f.exists && !f.rewrite && strings.TrimSpace(old) != "" && strings.TrimSpace(strings.TrimPrefix(text, bom)) == "" {
		f.fail(rec, fmt.Sprintf("the content for %s is empty: writing it would empty a file that has %s. To remove the file, delete it (delete_file); to change it, send its complete new content", f.path, plural(len(nonBlankLines(old)), "line")))
		return
	}
	text = toEOL(text, eol)
	if f.exists && old != "" {
		text = keepFinalNewline(old, text, eol)
	}
	if old[base:] == text && !creating {
		f.isAlready(rec)
		return
	}
	// The hunk holds the whole file, its byte-order mark too: a write is
	// read as the file's whole new text wherever it goes (commands, undo, acp).
	f.apply(0, len(old), old[:base]+text, rec, true)
	if f.rewrite && len(f.hunks) > 0 {
		f.hunks[len(f.hunks)-1].replace = true
	}
}

// edit resolves an edit_file edit (or a SEARCH/REPLACE block, a diff hunk,
// a patch chunk: they all come as old and new text).
func (f *fileRun) edit(rec *editRec, e Edit) {
	switch {
	case e.EndLine > 0 && e.OldText == "" && f.exists:
		s, end, text, err := byLines(f.final, e)
		switch {
		case err != "":
			f.fail(rec, err)
		case s < 0:
			f.isAlready(rec)
		default:
			f.apply(s, end, text, rec, false)
		}
		return
	case e.atEOF && f.exists:
		text := toEOL(e.NewText, newFileText(f.final).eol)
		if strings.HasSuffix(f.final, text) {
			f.isAlready(rec)
			return
		}
		at := len(f.final)
		if at > 0 && !strings.HasSuffix(f.final, "\n") {
			text = newFileText(f.final).eol + text
		}
		f.apply(at, at, text, rec, false)
		return
	}
	if len(e.alts) > 0 {
		e.OldText, e.NewText = pickSplit(f.final, e, f.path)
	}
	switch {
	case e.ReplaceAll && f.exists && strings.TrimSpace(e.OldText) != "":
		f.replaceAll(rec, e)
		return
	case !f.exists && !f.created:
		if strings.TrimSpace(e.OldText) == "" {
			// edit_file with empty old_text on a missing file: a creation.
			f.created = true
			f.apply(0, 0, toEOL(e.NewText, "\n"), rec, true)
			return
		}
		f.fail(rec, fmt.Sprintf("%s does not exist; to create it use write_file (or a SEARCH/REPLACE block with an empty SEARCH section)", f.path))
		return
	case strings.TrimSpace(e.OldText) == "" && strings.TrimSpace(f.final) == "":
		f.apply(0, len(f.final), toEOL(e.NewText, newFileText(f.final).eol), rec, true)
		return
	}
	loc, lerr := locateAmong(f.final, e.OldText, e.NewText, f.path, f.equalMatches(e))
	// A normalisation that finds the text exactly beats a near match: the
	// fuzzy rung keeps the answer's spelling of the lines it changes, the
	// normalisation undoes what was done to all of them.
	if lerr != nil && lerr.notFound || lerr == nil && loc.rung == rungFuzzy {
		if l, nerr, ok := locateNormalized(f.final, e.OldText, e.NewText, f.path); ok {
			loc, lerr = l, nerr
		}
	}
	if lerr != nil {
		if lerr.already {
			f.isAlready(rec)
		} else {
			f.failWith(rec, lerr.reason, lerr.closest)
		}
		return
	}
	if e.wholeLines && loc.end == len(f.final) && loc.text != "" && !strings.HasSuffix(loc.text, "\n") {
		// The edit writes the file's last line, and its format has only
		// whole lines; a last line it keeps keeps its bytes all the same
		// (keepUnchangedLines).
		loc.text += newFileText(f.final).eol
	}
	f.apply(loc.start, loc.end, loc.text, rec, false)
}

// equalMatches chooses among several equal matches of e's old text only
// where the answer itself says which one it means, so that nothing is left
// to a guess (docs/edits.md, several equal matches):
//
//   - an edit that changes nothing is the same wherever it lands;
//   - a copy inside the old text of a later edit of the file, which stands
//     once in the text, is that edit's: taking it would leave the later
//     edit nothing to match;
//   - the copies left over are taken in order when the later edits that
//     search the same text, and replace it the same way, are as many as
//     the copies after the first (the answer changes each copy alike, so
//     every way of pairing them gives the same file).
//
// Later edits that search the same text but replace it otherwise leave the
// choice open: which copy each means is a guess, and it is refused. Edits
// of the text beside tool calls never speak for the calls, nor the calls
// for the text: the text may narrate them.
func (f *fileRun) equalMatches(e Edit) chooser {
	return func(ranges [][2]int) int {
		if normalizeEOL(e.OldText) == normalizeEOL(e.NewText) {
			return 0
		}
		eol := detectEOL(f.final)
		same := 0
		// A copy an earlier edit like this one wrote over was that edit's:
		// its new text may hold the old text again ("</table>" wrapped in
		// "</table></div>"), and that is no copy left for this edit.
		claimed := f.takenBySiblings(e)
		for _, rec := range f.rest {
			if rec.failed {
				continue
			}
			o := rec.Edit
			if f.read != nil {
				o = f.read(o)
			}
			if o.Kind != KindEdit && o.Kind != "" || o.ReplaceAll || strings.TrimSpace(o.OldText) == "" || o.inText != e.inText {
				// Only the edits of one channel speak for each other: the
				// text beside a tool call may narrate it (readings.go).
				continue
			}
			if normalizeEOL(o.OldText) == normalizeEOL(e.OldText) {
				if normalizeEOL(o.NewText) != normalizeEOL(e.NewText) {
					return -1
				}
				same++
				continue
			}
			old := toEOL(o.OldText, eol)
			if occ := exactOccurrences(f.final, old, 2); len(occ) == 1 {
				claimed = append(claimed, [2]int{occ[0], occ[0] + len(old)})
			}
		}
		var free []int
		for k, r := range ranges {
			taken := false
			for _, c := range claimed {
				taken = taken || r[0] < c[1] && c[0] < r[1]
			}
			if !taken {
				free = append(free, k)
			}
		}
		if len(free) != same+1 {
			return -1
		}
		return free[0]
	}
}

// takenBySiblings are the places in the text now (f.final) written by
// earlier edits of the answer with e's very old and new text: the copies
// they took, in one block per copy.
func (f *fileRun) takenBySiblings(e Edit) [][2]int {
	var out [][2]int
	delta := 0 // f.final offset - f.orig offset before the hunk
	for _, h := range f.hunks {
		cs := h.start + delta
		for _, rec := range h.edits {
			o := f.edits[rec]
			if normalizeEOL(o.OldText) == normalizeEOL(e.OldText) && normalizeEOL(o.NewText) == normalizeEOL(e.NewText) {
				out = append(out, [2]int{cs, cs + len(h.text)})
				break
			}
		}
		delta += len(h.text) - (h.end - h.start)
	}
	return out
}

// replaceAll replaces every exact occurrence of e.OldText (in the file's
// line endings, never inside a word), last first so earlier offsets hold.
// None at all is a failure; the new text everywhere already is a no-op.
func (f *fileRun) replaceAll(rec *editRec, e Edit) {
	eol := detectEOL(f.final)
	oldN, newN := toEOL(e.OldText, eol), toEOL(e.NewText, eol)
	occ := exactOccurrences(f.final, oldN, 0)
	if len(occ) == 0 {
		if strings.Contains(f.final, newN) {
			f.isAlready(rec)
			return
		}
		f.fail(rec, fmt.Sprintf("old_text was not found in %s (replace_all needs it exactly, as it is in the file)", f.path))
		return
	}
	for k := len(occ) - 1; k >= 0; k-- {
		f.apply(occ[k], occ[k]+len(oldN), newN, rec, false)
	}
}

// apply replaces [s, e) of the current text with text, expressing the change
// against the original content and merging it with earlier hunks it
// overlaps or touches.
func (f *fileRun) apply(s, e int, text string, rec *editRec, write bool) {
	cur := f.final
	next := cur[:s] + text + cur[e:]
	delta := 0 // cur offset - orig offset in the unchanged text before s
	var keep, overlap []*hunkRec
	for _, h := range f.hunks {
		cs := h.start + delta
		ce := cs + len(h.text)
		switch {
		case ce < s:
			delta += len(h.text) - (h.end - h.start)
			keep = append(keep, h)
		case cs > e:
			keep = append(keep, h)
		default:
			overlap = append(overlap, h)
		}
	}
	mcs, mce := s, e
	origS := s - delta
	after := delta
	for _, h := range overlap {
		after += len(h.text) - (h.end - h.start)
	}
	origE := e - after
	merged := &hunkRec{write: write, edits: []*editRec{rec}}
	if len(overlap) > 0 {
		first, last := overlap[0], overlap[len(overlap)-1]
		if fcs := first.start + delta; fcs <= s {
			mcs, origS = fcs, first.start
		}
		if lce := last.start + (after - (len(last.text) - (last.end - last.start))) + len(last.text); lce >= e {
			mce, origE = lce, last.end
		}
		for _, h := range overlap {
			merged.write = merged.write || h.write
			merged.edits = append(merged.edits, h.edits...)
		}
		sort.Slice(merged.edits, func(a, b int) bool { return merged.edits[a].n < merged.edits[b].n })
	}
	merged.start, merged.end = origS, origE
	merged.text = next[mcs : mce+len(text)-(e-s)]
	f.final = next
	if merged.text != f.orig[merged.start:merged.end] || merged.write && merged.start == 0 && f.orig == "" {
		keep = append(keep, merged)
	}
	sort.SliceStable(keep, func(a, b int) bool { return keep[a].start < keep[b].start })
	f.hunks = keep
}

// keepUnchangedLines gives every line a hunk keeps (the same text, maybe
// with other trailing whitespace or another line ending) its original
// bytes: an answer re-typing a line it does not change never changes it
// (contract §9.2, locality). A hunk whose every change is whitespace keeps
// its text: there the whitespace is the change.
func (f *fileRun) keepUnchangedLines() {
	changed := false
	for _, h := range f.hunks {
		if t, ok := keepLineBytes(f.orig[h.start:h.end], h.text, h.end == len(f.orig)); ok && t != h.text {
			h.text, changed = t, true
		}
	}
	if changed {
		f.final = spliceSpans(f.orig, f.spans())
	}
}

// spans are the hunks as the verifier sees them.
func (f *fileRun) spans() []region {
	out := make([]region, len(f.hunks))
	for k, h := range f.hunks {
		out[k] = region{start: h.start, end: h.end, text: h.text, write: h.write, replace: h.replace}
	}
	return out
}

// change is what the verifier judges: the file before and after, and the
// spans between them.
func (f *fileRun) change(plan string) *fileChange {
	return &fileChange{path: f.path, before: f.orig, after: f.final, spans: f.spans(), plan: plan, created: f.created && f.orig == ""}
}

// refuse fails the edits of the hunks the verifier blames, with its reason;
// nothing of the file is proposed.
func (f *fileRun) refuse(ref *refusal) {
	blamed := ref.spans
	if len(blamed) == 0 {
		for k := range f.hunks {
			blamed = append(blamed, k)
		}
	}
	seen := map[*editRec]bool{}
	for _, k := range blamed {
		for _, rec := range f.hunks[k].edits {
			if !seen[rec] && !f.failed[rec] {
				seen[rec] = true
				f.fail(rec, ref.reasonFor(rec, f.path, len(ref.spans) == 0 && len(f.hunks) > 1))
			}
		}
	}
	f.hunks, f.resource = nil, nil
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
func (f *fileRun) output() []Hunk {
	var out []Hunk
	ft := newFileText(f.orig)
	for _, h := range f.hunks {
		kind := KindEdit
		if h.write {
			kind = KindWrite
		}
		start, end, text := widenOverCRLF(f.orig, h.start, h.end, h.text)
		hk := Hunk{Path: f.path, Kind: kind, Start: start, End: end, OldText: f.orig[start:end], NewText: text}
		hk.Created = f.created && f.orig == ""
		hk.Summary = summarize(ft, hk)
		out = append(out, hk)
	}
	if f.resource != nil {
		out = append(out, *f.resource)
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
	nOld, nNew := workspace.CountLines(h.OldText), workspace.CountLines(h.NewText)
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

// sameLines: a and b hold the same lines, up to line endings and trailing
// whitespace.
func sameLines(a, b string) bool {
	al, bl := trimBlankEnds(modelLines(a)), trimBlankEnds(modelLines(strings.TrimPrefix(b, bom)))
	if len(al) != len(bl) {
		return false
	}
	for i := range al {
		if trimRightWS(al[i]) != trimRightWS(bl[i]) {
			return false
		}
	}
	return true
}

// keepFinalNewline gives a whole-file write the final newline the file
// has, or its absence (contract §9.2, whole files keep what the file is,
// as they keep its byte-order mark and line endings): no answer says
// whether its last line break is meant, so the file's stays.
func keepFinalNewline(old, text, eol string) string {
	had := strings.HasSuffix(old, "\n")
	has := strings.HasSuffix(text, "\n")
	switch {
	case text == "" || had == has:
		return text
	case had:
		return text + eol
	default:
		return strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
}
