package editapply

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Transport damage (docs/edits.md, contract §9.2): what happened to an
// answer's text on its way, not what the model meant for the file. It is a
// property of the answer, so it is judged once, in one stage of Resolve
// (transportDamage, after the edits are grouped by file and before any is
// resolved): each new text is compared with the file it lands in and with
// the answer's own old text. A finding fails the edit, and so its unit
// (all or nothing, contract §9.2), with a reason the editor model gets
// back — unless exactly one reading of the text explains the finding away
// (the text still JSON-escaped, or escaped once more than the file), and
// then that reading is what is resolved, and verified.

// transportDamage is Resolve's damage stage.
func (r *resolver) transportDamage() {
	for _, g := range r.groups {
		var content string
		read := false
		for _, rec := range g.recs {
			if rec.failed || !rec.changesText() || rec.NewText == "" {
				continue
			}
			if !read {
				c, exists, err := r.files.Read(g.path)
				if err == nil && exists {
					content = c
				}
				read = true
			}
			d := damageOf(rec.Edit, g.path, content)
			if d == nil {
				continue
			}
			if e, ok := explainAway(rec.Edit, g.path, content); ok {
				rec.Edit = e
				continue
			}
			r.fail(rec, d.reason(g.path), "")
		}
	}
}

// damage is one finding: what was found, and the line it was found on.
type damage struct {
	what string // "a merge-conflict marker", ...
	line string
	fix  string // what to send instead
}

func (d *damage) reason(p string) string {
	return fmt.Sprintf("the new text for %s holds %s (%q): the answer was damaged on its way, and writing it would put that into the file. Nothing of this answer is applied; %s", p, d.what, clip(strings.TrimSpace(d.line)), d.fix)
}

// explainAway returns the one reading of e under which its damage is
// gone: the text still JSON-escaped (no real line break, "\n" written
// out), or every escape written twice where the file writes it once. None,
// or both giving different texts, is no explanation.
func explainAway(e Edit, p, content string) (Edit, bool) {
	var found []Edit
	// Still JSON-escaped: only when the old text, as written, is not
	// already the file's (a line of code may hold "\n" in a string).
	if n, ok := unescapeJSON(e.NewText); ok && (strings.TrimSpace(e.OldText) == "" || !strings.Contains(normalizeEOL(content), normalizeEOL(e.OldText))) {
		v := e
		v.NewText = n
		if o, ook := unescapeJSON(e.OldText); ook {
			v.OldText = o
		}
		found = append(found, v)
	}
	if n, ok := halveEscapes(e.NewText); ok {
		v := e
		v.NewText = n
		if len(found) == 0 || found[0].NewText != n {
			found = append(found, v)
		}
	}
	if u, ok := unfence(e.NewText); ok && e.Kind != KindWrite && strings.TrimSpace(e.OldText) != "" {
		v := e
		v.NewText = u
		found = append(found, v)
	}
	var clean []Edit
	for _, v := range found {
		if damageOf(v, p, content) == nil {
			clean = append(clean, v)
		}
	}
	if len(clean) != 1 {
		return e, false
	}
	return clean[0], true
}

// halveEscapes undoes one level of escaping applied to the whole text:
// every backslash doubled ("\\n" for "\n", "\\\"" for "\""). ok is false
// unless the text has doubled escapes and no backslash standing alone.
func halveEscapes(s string) (string, bool) {
	if !doubledEscape.MatchString(s) {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) || s[i+1] != '\\' {
			return s, false // a lone backslash: not escaped twice throughout
		}
		b.WriteByte('\\')
		i++
	}
	return b.String(), true
}

// doubledEscape is an escape sequence written twice: `\\n`, `\\t`, `\\"`.
var doubledEscape = regexp.MustCompile(`(^|[^\\])\\\\[ntr"']`)

// singleEscape is an escape sequence as code writes it: `\n`, `\"`.
var singleEscape = regexp.MustCompile(`(^|[^\\])\\[ntr"']`)

// conflictMarker: a merge-conflict marker or SEARCH/REPLACE divider line.
var conflictMarker = regexp.MustCompile(`^(<{7}|>{7}|\|{7})(\s.*)?$|^={7}\s*$`)

// notice: a tool's or a model's notice that text was left out, inside a
// line as well as alone on one ("foo() ... (rest unchanged)",
// "[truncated]", "<rest of file unchanged>").
var notice = regexp.MustCompile(`(?i)` +
	`[\[(<{]\s*(?:\.\.\.|…)\s*truncated\b` +
	`|[\[(<{]\s*(?:output|content|file|text|response|rest|lines?) (?:was |were |is )?truncated\b` +
	`|(?:^|\s)[\[(<{]\s*truncated\s*(?:\.\.\.|…)?\s*[\])>}]\s*$` +
	`|(?:\.\.\.|…)\s*[\[(<]?\s*truncated\b` +
	`|[\[(<]\s*(?:\.\.\.|…)?\s*\d+ (?:more )?(?:lines?|characters|chars|bytes) (?:truncated|omitted|hidden|not shown)` +
	`|\brest of (?:the )?(?:file|code|function|method|class|module|document|section|content|body|implementation|lines)\s*(?:is |remains |stays )?(?:unchanged|the same|as before|omitted|not shown)` +
	`|(?:\.\.\.|…)\s*(?:existing|unchanged|remaining|previous|original) (?:code|lines|content|implementation)\s*(?:\.\.\.|…)` +
	`|\bexisting code (?:here|unchanged|remains|omitted)\b`)

// damageOf is the first transport damage of e's new text, or nil. Only
// lines the edit adds count (not those of its old text, nor, for a whole
// file, those the file has), and a kind of line the file already has is
// the file's own.
func damageOf(e Edit, p, content string) *damage {
	newLines := modelLines(e.NewText)
	var basis map[string]bool // the lines the edit does not add
	has := func(l string) bool {
		if basis == nil {
			basis = map[string]bool{}
			for _, src := range []string{e.OldText, content} {
				for _, b := range modelLines(src) {
					basis[strings.TrimSpace(b)] = true
				}
			}
		}
		return basis[strings.TrimSpace(l)]
	}
	fileHas := func(re *regexp.Regexp) bool {
		for _, l := range modelLines(content) {
			if re.MatchString(strings.TrimSpace(l)) {
				return true
			}
		}
		return false
	}
	if i := strings.Index(e.NewText, bom); i > 0 {
		return &damage{what: "a byte-order mark inside the text", line: lineAround(e.NewText, i), fix: "send it again without the invisible U+FEFF character"}
	}
	fixture := isTestData(p)
	doc := isMarkdown(p)
	for k, l := range newLines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		switch t[0] {
		case '<', '>', '=', '|':
			if !fixture && conflictMarker.MatchString(t) && !has(l) && !fileHas(conflictMarker) && !(t[0] == '=' && underline(newLines, k, doc)) {
				return &damage{what: "a merge-conflict marker or SEARCH/REPLACE divider taken as content", line: l, fix: "that line belongs to the answer's format, not to the file. Send the edit again with only the file's own lines (one divider between the old and the new text)"}
			}
		}
		if mayNotice(t) && notice.MatchString(t) && !has(l) && !fileHas(notice) {
			return &damage{what: "an elision or truncation notice", line: l, fix: "it stands for lines that are not there, and would delete the code it stands for (write_file replaces the whole file, an edit all of its old text). Send the complete text, every line written out"}
		}
	}
	if d := escapeDamage(e, newLines, content, doc); d != nil {
		return d
	}
	return fencedNewText(e, newLines, p, content)
}

// fencedNewText: an edit's new text wrapped in a Markdown fence its old
// text does not have, in a file that is not a document and has no fence:
// the model's wrapper, not the file's lines. Unwrapping it is the one
// reading that explains it (explainAway).
func fencedNewText(e Edit, newLines []string, p, content string) *damage {
	if e.Kind == KindWrite || strings.TrimSpace(e.OldText) == "" || isMarkdown(p) || len(newLines) < 2 || !strings.HasPrefix(strings.TrimSpace(newLines[0]), "```") && !strings.HasPrefix(strings.TrimSpace(newLines[0]), "~~~") {
		return nil
	}
	if _, ok := unfence(e.NewText); !ok {
		return nil
	}
	if _, ok := unfence(e.OldText); ok || strings.Contains(content, "```") || strings.Contains(content, "~~~") {
		return nil
	}
	return &damage{what: "a Markdown fence around the new text", line: newLines[0], fix: "send the new text without the fence"}
}

// mayNotice is a cheap test that spares the notice regexp most lines.
func mayNotice(t string) bool {
	return strings.Contains(t, "runcat") || strings.Contains(t, "est of") || strings.Contains(t, "xisting code") ||
		strings.Contains(t, "...") || strings.Contains(t, "…")
}

// underline: a "=======" line under a line of text in a document is a
// heading's underline (Markdown's and reStructuredText's), not a divider.
func underline(lines []string, k int, doc bool) bool {
	return doc && k > 0 && strings.TrimSpace(lines[k-1]) != "" && !conflictMarker.MatchString(strings.TrimSpace(lines[k-1]))
}

// isTestData: files that may hold any text on purpose (test data,
// patches, snapshots); prose files are not among them here, as a marker
// or a notice in a README is damage like anywhere else.
func isTestData(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".txtar", ".diff", ".patch", ".snap", ".golden", ".log":
		return true
	}
	for _, dir := range []string{"testdata/", "fixtures/", "__snapshots__/"} {
		if strings.HasPrefix(p, dir) || strings.Contains(p, "/"+dir) {
			return true
		}
	}
	return false
}

func lineAround(s string, i int) string {
	from := strings.LastIndexByte(s[:i], '\n') + 1
	to := strings.IndexByte(s[i:], '\n')
	if to < 0 {
		return s[from:]
	}
	return s[from : i+to]
}

// escapeDamage compares the escape density of the lines the edit adds
// with the file's and the old text's: escapes written twice where they
// write them once (an argument escaped twice, or only the new text
// escaped), and, in a document, escaped quotes and line breaks where the
// file has none (code files: the verifier's escape row, which knows their
// strings).
func escapeDamage(e Edit, newLines []string, content string, doc bool) *damage {
	if strings.IndexByte(e.NewText, '\\') < 0 {
		return nil
	}
	basis := e.OldText + "\n" + content
	for _, l := range newLines {
		if doubledEscape.MatchString(l) && !strings.Contains(basis, strings.TrimSpace(l)) {
			if !doubledEscape.MatchString(basis) && singleEscape.MatchString(basis) {
				return &damage{what: "escape sequences written twice (\\\\n, \\\\\") where the file writes them once", line: l, fix: "send the text with each escape as the file has it"}
			}
		}
	}
	if !doc || strings.Contains(content, `\"`) || strings.Contains(content, `\n`) {
		return nil
	}
	n, first := 0, ""
	fenced := false
	for _, l := range newLines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") || strings.HasPrefix(strings.TrimSpace(l), "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.Contains(e.OldText, strings.TrimSpace(l)) {
			continue
		}
		for _, seg := range outsideCodeSpans(l) {
			if k := strings.Count(seg, `\"`) + strings.Count(seg, `\n`); k > 0 {
				n += k
				if first == "" {
					first = l
				}
			}
		}
	}
	if n >= 2 {
		return &damage{what: "escaped quotes or line breaks (\\\", \\n) the file does not write", line: first, fix: "send the text with real quotes and line breaks"}
	}
	return nil
}

// outsideCodeSpans is l without its `code spans`.
func outsideCodeSpans(l string) []string {
	parts := strings.Split(l, "`")
	var out []string
	for k := 0; k < len(parts); k += 2 {
		out = append(out, parts[k])
	}
	return out
}
