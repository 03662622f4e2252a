package editapply

import (
	"html"
	"regexp"
	"strings"
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

var entity = regexp.MustCompile(`&(?:lt|gt|amp|quot|apos|#\d{1,5}|#x[0-9a-fA-F]{1,4});`)

func hasEntity(s string) bool { return entity.MatchString(s) }

func unescapeHTML(s string) (string, bool) {
	if !hasEntity(s) {
		return s, false
	}
	return html.UnescapeString(s), true
}

// unfence strips a Markdown fence wrapped around the whole text.
func unfence(s string) (string, bool) {
	lines := trimBlankEnds(modelLines(s))
	if len(lines) < 2 {
		return s, false
	}
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	m := fenceLine.FindStringSubmatch(first)
	if m == nil || last != m[1] {
		return s, false
	}
	return joinLines(lines[1 : len(lines)-1]), true
}

// foldQuotes maps typographic quotes to ASCII ones.
var foldQuotes = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u2018", "'", "\u2019", "'", "\u00ab", `"`, "\u00bb", `"`)

// locateFolded matches lines with typographic quotes folded on both sides
// (the model wrote ' for ’, or the reverse), uniquely. New lines equal to a
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

// hasTypographicQuote: U+2018-U+201E are E2 80 98-9E in UTF-8, « and »
// are C2 AB and C2 BB. strings.IndexByte finds the lead bytes fast; code
// rarely has them, so a whole file costs two scans.
func hasTypographicQuote(s string) bool {
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], 0xe2)
		if k < 0 {
			break
		}
		i += k
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] >= 0x98 && s[i+2] <= 0x9e {
			return true
		}
	}
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], 0xc2)
		if k < 0 {
			return false
		}
		i += k
		if i+1 < len(s) && (s[i+1] == 0xab || s[i+1] == 0xbb) {
			return true
		}
	}
}
