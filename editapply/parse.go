package editapply

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

var (
	// aider's <<<<<<< SEARCH / >>>>>>> REPLACE and Cline's ------- SEARCH /
	// +++++++ REPLACE.
	// Markers of any length from five (Cline reads three or more; models
	// write seven, sometimes more).
	searchMarker  = regexp.MustCompile(`^\s*(<{5,}|-{5,})\s*(SEARCH|search|Search)\b.*$`)
	dividerMarker = regexp.MustCompile(`^\s*={5,}\s*$`)
	replaceMarker = regexp.MustCompile(`^\s*(>{5,}|\+{5,})\s*(REPLACE|replace|Replace)\b.*$`)
	// Roo's apply_diff header inside a SEARCH section: ":start_line:12",
	// ":start_line: [12]".
	rooLineHeader = regexp.MustCompile(`^:(start|end)_line:\s*\[?\s*(\d+)\s*\]?\s*$`)
	rooSeparator  = regexp.MustCompile(`^-{3,9}\s*$`)
	linePosSuffix = regexp.MustCompile(`(\.[A-Za-z0-9]+):\d+(?::\d+)?(?:-\d+)?$`)
	xmlPathLine   = regexp.MustCompile(`^<(?:path|file|file_path|filename)>\s*(.*?)\s*</(?:path|file|file_path|filename)>$`)
	xmlWrapper    = regexp.MustCompile(`^</?(diff|replace_in_file|apply_diff|edit_file|search_replace|args|file)>$`)
	fenceLine     = regexp.MustCompile("^\\s*(`{3,}|~{3,})(.*)$")
	pathLike      = regexp.MustCompile(`^[\p{L}\p{N}_@~+\-./\\][\p{L}\p{N}_@~+\-./\\ ]*$`)
)

// ParseText finds the edits written in a text answer, in the order they
// stand in it: SEARCH/REPLACE blocks (aider's markers, Cline's "------- SEARCH"
// / "+++++++ REPLACE", Roo's ":start_line:" header, inside Cline's
// <replace_in_file> XML or not), apply_patch envelopes ("*** Begin Patch"),
// unified diffs (in a ```diff fence or bare, with or without ---/+++ file
// lines), Cline's <write_to_file>, Cursor-style ```12:20:path fences and,
// when nothing else is there, whole-file blocks (a line naming the file
// directly above a fence). Each line of the answer belongs to one form: a
// fence or a diff inside a SEARCH/REPLACE body is content.
//
// A block that could not be read is returned as a KindInvalid edit (with
// its file when it names one) so that Resolve sends its reason back to the
// editor; the error joins those reasons.
func ParseText(text string) ([]Edit, error) {
	text = normalizeEOL(text)
	lines := strings.Split(text, "\n")
	used := make([]bool, len(lines))
	var edits []Edit
	var errs []error
	add := func(es []Edit) {
		for _, e := range es {
			if e.Kind == KindInvalid {
				errs = append(errs, errors.New(e.Reason))
			}
			edits = append(edits, e)
		}
	}
	// The form that starts first owns its lines: a patch example inside a
	// SEARCH/REPLACE body is content, and so is a block inside a patch.
	if firstLine(lines, searchMarker.MatchString) < firstLine(lines, func(l string) bool { return strings.TrimSpace(l) == "*** Begin Patch" }) {
		add(parseSearchReplace(lines, used))
		add(parseApplyPatch(lines, used))
	} else {
		add(parseApplyPatch(lines, used))
		add(parseSearchReplace(lines, used))
	}
	add(parseXMLWrites(lines, used))
	add(parseDiffFences(lines, used))
	add(parseBareDiffs(lines, used))
	add(parseLineFences(lines, used))
	add(parseOrphanMarkers(lines, used))
	if len(edits) == 0 {
		add(parseWholeFiles(lines))
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].line < edits[j].line })
	return edits, errors.Join(errs...)
}

func firstLine(lines []string, is func(string) bool) int {
	for k, l := range lines {
		if is(l) {
			return k
		}
	}
	return len(lines)
}

// invalid is a block of the answer that could not be read.
func invalid(line int, path, reason string) Edit {
	return Edit{Kind: KindInvalid, Path: path, Reason: reason, Source: "parse", line: line}
}

func markUsed(used []bool, from, to int) {
	for k := from; k < to && k < len(used); k++ {
		used[k] = true
	}
}

// cleanPathLine extracts a file path from a line that names one: "path",
// "`path`", "### path", "**path**", "File: path", "path:", "```go path".
func cleanPathLine(l string) string {
	s := strings.TrimSpace(l)
	if m := fenceLine.FindStringSubmatch(s); m != nil {
		info := strings.TrimSpace(m[2])
		// "```go:path/file.go", "```go path/file.go" or "```path/file.go"
		if i := strings.IndexAny(info, ": "); i >= 0 {
			info = strings.TrimSpace(info[i+1:])
		}
		if looksLikePath(info) && (strings.ContainsAny(info, "./")) {
			return strings.Trim(info, "`")
		}
		return ""
	}
	if m := xmlPathLine.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	s = strings.TrimLeft(s, "#>-* ")
	s = strings.TrimSpace(s)
	for _, p := range []string{"File:", "file:", "FILE:", "Path:", "path:", "Filename:", "filename:"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	s = strings.Trim(s, "*_")
	s = strings.TrimSuffix(s, ":")
	s = strings.Trim(s, "`'\"")
	s = strings.TrimSuffix(s, ":")
	s = strings.TrimSpace(s)
	// "app/main.go (new file)", "app/main.go - add the handler": the
	// name and a description of the change.
	if f := strings.Fields(s); len(f) > 1 && strings.ContainsAny(f[0], "./") && strings.ContainsAny(f[1][:1], "(-–—:") {
		s = strings.Trim(f[0], "`'\"*")
	}
	// "app/main.go:12" or "app/main.go:12:5": a position, not part of the name.
	s = linePosSuffix.ReplaceAllString(s, "$1")
	if !looksLikePath(s) {
		return ""
	}
	return s
}

func looksLikePath(s string) bool {
	if s == "" || len(s) > 255 || !pathLike.MatchString(s) || !strings.ContainsFunc(s, unicode.IsLetter) && !strings.ContainsFunc(s, unicode.IsDigit) {
		return false // "..." between two blocks is no file
	}
	if strings.HasSuffix(s, ".") {
		return false // "Done." or "Then run it." above a fence is a sentence, not a file
	}
	if strings.Contains(s, " ") && !strings.ContainsAny(s, "./") {
		return false // prose, not a path
	}
	if strings.Count(s, " ") > 2 {
		return false
	}
	return strings.ContainsAny(s, "./") || !strings.Contains(s, " ")
}

// parseSearchReplace reads every SEARCH / ======= / REPLACE block by its
// structure: a block runs from its SEARCH marker to the first REPLACE
// marker before the next SEARCH marker, so a "=======" line inside it may
// be content (a Markdown or reStructuredText heading underline). With one
// divider there is nothing to choose; with several, the first is the
// parse and the others are kept as alternatives that Resolve tries against
// the file (the split whose SEARCH text the file holds wins). A run of
// dividers with nothing between them is one divider. Roo's ":start_line:"
// header and its "\=======" escapes are read. The file is named on the
// nearest line above the block that is not blank, a fence opening or an XML
// wrapper (<diff>); a block without one continues the previous block's file.
func parseSearchReplace(lines []string, used []bool) []Edit {
	var edits []Edit
	lastPath := ""
	for i := 0; i < len(lines); i++ {
		if used[i] || !searchMarker.MatchString(lines[i]) {
			continue
		}
		start := i
		path := pathAbove(lines, i)
		if path == "" {
			path = lastPath
		}
		end, limit := -1, len(lines)
		for k := i + 1; k < len(lines); k++ {
			if replaceMarker.MatchString(lines[k]) {
				end = k
				break
			}
			if searchMarker.MatchString(lines[k]) {
				limit = k
				break
			}
		}
		if end < 0 {
			// No REPLACE marker: a second "=======" closes the block, as
			// aider reads it (the model wrote the divider for the marker).
			end = closingDivider(lines[start+1 : limit])
			if end >= 0 {
				end += start + 1
			}
		}
		if end < 0 {
			edits = append(edits, invalid(start, path, fmt.Sprintf("the SEARCH/REPLACE block at line %d of your answer is not closed: it needs a ======= line and then a >>>>>>> REPLACE line", start+1)))
			markUsed(used, start, start+1)
			continue
		}
		markUsed(used, start, end+1)
		i = end
		body := lines[start+1 : end]
		startLine := 0
		h := 0
		for h < len(body) {
			m := rooLineHeader.FindStringSubmatch(strings.TrimSpace(body[h]))
			if m == nil {
				break
			}
			if m[1] == "start" {
				startLine, _ = strconv.Atoi(m[2])
			}
			h++
		}
		if h > 0 && h < len(body) && rooSeparator.MatchString(body[h]) {
			h++
		}
		body = body[h:]
		var divs [][2]int
		for k := 0; k < len(body); k++ {
			if !dividerMarker.MatchString(body[k]) {
				continue
			}
			r := k + 1
			for r < len(body) && dividerMarker.MatchString(body[r]) {
				r++
			}
			divs = append(divs, [2]int{k, r})
			k = r - 1
		}
		if len(divs) == 0 {
			edits = append(edits, invalid(start, path, fmt.Sprintf("the SEARCH/REPLACE block at line %d of your answer has no ======= line between its SEARCH and REPLACE parts", start+1)))
			continue
		}
		// "=======" twice and nothing after: the first is the divider
		// and the rest is the replacement (as written), or the divider
		// was typed twice and the replacement is empty (a deletion). Both
		// are readings (readings.go): the verifier's artefact row refuses
		// the first wherever the file has no such line, so the deletion
		// stands alone there; in a file that has them (a merge conflict
		// being resolved, a Markdown heading) both pass and the answer is
		// refused naming both.
		doubled := len(divs) == 1 && divs[0][1]-divs[0][0] > 1 && len(trimBlankEnds(body[divs[0][1]:])) == 0
		if doubled {
			divs[0][1] = divs[0][0] + 1
		}
		if k := rooMarkerIn(body[divs[len(divs)-1][1]:]); k >= 0 {
			edits = append(edits, invalid(start, path, fmt.Sprintf("the SEARCH/REPLACE block at line %d of your answer has a %q line in its REPLACE part: line markers go at the start of SEARCH; a line of the file that reads so is written \\%s", start+1, strings.TrimSpace(body[divs[len(divs)-1][1]+k]), strings.TrimSpace(body[divs[len(divs)-1][1]+k]))))
			continue
		}
		if path == "" {
			edits = append(edits, invalid(start, "", fmt.Sprintf("the SEARCH/REPLACE block at line %d of your answer does not say which file it edits: put the file path alone on the line before <<<<<<< SEARCH", start+1)))
			continue
		}
		lastPath = path
		split := func(d [2]int) [2]string {
			old := joinLines(unescapeRoo(body[:d[0]]))
			if strings.TrimSpace(old) == "" {
				old = "" // an empty SEARCH creates the file (or fills an empty one)
			}
			return [2]string{old, joinLines(unescapeRoo(body[d[1]:]))}
		}
		first := split(divs[0])
		e := Edit{Kind: KindEdit, Path: path, OldText: first[0], NewText: first[1], Source: "search_replace", StartLine: startLine, line: start}
		for _, d := range divs[1:] {
			e.alts = append(e.alts, split(d))
		}
		if last := divs[len(divs)-1]; len(divs) > 1 && len(trimBlankEnds(body[last[1]:])) == 0 {
			// A divider right before the REPLACE marker: the last line of
			// the replacement, or a divider written as the block's closer
			// (aider reads the latter). Both are readings (readings.go).
			c := e
			c.alts = nil
			trimmed := append([]string(nil), body[:last[0]]...)
			c.OldText, c.NewText = split(divs[0])[0], joinLines(unescapeRoo(trimmed[divs[0][1]:]))
			for _, d := range divs[1 : len(divs)-1] {
				c.alts = append(c.alts, [2]string{split(d)[0], joinLines(unescapeRoo(trimmed[d[1]:]))})
			}
			e.variants = append(e.variants, variant{why: fmt.Sprintf("the last ======= of the block at line %d as its end, not a line of the file", start+1), edits: []Edit{c}})
		}
		if doubled {
			d := e
			d.NewText = ""
			e.variants = append(e.variants, variant{why: fmt.Sprintf("the ======= lines of the block at line %d as one divider typed twice, its replacement empty (the SEARCH text deleted)", start+1), edits: []Edit{d}})
		}
		edits = append(edits, e)
	}
	return edits
}

// closingDivider returns the index in body of a second "=======" line (after
// a first one and some text), or -1.
func closingDivider(body []string) int {
	seen := false
	for k, l := range body {
		if !dividerMarker.MatchString(l) {
			continue
		}
		if seen && k > 0 && !dividerMarker.MatchString(body[k-1]) {
			return k
		}
		seen = true
	}
	return -1
}

// pathAbove finds the file named above a block starting at line i.
func pathAbove(lines []string, i int) string {
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		l := strings.TrimSpace(lines[k])
		if l == "" || xmlWrapper.MatchString(l) {
			continue
		}
		if replaceMarker.MatchString(l) {
			return ""
		}
		if fenceLine.MatchString(l) {
			if p := cleanPathLine(l); p != "" {
				return p
			}
			continue
		}
		if _, ok := tagFence(l); ok {
			continue
		}
		return cleanPathLine(l)
	}
	return ""
}

// tagFences are the fences aider writes besides backticks (its
// "<source>python" fence among them), by opening tag.
var tagFences = regexp.MustCompile(`^<(source|code|pre|codeblock|sourcecode)>\s*[\w+#.-]*\s*$`)

// tagFence reads an opening tag fence and returns its closing line.
func tagFence(l string) (string, bool) {
	m := tagFences.FindStringSubmatch(strings.TrimSpace(l))
	if m == nil {
		return "", false
	}
	return "</" + m[1] + ">", true
}

// openFence reads a fence's opening line: its closing line and info
// string.
func openFence(l string) (closer, info string, ok bool) {
	if m := fenceLine.FindStringSubmatch(l); m != nil {
		return m[1], strings.TrimSpace(m[2]), true
	}
	if c, ok := tagFence(l); ok {
		t := strings.TrimSpace(l)
		return c, strings.TrimSpace(t[strings.IndexByte(t, '>')+1:]), true
	}
	return "", "", false
}

// rooMarkerIn returns the index of an unescaped Roo line marker
// (":start_line:") in ls, or -1.
func rooMarkerIn(ls []string) int {
	for k, l := range ls {
		if rooLineHeader.MatchString(strings.TrimSpace(l)) {
			return k
		}
	}
	return -1
}

// unescapeRoo: Roo escapes marker lines that are content with a backslash.
func unescapeRoo(ls []string) []string {
	var out []string
	for n, l := range ls {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, `\=======`) || strings.HasPrefix(t, `\<<<<<<<`) || strings.HasPrefix(t, `\>>>>>>>`) || strings.HasPrefix(t, `\-------`) || strings.HasPrefix(t, `\+++++++`) ||
			strings.HasPrefix(t, `\:start_line:`) || strings.HasPrefix(t, `\:end_line:`) {
			if out == nil {
				out = append([]string(nil), ls[:n]...)
			}
			ind := l[:len(l)-len(t)]
			out = append(out, ind+t[1:])
			continue
		}
		if out != nil {
			out = append(out, l)
		}
	}
	if out == nil {
		return ls
	}
	return out
}

// xmlToolTags are the tool calls models write as XML tags in text (Cline's
// <write_to_file>, hallucinated <edit_file>...): each child tag is an
// argument, read with FromToolCall's names and variants.
var xmlToolTags = map[string]bool{
	"write_to_file": true, "write_file": true, "create_file": true, "edit_file": true, "str_replace": true,
	"replace_in_file": true, "delete_file": true, "rename_file": true, "move_file": true,
}

var (
	xmlOpenTag  = regexp.MustCompile(`^<([a-z_]+)>$`)
	xmlChildTag = regexp.MustCompile(`^\s*<([A-Za-z_]+)>`)
)

// parseXMLWrites reads tool calls written as XML tags, one child tag per
// argument (a value may span lines; it loses one line break at each end):
//
//	<write_to_file>
//	<path>docs/usage.md</path>
//	<content>
//	# Usage
//	</content>
//	</write_to_file>
//
// A tag whose lines another form read (Cline's <replace_in_file> around
// SEARCH/REPLACE blocks) is left to that form.
func parseXMLWrites(lines []string, used []bool) []Edit {
	var edits []Edit
	for i := 0; i < len(lines); i++ {
		m := xmlOpenTag.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if used[i] || m == nil || !xmlToolTags[m[1]] {
			continue
		}
		tag := m[1]
		end := -1
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == "</"+tag+">" {
				end = k
				break
			}
		}
		if end < 0 {
			edits = append(edits, invalid(i, xmlPath(lines[i+1:]), fmt.Sprintf("the <%s> at line %d of your answer has no </%s>: it is cut off", tag, i+1, tag)))
			markUsed(used, i, len(lines))
			break
		}
		taken := false
		for k := i; k <= end; k++ {
			taken = taken || used[k]
		}
		if taken {
			i = end
			continue
		}
		markUsed(used, i, end+1)
		args := map[string]string{}
		body := strings.Join(lines[i+1:end], "\n")
		for len(body) > 0 {
			cm := xmlChildTag.FindStringSubmatchIndex(body)
			if cm == nil {
				break
			}
			key := body[cm[2]:cm[3]]
			rest := body[cm[1]:]
			close := strings.Index(rest, "</"+key+">")
			if close < 0 {
				edits = append(edits, invalid(i, args["path"], fmt.Sprintf("the <%s> in the <%s> at line %d of your answer is not closed", key, tag, i+1)))
				args = nil
				break
			}
			v := strings.TrimPrefix(rest[:close], "\n")
			args[key] = v
			body = rest[close+len(key)+3:]
		}
		if args == nil {
			i = end
			continue
		}
		if c, ok := args["content"]; ok {
			// The content's last line ends the file: keep its line break.
			if c != "" && !strings.HasSuffix(c, "\n") {
				args["content"] = c + "\n"
			}
		}
		for k, v := range args {
			if k != "content" {
				args[k] = strings.TrimSuffix(v, "\n")
			}
		}
		raw, _ := json.Marshal(args)
		e, err := FromToolCall(tag, string(raw))
		if err != nil {
			edits = append(edits, invalid(i, args["path"], fmt.Sprintf("the <%s> at line %d of your answer: %v", tag, i+1, err)))
		} else {
			e.Source, e.line = "xml", i
			edits = append(edits, e)
		}
		i = end
	}
	return edits
}

func xmlPath(lines []string) string {
	for _, l := range lines {
		if m := xmlPathLine.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return m[1]
		}
	}
	return ""
}

// lineFence is a Cursor-style "```12:20:path" fence: the new text of lines
// 12 to 20 of path.
var lineFence = regexp.MustCompile("^\\s*```(\\d+):(\\d+):(\\S+)\\s*$")

func parseLineFences(lines []string, used []bool) []Edit {
	var edits []Edit
	for i := 0; i < len(lines); i++ {
		if used[i] {
			continue
		}
		m := lineFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		end := -1
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == "```" {
				end = k
				break
			}
		}
		if end < 0 {
			edits = append(edits, invalid(i, m[3], fmt.Sprintf("the ```%s:%s:%s block at line %d of your answer is not closed", m[1], m[2], m[3], i+1)))
			markUsed(used, i, len(lines))
			break
		}
		markUsed(used, i, end+1)
		if a < 1 || b < a {
			edits = append(edits, invalid(i, m[3], fmt.Sprintf("the block for %s names lines %d to %d, which is no range of lines", m[3], a, b)))
		} else {
			edits = append(edits, Edit{Kind: KindEdit, Path: m[3], NewText: joinLines(lines[i+1 : end]), StartLine: a, EndLine: b, Source: "line_fence", line: i})
		}
		i = end
	}
	return edits
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// fileLabel reads the line above a whole-file fence: a bare path (a bare
// word only in backticks), or a label over it ("**app/main.py**",
// "File: app/main.py", "app/main.py:"). A heading ("### app/main.py") or
// a sentence naming the file is how plans show an example as well as how
// some models name a whole file: exampleLabel reads those, under stricter
// checks (docs/edits.md).
func fileLabel(line string) string {
	name := strings.TrimSpace(line)
	if name == "" || strings.HasPrefix(name, "#") {
		return ""
	}
	path := cleanPathLine(name)
	quoted := strings.HasPrefix(name, "`") && strings.HasSuffix(name, "`")
	if path == "" || !quoted && !strings.ContainsAny(path, "./") {
		return ""
	}
	label := strings.TrimSpace(strings.Trim(name, "*_`"))
	for _, p := range []string{"File:", "file:", "FILE:", "Path:", "path:", "Filename:", "filename:"} {
		label = strings.TrimSpace(strings.TrimPrefix(label, p))
	}
	label = strings.TrimSpace(strings.Trim(strings.TrimSuffix(strings.Trim(label, "*_`"), ":"), "*_`"))
	if label != path {
		return "" // more than the name on the line: prose
	}
	return path
}

// exampleLabel reads a heading naming only a file ("### app/main.py",
// "## `app/main.py`") or a sentence ending in a colon that names one path
// in a code span ("Here's the updated `app/main.py`:"; other spans, if
// any, hold no "." or "/": a function's or a word's name, as in "the
// modified `calc.py` that adds the `sub` function:"). Aider reads both as
// a whole file; plans show examples the same way, so such a block only
// replaces an existing file it mostly keeps (Edit.mustExist), and never
// inside a plan the answer repeats.
func exampleLabel(line string) string {
	name := strings.TrimSpace(line)
	if h := strings.TrimLeft(name, "#"); h != name {
		if len(name)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			return ""
		}
		return fileLabel(strings.TrimSpace(h))
	}
	n := strings.Count(name, "`")
	if !strings.HasSuffix(name, ":") || n == 0 || n%2 != 0 || len(name) > 120 {
		return ""
	}
	spans := strings.Split(name, "`")
	path := ""
	for k := 1; k < len(spans); k += 2 {
		span := spans[k]
		if span == "" || strings.ContainsAny(span, " \t") {
			return ""
		}
		if n > 2 && !strings.ContainsAny(span, "./") {
			continue // a name that is not a path: `sub`, `accumulate`
		}
		if path != "" {
			return "" // two paths: which file the block is, is a guess
		}
		if path = fileLabel("`" + span + "`"); path == "" {
			return ""
		}
	}
	return path
}

// inPlans marks the lines of the plans an answer repeats (from "## Plan"
// to "## End Plan" or the end): their examples are the architect's, not
// files.
func inPlans(lines []string) []bool {
	in := make([]bool, len(lines))
	open := false
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case "## Plan":
			open = true
		case "## End Plan":
			in[i], open = true, false
			continue
		}
		in[i] = open
	}
	return in
}

// keepsMostOf: new keeps, in order, at least half of old's non-blank lines
// (a file of one such line aside): what a whole file given back with
// changes does, and an example of a few lines does not.
func keepsMostOf(old, new string) bool {
	a, b := nonBlank(old), nonBlank(new)
	if len(a) <= 1 {
		return true
	}
	kept := 0
	for _, o := range diffLines(a, b) {
		if o.kind == '=' {
			kept += o.i2 - o.i1
		}
	}
	return 2*kept >= len(a)
}

func nonBlank(s string) []string {
	var out []string
	for _, l := range splitKeep(s) {
		if t := strings.TrimRight(l, " \t\r\n"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// parseWholeFiles reads blocks marked as a whole file: a line naming the
// file (fileLabel) directly above a fence, backticks or aider's tag fences.
// Their edits have Source "whole_file"; the verifier judges what they
// would leave.
func parseWholeFiles(lines []string) []Edit {
	var edits []Edit
	planned := inPlans(lines)
	for i := 1; i < len(lines); i++ {
		fence, info, ok := openFence(lines[i])
		if !ok {
			continue
		}
		if info == "diff" || info == "patch" {
			continue
		}
		path, example := fileLabel(lines[i-1]), false
		if path == "" && !planned[i] {
			path, example = exampleLabel(lines[i-1]), true
			if path == "" && i >= 2 && strings.TrimSpace(lines[i-1]) == "" {
				path = exampleLabel(lines[i-2]) // a sentence, a blank line, the fence
			}
		}
		if path == "" {
			continue
		}
		end := -1
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == fence {
				end = k
				break
			}
		}
		if end < 0 {
			continue
		}
		e := Edit{Kind: KindWrite, Path: path, NewText: joinLines(lines[i+1 : end]), Source: "whole_file", mustExist: example}
		if last := outerCloser(lines, i, end, fence); last > end {
			// The content opens a fence of its own (a Markdown file's code
			// block) and the first closing line may be that block's: the
			// outer fence may end at the last one. Both are readings; the
			// verifier's unclosed-fence row tells them apart.
			v := e
			v.NewText = joinLines(lines[i+1 : last])
			e.variants = []variant{{why: fmt.Sprintf("the fence of %s as ending at line %d of the answer, the one at line %d being the content's", path, last+1, end+1), edits: []Edit{v}}}
			end = last
		}
		edits = append(edits, e)
		i = end
	}
	return edits
}

// outerCloser: when the fenced lines (open, end) hold a fence opening with
// an info string (an inner code block), the last line that could close
// the outer fence before the next named file, or -1.
func outerCloser(lines []string, open, end int, fence string) int {
	inner := false
	for k := open + 1; k < end; k++ {
		if c, info, ok := openFence(lines[k]); ok && info != "" && strings.HasPrefix(c, fence[:1]) {
			inner = true
		}
	}
	if !inner {
		return -1
	}
	last := -1
	for k := end + 1; k < len(lines); k++ {
		if _, _, ok := openFence(lines[k]); ok && fileLabel(lines[k-1]) != "" {
			break // the next file's block
		}
		if strings.TrimSpace(lines[k]) == fence {
			last = k
		}
	}
	return last
}
