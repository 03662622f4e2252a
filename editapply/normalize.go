package editapply

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Normalisations: what models do to text they copy (docs/contract.md §9).
// Each is tried only when the edit as written is found nowhere, and taken
// only when it makes the SEARCH text match exactly one place without the
// fuzzy rung. The replacement is changed the same way only when it shows
// the same symptom (a gutter on every line, literal "\n" and no line
// break...); lines the replacement keeps from the SEARCH text are written
// as the file has them, never as the normalisation spelled them.

// gutterLine is a line-number gutter: "12 | ", "12: ", "12→", "12\t"
// (our own retry prompt shows "12 | ").
var gutterLine = regexp.MustCompile(`^\s*\d{1,6}(?: ?\| ?| ?: |→|\t)`)

type normalisation struct {
	name string
	// old rewrites the SEARCH text; ok is false when it does not apply.
	old func(old string) (string, bool)
	// new rewrites the replacement when it has the same symptom.
	new func(new, content string) string
}

var normalisations = []normalisation{
	{"line-number gutters", stripGutters, func(n, _ string) string {
		if s, ok := stripGutters(n); ok {
			return s
		}
		return n
	}},
	// Only old_text decoded made the match, so the call was encoded as a
	// whole: the replacement is decoded too when it shows the encoding.
	{"JSON escapes", unescapeJSON, func(n, _ string) string {
		if s, ok := unescapeJSON(n); ok {
			return s
		}
		return n
	}},
	// Quotes escaped with a backslash (\" \' \`) where the file has them
	// bare: the text was quoted once more on its way (Cline's patch tests).
	{"escaped quotes", unescapeQuotes, func(n, _ string) string {
		if s, ok := unescapeQuotes(n); ok {
			return s
		}
		return n
	}},
	{"HTML entities", unescapeHTML, func(n, _ string) string {
		if s, ok := unescapeHTML(n); ok {
			return s
		}
		return n
	}},
	{"a fence around the text", unfence, func(n, _ string) string {
		if s, ok := unfence(n); ok {
			return s
		}
		return n
	}},
}

// locateNormalized retries a not-found edit with each normalisation.
func locateNormalized(content, oldText, newText, path string) (located, *locateError, bool) {
	for _, nz := range normalisations {
		o, ok := nz.old(oldText)
		if !ok || o == oldText || strings.TrimSpace(o) == "" {
			continue
		}
		n := nz.new(newText, content)
		loc, err := locate(content, o, n, path)
		if err == nil && loc.rung != rungFuzzy || err != nil && err.already {
			return loc, err, true
		}
	}
	if loc, ok := locateFolded(content, oldText, newText); ok {
		return loc, nil, true
	}
	return located{}, nil, false
}

func stripGutters(s string) (string, bool) {
	lines := modelLines(s)
	n := 0
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if !gutterLine.MatchString(l) {
			return s, false
		}
		n++
	}
	if n == 0 {
		return s, false
	}
	out := make([]string, len(lines))
	for k, l := range lines {
		if loc := gutterLine.FindStringIndex(l); loc != nil {
			l = l[loc[1]:]
		}
		out[k] = l
	}
	return joinLines(out), true
}

// unescapeJSON undoes a second JSON encoding: old_text with literal "\n"
// (and "\t", "\"") and no real line break.
func unescapeJSON(s string) (string, bool) {
	t := strings.TrimSuffix(s, "\n")
	if strings.Contains(t, "\n") || !strings.Contains(t, `\n`) && !strings.Contains(t, `\t`) {
		return s, false
	}
	r := strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`, `\r`, "")
	return r.Replace(t), true
}

var quoteEscapes = strings.NewReplacer(`\"`, `"`, `\'`, `'`, "\\`", "`")

// unescapeQuotes undoes backslash-escaped quotes; ok is false when s has
// none.
func unescapeQuotes(s string) (string, bool) {
	if !strings.Contains(s, `\"`) && !strings.Contains(s, `\'`) && !strings.Contains(s, "\\`") {
		return s, false
	}
	return quoteEscapes.Replace(s), true
}

var entity = regexp.MustCompile(`&(?:lt|gt|amp|quot|apos|#\d{1,5}|#x[0-9a-fA-F]{1,4});`)

func hasEntity(s string) bool { return entity.MatchString(s) }

func unescapeHTML(s string) (string, bool) {
	if !hasEntity(s) {
		return s, false
	}
	return html.UnescapeString(s), true
}

// unfence strips a fence wrapped around the whole text: backticks, tildes,
// or one of aider's tag fences ("<source>python" ... "</source>").
func unfence(s string) (string, bool) {
	lines := trimBlankEnds(modelLines(s))
	if len(lines) < 2 {
		return s, false
	}
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	closer, _, ok := openFence(first)
	if !ok || last != closer {
		return s, false
	}
	return joinLines(lines[1 : len(lines)-1]), true
}

// typography maps typographic punctuation to the ASCII a model types for
// it: quotes, dashes and hyphens, and the wide or non-breaking spaces (the
// same classes Codex's apply_patch folds when it seeks lines).
var typography = map[rune]string{
	'\u201c': `"`, '\u201d': `"`, '\u201e': `"`, '\u201f': `"`, '\u00ab': `"`, '\u00bb': `"`,
	'\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'",
	'\u2010': "-", '\u2011': "-", '\u2012': "-", '\u2013': "-", '\u2014': "-", '\u2015': "-", '\u2212': "-",
	'\u00a0': " ", '\u2002': " ", '\u2003': " ", '\u2004': " ", '\u2005': " ", '\u2006': " ", '\u2007': " ",
	'\u2008': " ", '\u2009': " ", '\u200a': " ", '\u202f': " ", '\u205f': " ", '\u3000': " ",
}

var foldQuotes = func() *strings.Replacer {
	var pairs []string
	for r, a := range typography {
		pairs = append(pairs, string(r), a)
	}
	return strings.NewReplacer(pairs...)
}()

// locateFolded matches lines with typographic punctuation folded on both
// sides (the model wrote ' for ’ or - for –, or the reverse), uniquely. New lines equal to a
// matched SEARCH line are written as the file has them, so the file keeps
// its quotes on every line the edit does not change.
func locateFolded(content, oldText, newText string) (located, bool) {
	if !hasTypographicQuote(content) && !hasTypographicQuote(oldText) {
		return located{}, false
	}
	ft := newFileText(content)
	old := trimBlankEnds(modelLines(oldText))
	if len(old) == 0 || len(old) > len(ft.lines) {
		return located{}, false
	}
	folded := make([]string, len(old))
	for k, o := range old {
		folded[k] = strings.TrimSpace(foldQuotes.Replace(o))
	}
	var hits []int
	for i := 0; i+len(old) <= len(ft.lines) && len(hits) < 2; i++ {
		ok := true
		for k := range old {
			if strings.TrimSpace(foldQuotes.Replace(ft.text(i+k))) != folded[k] {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, i)
		}
	}
	if len(hits) != 1 {
		return located{}, false
	}
	i := hits[0]
	byFolded := map[string]string{}
	for k := range old {
		byFolded[folded[k]] = ft.text(i + k)
	}
	newLines := modelLines(newText)
	out := make([]string, len(newLines))
	for k, n := range newLines {
		if f, ok := byFolded[strings.TrimSpace(foldQuotes.Replace(n))]; ok {
			out[k] = f
		} else {
			out[k] = n
		}
	}
	return replaceLines(ft, i, i+len(old), out, "quotes"), true
}

// hasTypographicQuote: every rune of the typography table is encoded
// from a C2, E2 or E3 lead byte; code rarely has them, so a whole file
// costs a scan for those bytes.
func hasTypographicQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b == 0xc2 || b == 0xe2 || b == 0xe3 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			if _, ok := typography[r]; ok {
				return true
			}
		}
	}
	return false
}

// tabsAsOldText re-indents the new text's space-indented lines with tabs
// where the old text indents the same lines with tabs: the model quoted the
// file's tabs, then wrote its change in spaces, and in a language where
// indentation is syntax (Python's TabError, make's "missing separator") the
// mix is refused. The ratio is learnt from the lines both texts hold (the
// same line, n tabs in the old text, n×u spaces in the new, once in each)
// and must be one ratio; every space-indented line must then be a whole
// number of levels.
// Anything else is no reading: which depth a line meant would be a guess.
// It is a reading (resolvefile.go), taken only when the text as written is
// refused and the re-indented one passes the verifier.
func tabsAsOldText(e Edit) (Edit, bool) {
	if strings.TrimSpace(e.OldText) == "" || !strings.Contains("\n"+e.NewText, "\n ") {
		return e, false
	}
	tabs := map[string]int{} // old line's text → its tab depth; -1: several depths
	for _, l := range modelLines(e.OldText) {
		ws := leadingWS(l)
		if ws == "" || strings.Trim(ws, "\t") != "" {
			continue
		}
		t := strings.TrimSpace(l)
		if n, seen := tabs[t]; seen && n != len(ws) {
			tabs[t] = -1
		} else {
			tabs[t] = len(ws)
		}
	}
	unit := 0
	lines := strings.Split(e.NewText, "\n")
	times := map[string]int{} // a line the new text holds twice is no anchor: which copy is the kept one?
	for _, l := range lines {
		times[strings.TrimSpace(l)]++
	}
	for _, l := range lines {
		ws := leadingWS(l)
		n, ok := tabs[strings.TrimSpace(l)]
		if ws == "" || strings.Trim(ws, " ") != "" || !ok || n <= 0 || times[strings.TrimSpace(l)] > 1 {
			continue
		}
		if len(ws)%n != 0 || unit != 0 && len(ws)/n != unit {
			return e, false // two ratios: no one reading
		}
		unit = len(ws) / n
	}
	if unit == 0 {
		return e, false
	}
	for k, l := range lines {
		ws := leadingWS(l)
		if ws == "" || ws[0] != ' ' || strings.TrimSpace(l) == "" {
			continue
		}
		if strings.Trim(ws, " ") != "" || len(ws)%unit != 0 {
			return e, false
		}
		lines[k] = strings.Repeat("\t", len(ws)/unit) + l[len(ws):]
	}
	e.NewText = strings.Join(lines, "\n")
	return e, true
}
