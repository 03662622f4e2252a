package editapply

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
			if !d.verifiers {
				r.fail(rec, d.reason(g.path), "")
			}
		}
	}
}

// damage is one finding: what was found, and the line it was found on.
type damage struct {
	what string // "a merge-conflict marker", ...
	line string
	fix  string // what to send instead
	// verifiers: the finding is the verifier's own escape row, looked for
	// here only so one decoding can explain it; unexplained, the text goes
	// on and the verifier (and its readings) judge the file it makes.
	verifiers bool
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
	oldIsFiles := strings.TrimSpace(e.OldText) != "" && strings.Contains(normalizeEOL(content), normalizeEOL(e.OldText))
	if n, ok := decodeOnce(e.NewText, p); ok {
		// Encoded once more throughout, decoded strictly: the old text
		// too when it is not the file's as written (then it came the
		// same way).
		v := e
		v.NewText = n
		if !oldIsFiles {
			if o, ook := decodeOnce(e.OldText, p); ook {
				v.OldText = o
			} else if o, ook := unescapeJSON(e.OldText); ook {
				v.OldText = o
			}
		}
		found = append(found, v)
	} else if n, ok := unescapeJSON(e.NewText); ok && !oldIsFiles && !decodedIntoString(p, n) {
		// Still JSON-escaped, read loosely: only when the old text, as
		// written, is not already the file's (a line of code may hold
		// "\n" in a string).
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
	if d := escapeDamage(e, newLines, p, content, doc); d != nil {
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
// escaped); the whole text one JSON string literal whose decoded lines are
// the file's; escapes standing outside any string of the file's language
// where the file writes none there (the verifier's escape row, asked of
// the answer so that decoding it once can explain it); and, in a
// document, escaped quotes and line breaks where the file has none.
func escapeDamage(e Edit, newLines []string, p, content string, doc bool) *damage {
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
	if d := encodedLiteral(e, newLines, content); d != nil {
		return d
	}
	if d := strayEscapeDamage(e, newLines, p, content); d != nil {
		return d
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

// encodedLiteral: the whole new text one JSON string literal ("…\n…",
// quotes and all, on one line) whose decoded lines are mostly the file's
// or the old text's: the text encoded once more on its way, which as
// written would put one string where the code was.
func encodedLiteral(e Edit, newLines []string, content string) *damage {
	if len(newLines) != 1 {
		return nil
	}
	t := strings.TrimSpace(newLines[0])
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' || !strings.Contains(t, `\n`) || strings.Contains(content, t) {
		return nil
	}
	var dec string
	if json.Unmarshal([]byte(t), &dec) != nil {
		return nil
	}
	known := map[string]bool{}
	for _, src := range []string{content, e.OldText} {
		for _, l := range modelLines(src) {
			known[strings.TrimSpace(l)] = true
		}
	}
	n, shared := 0, 0
	for _, l := range modelLines(dec) {
		if l = strings.TrimSpace(l); l != "" {
			n++
			if known[l] {
				shared++
			}
		}
	}
	if shared < 2 || 2*shared < n {
		return nil
	}
	return &damage{what: "the whole text as one JSON string, quotes and \\n written out, whose lines are the file's", line: t, fix: "send the text itself with real line breaks, not encoded as a string"}
}

// strayEscapeDamage: two or more escape sequences outside any string in the
// lines the edit adds, in a language whose file writes none there. It is
// the verifier's escape row (artefacts.go) asked of the answer, so that
// decoding the text once can explain it before anything is resolved.
func strayEscapeDamage(e Edit, newLines []string, p, content string) *damage {
	syn, ok := stringSyntaxAt(p, content+e.NewText)
	if !ok {
		return nil
	}
	basis := e.OldText + "\n" + content
	total, first := 0, ""
	for _, l := range newLines {
		if k := strayEscapes(l, syn); k > 0 && !strings.Contains(basis, strings.TrimSpace(l)) {
			total += k
			if first == "" {
				first = l
			}
		}
	}
	if total < 2 {
		return nil
	}
	for _, l := range modelLines(content) {
		if strayEscapes(l, syn) > 0 {
			return nil // the file writes them so: not the wire's
		}
	}
	return &damage{what: "escape sequences (\\n, \\t, \\\") outside any string", line: first, fix: "send the text with real line breaks and quotes", verifiers: true}
}

// decodeOnce undoes one level of escaping applied to the whole text on its
// way (a JSON encoder's, or a string quoter's), strictly: the text is one
// line (a last line break aside), either a JSON string literal, quotes and
// all, or a string's inside, in which every backslash starts an escape and
// a quote escaped once is escaped everywhere (a text half escaped is not
// one encoded once). ok is false otherwise, and when the decoded text
// would hold a line break or a tab inside a string of p's language: the
// decoding made that, not the model, which writes those as escapes.
func decodeOnce(s, p string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 || !utf8.ValidString(s) {
		// Invalid UTF-8 is not text a model encoded: a JSON decoder
		// would turn each bad byte into U+FFFD, writing what no one wrote.
		return s, false
	}
	body := strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	if strings.ContainsAny(body, "\n\r") {
		return s, false
	}
	out, ok := "", false
	if t := strings.TrimSpace(body); len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		ok = json.Unmarshal([]byte(t), &out) == nil
	}
	if !ok {
		if out, ok = unescapeInside(body); ok {
			out += s[len(body):]
		}
	}
	if !ok {
		return s, false
	}
	if decodedIntoString(p, out) {
		return s, false
	}
	return out, true
}

// decodedIntoString: text decoded from escapes holds a line break or a tab
// inside a string of p's language. A model writes those as escapes, so the
// decoding made them, and it is not the reading of the text.
func decodedIntoString(p, text string) bool {
	syn, has := stringSyntaxAt(p, text)
	return has && controlInString(text, syn)
}

// unescapeInside decodes s as the inside of a string literal: every
// backslash starts an escape (\n \t \r \b \f \/ \\ \" \' \` \uXXXX), and
// no quote that s escapes stands bare elsewhere in it.
func unescapeInside(s string) (string, bool) {
	var b strings.Builder
	var escaped, bare [3]bool // " ' `
	quote := func(c byte) int { return strings.IndexByte("\"'`", c) }
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			if q := quote(c); q >= 0 {
				bare[q] = true
			}
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return s, false
		}
		i++
		switch d := s[i]; d {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '/', '\\':
			b.WriteByte(d)
		case '"', '\'', '`':
			escaped[quote(d)] = true
			b.WriteByte(d)
		case 'u':
			if i+4 >= len(s) {
				return s, false
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return s, false
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			return s, false
		}
	}
	for q := range escaped {
		if escaped[q] && bare[q] {
			return s, false
		}
	}
	return b.String(), true
}

// controlInString: s holds a line break or a tab inside a string of the
// syntax (a comment's text aside).
func controlInString(s string, syn stringSyntax) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote != 0 {
			switch ch {
			case '\\':
				i++
			case quote:
				quote = 0
			case '\n', '\t':
				return true
			}
			continue
		}
		for _, cm := range syn.lineComments {
			if strings.HasPrefix(s[i:], cm) {
				if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
					i += k
				} else {
					i = len(s)
				}
				break
			}
		}
		if i < len(s) && strings.IndexByte(syn.quotes, s[i]) >= 0 {
			quote = s[i]
		}
	}
	return false
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
