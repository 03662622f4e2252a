package editapply

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// located is where an edit_file/SEARCH edit goes in the current text: bytes
// [start, end) become text.
type located struct {
	start, end int
	text       string
	rung       string
}

// locateError is a refusal with what the model needs to retry.
type locateError struct {
	reason  string
	closest string
	already bool // the new text is already there: not a failure
	// notFound: the SEARCH text matched nowhere (not several places), so a
	// normalisation may still find it.
	notFound bool
}

// locate runs the matching ladder for one replacement of oldText by newText in
// content (path only names the file in messages and picks elision rules).
func locate(content, oldText, newText, path string) (located, *locateError) {
	return locateAmong(content, oldText, newText, path, nil)
}

// chooser picks one of several equal matches of an edit's old text, given
// their byte ranges [start, end) in the content, or returns -1 when the
// answer does not say which it means (equalMatches, resolvefile.go). A nil
// chooser never picks.
type chooser func(ranges [][2]int) int

func (c chooser) pick(ranges [][2]int) int {
	if c == nil {
		return -1
	}
	if k := c(ranges); k >= 0 && k < len(ranges) {
		return k
	}
	return -1
}

// locateAmong is locate with a chooser for equal matches: where a rung
// finds the old text several times (the same text, not similar text: never
// under the fuzzy or elision rungs), the chooser may name the one meant.
func locateAmong(content, oldText, newText, path string, choose chooser) (located, *locateError) {
	oldLines := modelLines(oldText)
	newLines := modelLines(newText)
	if len(trimBlankEnds(oldLines)) == 0 {
		return located{}, &locateError{reason: fmt.Sprintf("old_text is empty or blank; copy the exact lines of %s to replace into old_text (to create or overwrite a whole file use write_file)", path)}
	}
	if err := checkNewElision(oldLines, newLines, path); err != nil {
		return located{}, err
	}

	// Rung 1: exact, byte for byte (after line-ending normalisation). The
	// line table is built only when this rung does not settle it.
	eol, base := detectEOL(content), bomLen(content)
	oldN, newN := toEOL(oldText, eol), toEOL(newText, eol)
	if strings.HasSuffix(oldN, "\n") && newN != "" && !strings.HasSuffix(newN, "\n") {
		newN += eol
	} else if !strings.HasSuffix(oldN, "\n") && strings.HasSuffix(newN, "\n") {
		newN = strings.TrimSuffix(strings.TrimSuffix(newN, "\n"), "\r")
	}
	body := content[base:]
	if occ := exactOccurrences(body, oldN, 2); len(occ) > 0 {
		s := base + occ[0]
		if len(occ) > 1 {
			all := exactOccurrences(body, oldN, 0)
			ranges := make([][2]int, len(all))
			for k, at := range all {
				ranges[k] = [2]int{base + at, base + at + len(oldN)}
			}
			k := choose.pick(ranges)
			if k < 0 {
				ft := newFileText(content)
				return located{}, ambiguous(ft, exactCandidates(ft, body, oldN), path, rungExact)
			}
			s = ranges[k][0]
		}
		if alreadyExact(content, s, oldN, newN) {
			return located{}, &locateError{already: true, reason: fmt.Sprintf("the new text is already present in %s at line %d", path, strings.Count(content[:s], "\n")+1)}
		}
		return located{start: s, end: s + len(oldN), text: newN, rung: rungExact}, nil
	}
	ft := newFileText(content)

	// Rungs 2-4 on whole lines, then the same with spurious blank lines gone.
	tries := []struct {
		old, new []string
		blank    bool
	}{{oldLines, newLines, false}}
	if so, sn := stripSpuriousBlank(oldLines, newLines); len(so) != len(oldLines) {
		tries = append(tries, struct {
			old, new []string
			blank    bool
		}{so, sn, true})
	}
	for _, t := range tries {
		for _, mode := range []lineMode{modeExact, modeTrailing, modeIndent, modeSpaces} {
			cs := findLines(ft, t.old, mode, 0)
			rung := []string{rungExact, rungTrailing, rungIndent, rungSpaces}[mode]
			if t.blank {
				rung = rungBlank
			}
			if len(cs) > 1 {
				ranges := make([][2]int, len(cs))
				for k, c := range cs {
					ranges[k][0], ranges[k][1] = ft.span(c.i, c.j)
				}
				k := choose.pick(ranges)
				if k < 0 {
					return located{}, ambiguous(ft, cs, path, rung)
				}
				cs = cs[k : k+1]
			}
			if len(cs) == 1 {
				c := cs[0]
				if alreadyLines(ft, c, t.old, t.new, mode) {
					return located{}, &locateError{already: true, reason: fmt.Sprintf("the new text is already present in %s at line %d", path, c.i+1)}
				}
				out := reindent(t.new, c.indent)
				if mode != modeExact {
					keepFileLines(ft, c.i, t.old, t.new, out)
				}
				return replaceLines(ft, c.i, c.j, out, rung), nil
			}
		}
	}

	// Rung 5: "..." elision lines in the SEARCH text.
	if hasElision(oldLines, path) {
		return locateElided(ft, oldLines, newLines, path)
	}

	// Before guessing, is the change already made?
	if loc := findAlready(ft, body, newN, newLines); loc >= 0 {
		return located{}, &locateError{already: true, reason: fmt.Sprintf("old_text was not found but the new text is already present in %s at line %d", path, loc+1)}
	}

	// Rung 6: bounded fuzzy, unique only.
	old := trimBlankEnds(oldLines)
	if !fuzzyAffordable(ft, old) {
		return located{}, &locateError{notFound: true, reason: fmt.Sprintf("old_text was not found exactly in %s, and at %d lines against the file's %d it is too long to be searched approximately; copy the lines exactly as they are in the file", path, len(old), len(ft.lines))}
	}
	best, bestScore, above := fuzzyScan(ft, old, fuzzyThreshold)
	above = plausibleFuzzy(ft, old, above)
	if len(above) > 0 {
		top := above[0]
		for _, a := range above {
			if a.score > top.score {
				top = a
			}
		}
		var rivals []candidate
		for _, a := range above {
			if a.i == top.i {
				continue
			}
			overlaps := a.i < top.j && top.i < a.j
			if !overlaps || a.score >= top.score {
				rivals = append(rivals, a.candidate)
			}
		}
		if len(rivals) > 0 {
			return located{}, ambiguous(ft, append([]candidate{top.candidate}, rivals...), path, rungFuzzy)
		}
		nl := trimBlankEndsLike(newLines, oldLines)
		if err := rewritesMisquoted(ft, top.i, old, nl, path); err != nil {
			return located{}, err
		}
		if err := crossesDefinition(ft, top.i, old, path); err != nil {
			return located{}, err
		}
		out := reindent(nl, firstIndentDelta(ft, top.candidate, old))
		// A line the replacement keeps from the SEARCH text is written as
		// the file has it: a near match never rewrites a line the answer
		// did not mean to change.
		keepFileLines(ft, top.i, old, nl, out)
		return replaceLines(ft, top.i, top.j, out, rungFuzzy), nil
	}
	reason := fmt.Sprintf("old_text was not found in %s", path)
	closest := ""
	if bestScore > 0 {
		closest = numbered(ft, best.i, min(best.j, best.i+maxClosest))
	} else {
		closest = closestLines(ft, oldLines) // old is longer than the file
	}
	if closest != "" {
		reason += fmt.Sprintf(" (the closest lines, shown below, are only %.0f%% similar); copy the lines exactly as they are in the file into old_text", 100*clamp01(bestScore))
	} else {
		reason += "; copy the lines exactly as they are in the file into old_text"
	}
	return located{}, &locateError{reason: reason, closest: closest, notFound: true}
}

// keepFileLines writes each replacement line that repeats a SEARCH line as
// the file has that line (its trailing whitespace, its indentation, its
// spelling under the fuzzy rung): a near match never rewrites a line the
// answer did not mean to change. out is the replacement as built so far,
// parallel to new; old matched the file's lines from line i on.
func keepFileLines(ft *fileText, i int, old, new, out []string) {
	if len(new) == 0 {
		return
	}
	at := make(map[string]int, len(old))
	for m := len(old) - 1; m >= 0; m-- {
		at[old[m]] = m
	}
	for k, n := range new {
		if m, ok := at[n]; ok && i+m < len(ft.lines) {
			out[k] = ft.text(i + m)
		}
	}
}

func clamp01(f float64) float64 {
	if f < 0 {
		return 0
	}
	if f > 1 {
		return 1
	}
	return f
}

// replaceLines builds the replacement of whole lines [i, j) by newLines in
// the file's line endings, keeping a missing final newline missing when
// the last line is replaced. Deleting the last lines leaves the line
// before them as it is, line break included (as git, sed and the peers
// do): the result does not depend on whether the answer quoted that line.
func replaceLines(ft *fileText, i, j int, newLines []string, rung string) located {
	s, e := ft.span(i, j)
	last := ft.lines[j-1]
	terminated := last.next > last.end
	if len(newLines) == 0 {
		return located{start: s, end: e, text: "", rung: rung}
	}
	text := strings.Join(newLines, ft.eol)
	if terminated {
		text += ft.eol
	}
	return located{start: s, end: e, text: text, rung: rung}
}

// exactOccurrences returns up to limit offsets of needle in body (limit <= 0:
// all) that do not cut a word in two: "return 1" is not found inside
// "return 10", which would be an edit at a wrong place.
func exactOccurrences(body, needle string, limit int) []int {
	var out []int
	for i := 0; i <= len(body); {
		k := strings.Index(body[i:], needle)
		if k < 0 {
			break
		}
		at := i + k
		if runeBoundary(body, at) && runeBoundary(body, at+len(needle)) &&
			wordBoundary(body, at, needle, true) && wordBoundary(body, at+len(needle), needle, false) {
			out = append(out, at)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		_, size := utf8.DecodeRuneInString(body[at:])
		i = at + max(size, 1)
	}
	return out
}

// runeBoundary: a match must not start or end inside a multi-byte UTF-8
// character (a model's text cut mid-rune would leave invalid UTF-8 that no
// LSP position can express).
func runeBoundary(body string, at int) bool {
	return at <= 0 || at >= len(body) || utf8.RuneStart(body[at])
}

// wordBoundary: at the start (or end) of a match, the needle's first (or
// last) character and the body's neighbouring one are not both word
// characters.
func wordBoundary(body string, at int, needle string, start bool) bool {
	if needle == "" {
		return true
	}
	var inside, outside rune
	if start {
		if at == 0 {
			return true
		}
		inside, _ = utf8.DecodeRuneInString(needle)
		outside, _ = utf8.DecodeLastRuneInString(body[:at])
	} else {
		if at >= len(body) {
			return true
		}
		inside, _ = utf8.DecodeLastRuneInString(needle)
		outside, _ = utf8.DecodeRuneInString(body[at:])
	}
	return !(isWord(inside) && isWord(outside))
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func exactCandidates(ft *fileText, body, needle string) []candidate {
	var cs []candidate
	off := len(ft.content) - len(body)
	for _, at := range exactOccurrences(body, needle, 0) {
		s := off + at
		a := ft.lineAt(s)
		b := ft.lineAt(s+len(needle)-1) + 1
		if needle == "" || b <= a {
			b = a + 1
		}
		cs = append(cs, candidate{i: a, j: b})
	}
	return cs
}

func ambiguous(ft *fileText, cs []candidate, path, rung string) *locateError {
	how := ""
	if rung != rungExact {
		how = fmt.Sprintf(" (compared %s)", map[string]string{
			rungTrailing: "ignoring trailing whitespace", rungIndent: "ignoring indentation", rungSpaces: "ignoring spaces inside lines",
			rungBlank: "ignoring leading and trailing blank lines", rungElision: "with its ... lines",
			rungFuzzy: "approximately",
		}[rung])
	}
	var closest strings.Builder
	for n, c := range cs {
		if n == 3 {
			break
		}
		j := c.j
		if j-c.i > 12 {
			j = c.i + 12
		}
		closest.WriteString(numbered(ft, c.i, j))
		closest.WriteString("---\n")
	}
	return &locateError{
		reason: fmt.Sprintf("old_text matches %d places in %s%s, at %s; include more surrounding lines in old_text so that it matches exactly one place",
			len(cs), path, how, lineRanges(cs)),
		closest: strings.TrimSuffix(closest.String(), "---\n"),
	}
}

// alreadyExact: new contains old and the file already holds new around the
// match, so applying again would duplicate the addition.
func alreadyExact(content string, s int, oldN, newN string) bool {
	if newN == oldN || newN == "" {
		return newN == oldN
	}
	k := strings.Index(newN, oldN)
	if k < 0 {
		return false
	}
	for k >= 0 {
		at := s - k
		if at >= 0 && at+len(newN) <= len(content) && content[at:at+len(newN)] == newN {
			return true
		}
		next := strings.Index(newN[k+1:], oldN)
		if next < 0 {
			break
		}
		k += next + 1
	}
	return false
}

func alreadyLines(ft *fileText, c candidate, old, new []string, mode lineMode) bool {
	if len(new) < len(old) {
		return false
	}
	if len(new) == len(old) {
		for k := range new {
			if new[k] != old[k] {
				return false
			}
		}
		return true
	}
	for k := 0; k+len(old) <= len(new); k++ {
		same := true
		for n := range old {
			if trimRightWS(new[k+n]) != trimRightWS(old[n]) {
				same = false
				break
			}
		}
		if !same || c.i-k < 0 {
			continue
		}
		if ok, _ := matchAt(ft, new, c.i-k, mode); ok {
			return true
		}
	}
	return false
}

// findAlready returns the line where the new text already stands, or -1.
func findAlready(ft *fileText, body, newN string, newLines []string) int {
	if len(trimBlankEnds(newLines)) == 0 {
		return -1
	}
	if occ := exactOccurrences(body, newN, 1); len(occ) > 0 && strings.TrimSpace(newN) != "" {
		return ft.lineAt(len(ft.content) - len(body) + occ[0])
	}
	nl := trimBlankEnds(newLines)
	for _, mode := range []lineMode{modeTrailing, modeIndent} {
		if cs := findLines(ft, nl, mode, 0); len(cs) == 1 {
			return cs[0].i
		}
	}
	return -1
}

// stripSpuriousBlank drops blank lines at the ends of old (and the same ends
// of new, when new has them too).
func stripSpuriousBlank(old, new []string) ([]string, []string) {
	for len(old) > 0 && isBlank(old[0]) {
		old = old[1:]
		if len(new) > 0 && isBlank(new[0]) {
			new = new[1:]
		}
	}
	for len(old) > 0 && isBlank(old[len(old)-1]) {
		old = old[:len(old)-1]
		if len(new) > 0 && isBlank(new[len(new)-1]) {
			new = new[:len(new)-1]
		}
	}
	return old, new
}

func trimBlankEndsLike(new, old []string) []string {
	_, n := stripSpuriousBlank(old, new)
	return n
}

// firstIndentDelta maps the first non-blank old line's indentation to the
// file's at a fuzzy match, so new text lands at the file's indentation.
func firstIndentDelta(ft *fileText, c candidate, old []string) map[string]string {
	for k, o := range old {
		if isBlank(o) || isBlank(ft.text(c.i+k)) {
			continue
		}
		oi, fi := leadingWS(o), leadingWS(ft.text(c.i+k))
		if oi == fi {
			return nil
		}
		return map[string]string{oi: fi}
	}
	return nil
}

func hasElision(lines []string, path string) bool {
	for _, l := range lines {
		if isElision(l, path) {
			return true
		}
	}
	return false
}

// checkNewElision refuses new text that would delete code through elision: an
// elision line in new that old does not account for.
func checkNewElision(old, new []string, path string) *locateError {
	oldMarks := map[string]int{}
	for _, l := range old {
		if isElision(l, path) {
			oldMarks[strings.TrimSpace(l)]++
		}
	}
	for _, l := range new {
		if !isElision(l, path) {
			continue
		}
		key := strings.TrimSpace(l)
		if oldMarks[key] > 0 {
			oldMarks[key]--
			continue
		}
		if countElision(old, path) > 0 {
			continue // elided SEARCH text: paired up by locateElided
		}
		return &locateError{reason: fmt.Sprintf("new_text contains the elision line %q, which would delete the code it stands for in %s; write out every line of the replacement in full (or make old_text smaller so that new_text needs no elision)", key, path)}
	}
	return nil
}

func countElision(lines []string, path string) int {
	n := 0
	for _, l := range lines {
		if isElision(l, path) {
			n++
		}
	}
	return n
}

// locateElided matches SEARCH text with "..." lines: each run of real lines
// must match in order, the elided lines between them are kept, and new text
// must carry the same elision lines so each run has its replacement.
func locateElided(ft *fileText, oldLines, newLines []string, path string) (located, *locateError) {
	split := func(lines []string) [][]string {
		var segs [][]string
		cur := []string{}
		for _, l := range lines {
			if isElision(l, path) {
				segs = append(segs, cur)
				cur = []string{}
				continue
			}
			cur = append(cur, l)
		}
		return append(segs, cur)
	}
	oldSegs, newSegs := split(oldLines), split(newLines)
	if len(oldSegs) != len(newSegs) {
		return located{}, &locateError{reason: fmt.Sprintf("old_text uses %d elision line(s) (\"...\") but new_text has %d; an elided old_text can only be applied when new_text keeps the same elision lines in the same places. Better: write old_text out in full for %s", len(oldSegs)-1, len(newSegs)-1, path)}
	}
	// Leading and trailing elisions mean nothing: drop empty end segments.
	for len(oldSegs) > 0 && len(trimBlankEnds(oldSegs[0])) == 0 && len(trimBlankEnds(newSegs[0])) == 0 {
		oldSegs, newSegs = oldSegs[1:], newSegs[1:]
	}
	for n := len(oldSegs); n > 0 && len(trimBlankEnds(oldSegs[n-1])) == 0 && len(trimBlankEnds(newSegs[n-1])) == 0; n-- {
		oldSegs, newSegs = oldSegs[:n-1], newSegs[:n-1]
	}
	for k := range oldSegs {
		oldSegs[k], newSegs[k] = stripSpuriousBlank(oldSegs[k], newSegs[k])
		if len(oldSegs[k]) == 0 {
			return located{}, &locateError{reason: fmt.Sprintf("old_text has two elision lines with nothing between them, or new lines added where old_text elides; write old_text for %s out in full", path)}
		}
	}
	if len(oldSegs) == 0 {
		return located{}, &locateError{reason: "old_text holds only elision lines; copy the exact lines to replace"}
	}
	type chain []candidate
	var chains []chain
	for _, mode := range []lineMode{modeExact, modeTrailing, modeIndent} {
		for _, first := range findLines(ft, oldSegs[0], mode, 0) {
			ch := chain{first}
			for k := 1; k < len(oldSegs); k++ {
				next := findLines(ft, oldSegs[k], mode, ch[len(ch)-1].j)
				if len(next) == 0 {
					ch = nil
					break
				}
				ch = append(ch, next[0])
			}
			if ch != nil {
				chains = append(chains, ch)
			}
		}
		if len(chains) > 0 {
			break
		}
	}
	if len(chains) == 0 {
		return located{}, &locateError{
			reason:  fmt.Sprintf("old_text (with its elision lines) was not found in %s; copy the lines exactly as they are in the file", path),
			closest: closestLines(ft, oldSegs[0]),
		}
	}
	if len(chains) > 1 {
		firsts := make([]candidate, len(chains))
		for n, ch := range chains {
			firsts[n] = candidate{i: ch[0].i, j: ch[len(ch)-1].j}
		}
		return located{}, ambiguous(ft, firsts, path, rungElision)
	}
	ch := chains[0]
	var out []string
	for k, c := range ch {
		out = append(out, reindent(newSegs[k], c.indent)...)
		if k+1 < len(ch) {
			for l := c.j; l < ch[k+1].i; l++ {
				out = append(out, ft.text(l))
			}
		}
	}
	return replaceLines(ft, ch[0].i, ch[len(ch)-1].j, out, rungElision), nil
}

// minLineSimilarity is what every line of a fuzzy match must reach with
// the line it stands against: the match aligns line for line, so a SEARCH
// text that skips a line of the file (every later line shifted, but alike
// enough on average) is refused instead of deleting the skipped line.
const minLineSimilarity = 0.7

// plausibleFuzzy keeps the fuzzy candidates that also agree on structure:
// old text of at least two non-blank lines, at least half of them equal
// (ignoring surrounding whitespace). A single line that is "90% similar" is
// too often a different line ("30 * time.Second" inside "300 * time.Second").
func plausibleFuzzy(ft *fileText, old []string, cs []scored) []scored {
	nonBlank := 0
	for _, o := range old {
		if !isBlank(o) {
			nonBlank++
		}
	}
	if nonBlank < 2 {
		return nil
	}
	var out []scored
	for _, c := range cs {
		if c.blankMismatch || c.minLine < minLineSimilarity {
			continue // a skipped or added line shifts the rest
		}
		equal := 0
		for k, o := range old {
			if !isBlank(o) && strings.TrimSpace(o) == strings.TrimSpace(ft.text(c.i+k)) {
				equal++
			}
		}
		if 2*equal >= nonBlank {
			out = append(out, c)
		}
	}
	return out
}

// rewritesMisquoted refuses a near match whose replacement changes a line
// the SEARCH text misquotes (other words than the file's line there, not
// only other spaces): the answer never saw that line as it is, so writing
// over it is a guess (docs/edits.md, fuzzy matching). A misquoted line the
// replacement keeps, or writes as the file has it, is no such rewrite.
func rewritesMisquoted(ft *fileText, i int, old, new []string, path string) *locateError {
	kept := make(map[string]bool, len(new))
	for _, n := range new {
		kept[collapseSpaces(n)] = true
	}
	for k, o := range old {
		f := ft.text(i + k)
		if collapseSpaces(o) == collapseSpaces(f) || kept[collapseSpaces(o)] || kept[collapseSpaces(f)] {
			continue // the same line, or one the replacement keeps as it is in the file
		}
		return &locateError{notFound: true, reason: fmt.Sprintf("old_text was not found exactly in %s: its line %q is %q at line %d of the file, and the new text changes that line, so it would overwrite a line you have not seen as it is; copy the lines exactly as they are in the file into old_text", path, strings.TrimSpace(o), strings.TrimSpace(f), i+k+1), closest: numbered(ft, i, min(i+len(old), i+maxClosest))}
	}
	return nil
}

// crossesDefinition holds the invariant that a near match stays in the
// definition the answer's own text names (contract §9.2, matching): similar
// text in a differently named function is another function, and editing it
// is a guess. Two readings of "names" are checked, both on tree-sitter tags:
//
//   - a definition the old text itself declares (its own tags, parsed as a
//     fragment: function, method, class, type) must be one the region holds
//     or the definition the region lies in (the nearest above it), under the
//     same name: "func Delete" standing on "func Get" is refused however
//     unlike the two names are;
//   - a definition that starts on a line of the region must not be named
//     otherwise by the old line standing against it (a misspelt or near
//     name, where the fragment does not parse as a definition).
//
// Both names go back, so the model can say which it means.
func crossesDefinition(ft *fileText, i int, old []string, path string) *locateError {
	tags, err := treesitter.Tags(path, []byte(ft.content))
	if err != nil {
		return nil
	}
	refuse := func(where, theirs, line string) *locateError {
		return &locateError{notFound: true, reason: fmt.Sprintf("old_text was not found exactly in %s: the nearest lines (%d to %d) are %s, but the old text names %s there (%q); a near match never moves an edit to another definition. Copy the lines of the one you mean exactly as they are in the file", path, i+1, i+len(old), where, theirs, strings.TrimSpace(line)), closest: numbered(ft, i, min(i+len(old), i+maxClosest))}
	}
	if own, err := treesitter.Tags(path, []byte(strings.Join(old, "\n"))); err == nil {
		for _, o := range own {
			if !o.Def || !scopeKind(o.Kind) || o.Line < 1 || o.Line > len(old) {
				continue
			}
			if where, ok := enclosing(tags, i, i+len(old), o.Name); !ok {
				return refuse(where, o.Kind+" "+o.Name, old[o.Line-1])
			}
		}
	}
	for _, t := range tags {
		k := t.Line - 1 - i
		if !t.Def || k < 0 || k >= len(old) || mentions(old[k], t.Name) {
			continue
		}
		theirs := nearestWord(old[k], t.Name)
		if theirs == "" {
			continue // the line names nothing: a definition the text does not mention
		}
		return refuse("in "+t.Kind+" "+t.Name, theirs, old[k])
	}
	return nil
}

// scopeKind: a definition kind that encloses code (a function, a method, a
// class or type), as opposed to a variable or field, which a fragment cut
// from inside a body would declare out of its context.
func scopeKind(kind string) bool {
	switch kind {
	case "constant", "variable", "field", "property":
		return false
	}
	return true
}

// enclosing reports whether the definition called name starts on a line of
// [i, j) or is the one those lines lie in (the nearest enclosing-kind
// definition starting above i). When it is not, where names the file's
// definition there (the first of the region, else the one above) for the
// refusal.
func enclosing(tags []treesitter.Tag, i, j int, name string) (where string, ok bool) {
	var kind, other string
	var above *treesitter.Tag
	for n := range tags {
		t := &tags[n]
		if !t.Def || !scopeKind(t.Kind) {
			continue
		}
		switch l := t.Line - 1; {
		case l >= i && l < j:
			if t.Name == name {
				return "", true
			}
			if other == "" {
				kind, other = t.Kind, t.Name
			}
		case l < i && (above == nil || l >= above.Line-1):
			above = t
		}
	}
	if above != nil && above.Name == name {
		return "", true
	}
	if other == "" && above != nil {
		kind, other = above.Kind, above.Name
	}
	if other == "" {
		return "outside any definition", false
	}
	return "in " + kind + " " + other, false
}

// nearestWord is the identifier of line most like name (a misspelling of
// it, another definition's name), or "" when none is close.
func nearestWord(line, name string) string {
	best, bestD := "", len(name)/2+1
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return !isWord(r) }) {
		if d := levenshtein(w, name); d < bestD {
			best, bestD = w, d
		}
	}
	return best
}
