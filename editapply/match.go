package editapply

import (
	"fmt"
	"sort"
	"strings"
)

// The matching ladder (design.md). Each rung is tried only when the ones
// before it found nothing; any rung that finds more than one place refuses
// the edit, because a wrong-location edit is worse than a failed one.
const (
	rungExact    = "exact"
	rungTrailing = "trailing whitespace"
	rungIndent   = "indentation"
	rungSpaces   = "spaces inside lines"
	rungBlank    = "blank lines"
	rungElision  = "elision"
	rungFuzzy    = "fuzzy"
)

// fuzzyThreshold is the mean line similarity a fuzzy match must reach. 0.9
// accepts a typo or a changed literal in a 10-line block but not a different
// block that merely looks alike; anything lower matched wrong places in the
// corpus (tests/testdata/editapply).
const fuzzyThreshold = 0.9

// lineMode is how two lines are compared by the line rungs.
type lineMode int

const (
	modeExact lineMode = iota
	modeTrailing
	modeIndent
	// modeSpaces: as modeIndent, and runs of spaces inside a line count as
	// one (Roo matches "sum(a,   b)" to "sum(a, b)"); a line the
	// replacement keeps is written as the file has it.
	modeSpaces
)

// candidate is one place lines of the model's text match the file.
type candidate struct {
	i, j   int               // matched lines [i, j) of the file
	indent map[string]string // model indentation → file indentation, nil when equal
}

// matchAt reports whether old matches the file's lines starting at i.
func matchAt(ft *fileText, old []string, i int, mode lineMode) (bool, map[string]string) {
	if i+len(old) > len(ft.lines) {
		return false, nil
	}
	var indent, back map[string]string
	for k, o := range old {
		f := ft.text(i + k)
		switch mode {
		case modeExact:
			if f != o {
				return false, nil
			}
		case modeTrailing:
			if trimRightWS(f) != trimRightWS(o) {
				return false, nil
			}
		case modeIndent, modeSpaces:
			fb, ob := isBlank(f), isBlank(o)
			if fb || ob {
				if fb != ob {
					return false, nil
				}
				continue
			}
			fi, oi := leadingWS(f), leadingWS(o)
			if mode == modeIndent && trimRightWS(f[len(fi):]) != trimRightWS(o[len(oi):]) || mode == modeSpaces && !sameSpaced(f, o) {
				return false, nil
			}
			if indent == nil {
				indent, back = map[string]string{}, map[string]string{}
			}
			if v, ok := indent[oi]; ok && v != fi {
				return false, nil
			}
			if v, ok := back[fi]; ok && v != oi {
				return false, nil
			}
			indent[oi], back[fi] = fi, oi
		}
	}
	if mode == modeIndent || mode == modeSpaces {
		identity := true
		for k, v := range indent {
			if k != v {
				identity = false
			}
		}
		if identity {
			indent = nil
		}
	}
	return true, indent
}

// findLines returns every place old matches in lines [from, len).
func findLines(ft *fileText, old []string, mode lineMode, from int) []candidate {
	if len(old) == 0 {
		return nil
	}
	// Anchor on the first non-blank line to skip most positions cheaply.
	anchor := -1
	for k, o := range old {
		if !isBlank(o) {
			anchor = k
			break
		}
	}
	var out []candidate
	for i := from; i+len(old) <= len(ft.lines); i++ {
		if anchor >= 0 {
			f, o := ft.text(i+anchor), old[anchor]
			switch mode {
			case modeExact:
				if f != o {
					continue
				}
			case modeTrailing:
				if trimRightWS(f) != trimRightWS(o) {
					continue
				}
			case modeSpaces:
				if !sameSpaced(f, o) {
					continue
				}
			default:
				if strings.TrimSpace(f) != strings.TrimSpace(o) {
					continue
				}
			}
		}
		if ok, indent := matchAt(ft, old, i, mode); ok {
			out = append(out, candidate{i: i, j: i + len(old), indent: indent})
		}
	}
	return out
}

// reindent rewrites the indentation of the model's new lines with the map
// learned from its old lines, keeping relative indentation. Levels the map
// does not know are extended with the file's own indentation unit.
func reindent(lines []string, indent map[string]string) []string {
	if indent == nil {
		return lines
	}
	keys := make([]string, 0, len(indent))
	for k := range indent {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return len(keys[a]) > len(keys[b]) })
	fileTabs, modelUnit, fileUnit := false, 0, 0
	for _, v := range indent {
		if strings.Contains(v, "\t") {
			fileTabs = true
		}
	}
	modelUnit = smallestStep(keys)
	vals := make([]string, 0, len(indent))
	for _, v := range indent {
		vals = append(vals, v)
	}
	fileUnit = smallestStep(vals)
	// One matched level is enough to learn the ratio between the model's
	// indentation unit and the file's ("    " ↔ "\t").
	for k, v := range indent {
		if modelUnit == 0 && v != "" && strings.Trim(v, "\t") == "" && strings.Trim(k, " ") == "" && len(k)%len(v) == 0 {
			modelUnit = len(k) / len(v)
		}
		if fileUnit == 0 && k != "" && strings.Trim(k, "\t") == "" && strings.Trim(v, " ") == "" && len(v)%len(k) == 0 {
			fileUnit = len(v) / len(k)
		}
	}
	// convert re-expresses indentation deeper than any matched line: its
	// levels in the model's unit become levels in the file's unit.
	convert := func(rem string) string {
		levels, leftover := 0, ""
		switch {
		case strings.Trim(rem, "\t") == "":
			levels = len(rem)
		case strings.Trim(rem, " ") == "" && modelUnit > 0:
			levels, leftover = len(rem)/modelUnit, rem[len(rem)/modelUnit*modelUnit:]
		default:
			return rem
		}
		switch {
		case fileTabs:
			return strings.Repeat("\t", levels) + leftover
		case fileUnit > 0:
			return strings.Repeat(" ", levels*fileUnit) + leftover
		}
		return rem
	}
	out := make([]string, len(lines))
	for n, l := range lines {
		if isBlank(l) {
			out[n] = ""
			continue
		}
		ws := leadingWS(l)
		if v, ok := indent[ws]; ok {
			out[n] = v + l[len(ws):]
			continue
		}
		done := false
		for _, k := range keys {
			if strings.HasPrefix(ws, k) {
				out[n] = indent[k] + convert(ws[len(k):]) + l[len(ws):]
				done = true
				break
			}
		}
		if !done {
			// Less indented than anything matched: shift by the delta of
			// the least indented matched line when that is a pure prefix.
			k := keys[len(keys)-1]
			if v := indent[k]; strings.HasPrefix(v, k) {
				out[n] = v[:len(v)-len(k)] + l
			} else {
				out[n] = l
			}
		}
	}
	return out
}

// smallestStep is the smallest positive difference between indentation
// widths, i.e. one indentation level.
func smallestStep(ws []string) int {
	best := 0
	for _, a := range ws {
		for _, b := range ws {
			if d := len(a) - len(b); d > 0 && (best == 0 || d < best) {
				best = d
			}
		}
	}
	return best
}

// pattern is one line of the model's text prepared for many comparisons:
// trimmed once, with the match-vector table of the bit-parallel edit
// distance when it fits in a machine word.
type pattern struct {
	s   string
	peq *[256]uint64
}

func newPattern(line string) pattern {
	p := pattern{s: strings.TrimSpace(line)}
	if n := len(p.s); n > 0 && n <= 64 {
		p.peq = new([256]uint64)
		for i := 0; i < n; i++ {
			p.peq[p.s[i]] |= 1 << uint(i)
		}
	}
	return p
}

func (p pattern) similarity(line string) float64 {
	a, b := strings.TrimSpace(line), p.s
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	longer := max(la, lb)
	if longer == 0 {
		return 1
	}
	shorter := la + lb - longer
	if float64(shorter)/float64(longer) < 0.5 {
		return float64(shorter) / float64(longer) / 2 // cheap bound, far below any threshold
	}
	var d int
	if p.peq != nil {
		d = bitLevenshtein(p.peq, lb, a)
	} else {
		d = levenshtein(a, b)
	}
	return 1 - float64(d)/float64(longer)
}

// bitLevenshtein is the edit distance between the pattern (m ≤ 64 bytes,
// described by peq) and text, by Hyyrö's bit-parallel form of Myers'
// algorithm: O(len(text)) word operations instead of O(m·len(text)) cells.
func bitLevenshtein(peq *[256]uint64, m int, text string) int {
	pv, mv := ^uint64(0), uint64(0)
	if m < 64 {
		pv = (uint64(1) << uint(m)) - 1
	}
	last := uint64(1) << uint(m-1)
	score := m
	for j := 0; j < len(text); j++ {
		eq := peq[text[j]]
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		if ph&last != 0 {
			score++
		} else if mh&last != 0 {
			score--
		}
		ph = ph<<1 | 1
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
	}
	return score
}

// levenshtein on bytes, capped at 256 bytes a side so one very long line
// cannot make the fuzzy rung quadratic in line length.
func levenshtein(a, b string) int {
	const limit = 256
	extra := 0
	if len(a) > limit {
		extra += len(a) - limit
		a = a[:limit]
	}
	if len(b) > limit {
		extra += len(b) - limit
		b = b[:limit]
	}
	var buf [2 * (limit + 1)]int
	prev, cur := buf[:len(b)+1], buf[limit+1:limit+1+len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[j-1] + cost
			if d := prev[j] + 1; d < v {
				v = d
			}
			if d := cur[j-1] + 1; d < v {
				v = d
			}
			cur[j] = v
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] + extra
}

// maxFuzzyWork bounds the fuzzy rung: the line comparisons one scan may
// make (windows × old lines). Each compares two lines character by
// character, so past it a long old_text in a long file (a hostile or
// confused answer) would hold the editor pass for seconds or minutes; the
// edit is refused instead, asking for exact lines. 10,000 lines × 100 old
// lines fit; BenchmarkFuzzyWorstCase5000's 5,000 × 40 (a fifth of it)
// takes about 33 ms, so a scan at the bound stays near 0.2 s.
const maxFuzzyWork = 1_000_000

// fuzzyAffordable reports whether a fuzzy scan of old in ft stays within
// maxFuzzyWork.
func fuzzyAffordable(ft *fileText, old []string) bool {
	windows := len(ft.lines) - len(old) + 1
	return windows <= 0 || windows*len(old) <= maxFuzzyWork
}

// fuzzyScan scores every window of len(old) lines and returns the best and
// the windows at or above min. Windows that cannot reach min are abandoned
// early, which keeps the usual case cheap; the worst case is bounded by
// lines × len(old) line comparisons.
func fuzzyScan(ft *fileText, old []string, min float64) (best candidate, bestScore float64, above []scored) {
	m := len(old)
	bestScore = -1
	if m == 0 || m > len(ft.lines) {
		return
	}
	need := min * float64(m)
	pats := make([]pattern, m)
	for k, o := range old {
		pats[k] = newPattern(o)
	}
	for i := 0; i+m <= len(ft.lines); i++ {
		sum := 0.0
		ok := true
		minLine, mismatch := 1.0, false
		for k := 0; k < m; k++ {
			sim := pats[k].similarity(ft.text(i + k))
			sum += sim
			// A blank SEARCH line scores 1 only against a blank line; a
			// blank file line scores 0 against any other (below minLine).
			if pats[k].s == "" {
				mismatch = mismatch || sim < 1
			} else if sim < minLine {
				minLine = sim
			}
			if sum+float64(m-k-1) < need && sum+float64(m-k-1) < bestScore*float64(m) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		score := sum / float64(m)
		if score > bestScore {
			bestScore, best = score, candidate{i: i, j: i + m}
		}
		if score >= min {
			above = append(above, scored{candidate{i: i, j: i + m}, score, minLine, mismatch})
		}
	}
	return
}

type scored struct {
	candidate
	score float64
	// minLine is the lowest similarity of a non-blank SEARCH line with the
	// file line it stands against; blankMismatch: a blank line stands
	// against a non-blank one. Both say whether the window aligns line for
	// line (plausibleFuzzy).
	minLine       float64
	blankMismatch bool
}

// maxClosest caps the lines shown as "closest": a retry prompt needs the
// place, not the whole file.
const maxClosest = 40

// closestLines renders the file lines most like old, numbered, for a
// retry prompt ("did you mean").
func closestLines(ft *fileText, old []string) string {
	old = trimBlankEnds(old)
	if len(old) == 0 || len(ft.lines) == 0 {
		return ""
	}
	m := len(old)
	if m > len(ft.lines) {
		m = len(ft.lines)
	}
	if !fuzzyAffordable(ft, old[:m]) {
		return "" // a hint, not worth an unbounded scan
	}
	best, score, _ := fuzzyScan(ft, old[:m], 2) // 2: nothing is "above"; we want the best only
	if score <= 0 {
		return ""
	}
	i, j := best.i, best.j
	if j-i > maxClosest {
		j = i + maxClosest
	}
	return numbered(ft, i, j)
}

func numbered(ft *fileText, i, j int) string {
	var b strings.Builder
	width := len(fmt.Sprint(j))
	for k := i; k < j; k++ {
		fmt.Fprintf(&b, "%*d | %s\n", width, k+1, ft.text(k))
	}
	return b.String()
}

func trimBlankEnds(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineRanges formats candidates as "lines 3-7 and 20-24" for a refusal.
func lineRanges(cs []candidate) string {
	parts := make([]string, 0, len(cs))
	for n, c := range cs {
		if n == 5 {
			parts = append(parts, fmt.Sprintf("%d more", len(cs)-5))
			break
		}
		if c.j-c.i <= 1 {
			parts = append(parts, fmt.Sprint(c.i+1))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", c.i+1, c.j))
		}
	}
	if len(parts) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// collapseSpaces is a line with its runs of blanks as one space and none at
// its ends.
func collapseSpaces(l string) string { return strings.Join(strings.Fields(l), " ") }

// sameSpaced: a and b are the same line up to runs of blanks (collapseSpaces
// of both agree), compared without allocating: the rung runs over every
// line of a file the SEARCH text was not found in.
func sameSpaced(a, b string) bool {
	i, j := skipBlanks(a, 0), skipBlanks(b, 0)
	for i < len(a) && j < len(b) {
		ba, bb := isBlankByte(a[i]), isBlankByte(b[j])
		switch {
		case ba != bb:
			return false
		case ba:
			i, j = skipBlanks(a, i), skipBlanks(b, j)
			if (i == len(a)) != (j == len(b)) {
				return false // a run of blanks inside one line, at the end of the other
			}
			continue
		case a[i] != b[j]:
			return false
		}
		i++
		j++
	}
	return skipBlanks(a, i) == len(a) && skipBlanks(b, j) == len(b)
}

func isBlankByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func skipBlanks(s string, k int) int {
	for k < len(s) && isBlankByte(s[k]) {
		k++
	}
	return k
}
