package editapply

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// Transport artefacts (docs/edits.md): lines an answer adds that belong to
// the wire or to a tool's output, not to the file. One row per kind; a row
// does not apply to a file that already has such a line (the file uses it)
// nor to the files named by its exempt rule.
var artefacts = []struct {
	what string
	// first holds every byte the line's first non-blank byte can be when
	// line matches: a cheap test that spares the regexp most lines.
	first  string
	line   *regexp.Regexp
	exempt func(p string) bool
}{
	{"a SEARCH/REPLACE or merge-conflict marker", "<>-+", regexp.MustCompile(`^(<{7}|>{7})( .*)?$|^-{3,} ?SEARCH\s*$|^\+{3,} ?REPLACE\s*$`), isFixture},
	{"a SEARCH/REPLACE divider", "=", regexp.MustCompile(`^={7}\s*$`), func(p string) bool { return isFixture(p) || isMarkdown(p) }},
	{"an apply_patch envelope line", "*", regexp.MustCompile(`^\*\*\* (Begin Patch|End Patch|Update File:|Add File:|Delete File:|Move to:|End of File)`), isFixture},
	{"a diff header", "d@i-+", regexp.MustCompile(`^(diff --git a/\S|@@ -\d+(,\d+)? \+\d+(,\d+)? @@|index [0-9a-f]{7,40}\.\.[0-9a-f]{7,40}|--- a/\S|\+\+\+ b/\S)`), isFixture},
	{"Roo's line marker", "\\:", regexp.MustCompile(`^\\?:(start|end)_line:\s*\d*\s*$`), isFixture},
	{"a tool-call tag", "<", regexp.MustCompile(`^\s*</?(tool_call|tool_use|tool_result|function_calls|function_results|invoke|parameter|function=[^>]*|write_to_file|replace_in_file|apply_diff|edit_file|write_file|apply_patch|system-reminder)(\s[^>]*)?>`), isFixture},
	{"tool-call JSON", "{\"", regexp.MustCompile(`^\s*\{\s*"(name|tool|function|tool_name)"\s*:\s*"(edit_file|write_file|delete_file|rename_file|apply_patch|replace_in_file|write_to_file|str_replace_editor|str_replace_based_edit_tool)"|^\s*"(old_text|new_text|old_string|new_string|old_str|new_str)"\s*:\s*"`), isFixture},
	{"a read tool's truncation notice", "[(<{.\xe2", regexp.MustCompile(`(?i)^\s*(?:[\[(<{]|\.\.\.|…)[^\n]{0,80}?(?:truncat|\d+ more lines?|lines? (?:hidden|not shown|omitted)|\bomitted\b|clipped)[^\n]{0,80}$`), isFixture},
}

// firstByte is the first byte of l that is not a space or a tab (0 if
// none): the regexps' \s also takes \v, \f and \r, which such a line
// would have to start with, and then the line is tried in full.
func firstByte(l string) byte {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ', '\t':
			continue
		case '\v', '\f', '\r':
			return 0
		}
		return l[i]
	}
	return 0
}

// isFixture: files whose content may be any of the artefacts (test data,
// transcripts, patches, prose about them).
func isFixture(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".txtar", ".diff", ".patch", ".snap", ".golden", ".txt", ".log", ".md", ".markdown", ".mdx", ".rst":
		return true
	}
	for _, dir := range []string{"testdata/", "fixtures/", "__snapshots__/"} {
		if strings.HasPrefix(p, dir) || strings.Contains(p, "/"+dir) {
			return true
		}
	}
	return false
}

// checkArtefacts refuses a change that adds a transport artefact.
func checkArtefacts(c *fileChange) *refusal {
	cl := c.changed()
	var before []string // the file's lines, split on first need
	uses := func(re *regexp.Regexp) bool {
		if before == nil {
			before = strings.Split(normalizeEOL(c.before), "\n")
		}
		for _, l := range before {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	}
	for _, a := range artefacts {
		if a.exempt(c.path) {
			continue
		}
		for i, l := range cl.after {
			if !cl.added[i] {
				continue
			}
			if b := firstByte(l); b != 0 && strings.IndexByte(a.first, b) < 0 {
				continue
			}
			if a.line.MatchString(l) && !uses(a.line) {
				return &refusal{spans: []int{cl.region[i]}, reason: fmt.Sprintf("line %d of %s would be %s (%q), which belongs to the answer's format, not to the file; send the edit again with only the file's own lines", i+1, c.path, a.what, clip(strings.TrimSpace(l)))}
			}
		}
	}
	if ref := checkGutters(c, cl, uses); ref != nil {
		return ref
	}
	if ref := checkEscapes(c, cl); ref != nil {
		return ref
	}
	return checkWrappedFence(c, cl)
}

func clip(s string) string {
	if len(s) > 60 {
		n := 60
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		return s[:n] + "…"
	}
	return s
}

// gutter is a read tool's line number in front of a line: "12 | ",
// "12→", "12\t", "12: ".
var gutter = regexp.MustCompile(`^\s*(\d{1,6})(?:\s*[|│→]\s?|\t|: )`)

// checkGutters refuses three or more added lines in a row that carry
// consecutive line numbers, in a file that has no such line.
func checkGutters(c *fileChange, cl *changedLines, uses func(*regexp.Regexp) bool) *refusal {
	if isFixture(c.path) {
		return nil
	}
	run, prev := 0, -1
	for i, l := range cl.after {
		var m []string
		if cl.added[i] {
			m = gutter.FindStringSubmatch(l)
		}
		if m == nil {
			run, prev = 0, -1
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if run > 0 && n == prev+1 {
			run++
		} else {
			run = 1
		}
		prev = n
		if run >= 3 && !uses(gutter) {
			return &refusal{spans: []int{cl.region[i]}, reason: fmt.Sprintf("lines %d to %d of %s would start with line numbers (%q), a read tool's gutter, not the file's text; send the edit again without them", i-1, i+1, c.path, clip(strings.TrimSpace(l)))}
		}
	}
	return nil
}

// stringSyntax is how a language writes strings and comments, for finding
// escape sequences that stand outside any string: one row per language.
type stringSyntax struct {
	quotes       string
	lineComments []string
	regexSlash   bool // a "/" after an operator opens a regular expression
}

// stringSyntaxOf is the string syntax of a language of the language
// table (treesitter.Lang): false for one without strings, or whose escapes
// outside strings are ordinary (a shell's).
func stringSyntaxOf(lang string) (stringSyntax, bool) {
	l, ok := treesitter.LangNamed(lang)
	if !ok || l.Quotes == "" || l.BareEscapes {
		return stringSyntax{}, false
	}
	syn := stringSyntax{quotes: l.Quotes, lineComments: l.Comments, regexSlash: l.RegexSlash}
	if l.Block {
		syn.lineComments = append(slices.Clone(l.Comments), "/*")
	}
	return syn, true
}

// stringSyntaxAt is the string syntax of the file at p holding text (its
// extension, else its shebang line).
func stringSyntaxAt(p, text string) (stringSyntax, bool) {
	lang := treesitter.Language(p, []byte(headLine(text)))
	if l, ok := treesitter.LangOf(p); ok && lang == "" {
		lang = l.Name
	}
	return stringSyntaxOf(lang)
}

// strayEscapes counts `\n`, `\t`, `\r`, `\"` and `\'` written outside any
// string or comment of a line: what a JSON-escaped argument leaves when
// it reaches the file unread.
func strayEscapes(l string, syn stringSyntax) int {
	n := 0
	var quote byte
	prev := byte(0)
	for i := 0; i < len(l); i++ {
		ch := l[i]
		if quote != 0 {
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
			continue
		}
		for _, cm := range syn.lineComments {
			if strings.HasPrefix(l[i:], cm) {
				return n
			}
		}
		switch {
		case ch == '\\' && i+1 < len(l) && strings.IndexByte(`ntr"'`, l[i+1]) >= 0:
			n++
			i++
			continue
		case strings.IndexByte(syn.quotes, ch) >= 0:
			quote = ch
		case ch == '/' && syn.regexSlash && strings.IndexByte("(=,:[!&|?{};", prev) >= 0:
			if j := strings.IndexByte(l[i+1:], '/'); j >= 0 {
				i += j + 1
			}
		}
		if ch != ' ' && ch != '\t' {
			prev = ch
		}
	}
	return n
}

// checkEscapes refuses added lines with two or more escape sequences
// outside strings, in a language whose file has none there.
func checkEscapes(c *fileChange, cl *changedLines) *refusal {
	syn, ok := stringSyntaxAt(c.path, c.after)
	if !ok {
		return nil
	}
	total, first := 0, -1
	for i, l := range cl.after {
		if cl.added[i] {
			if k := strayEscapes(l, syn); k > 0 {
				total += k
				if first < 0 {
					first = i
				}
			}
		}
	}
	if total < 2 {
		return nil
	}
	for _, l := range strings.Split(normalizeEOL(c.before), "\n") {
		if strayEscapes(l, syn) > 0 {
			return nil // the file writes them so: not the wire's
		}
	}
	return &refusal{spans: []int{cl.region[first]}, reason: fmt.Sprintf("line %d of %s would hold escape sequences (\\n, \\t, \\\") outside any string: the text arrived still escaped. Send the edit again with real line breaks and quotes", first+1, c.path)}
}

func headLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkWrappedFence refuses a non-Markdown file whose whole new content
// is wrapped in a Markdown fence it did not have.
func checkWrappedFence(c *fileChange, cl *changedLines) *refusal {
	if isMarkdown(c.path) || isFixture(c.path) {
		return nil
	}
	first, last := -1, -1
	for i, l := range cl.after {
		if strings.TrimSpace(l) != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || first == last || !cl.added[first] || !cl.added[last] {
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(cl.after[first]), "```") && strings.TrimSpace(cl.after[last]) == "```" {
		return &refusal{spans: []int{cl.region[first]}, reason: fmt.Sprintf("the new content of %s would begin and end with a Markdown fence (```), which wraps the answer, not the file; send the file's content without it", c.path)}
	}
	return nil
}
