package editapply

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

var hunkHeader = regexp.MustCompile(`^@@.*@@(.*)$`)

// parseDiffFences reads unified diffs in ```diff (or ```patch) fences. Each
// hunk becomes an edit_file-like edit (context and "-" lines are the old
// text, context and "+" lines the new), so line numbers in @@ headers, often
// wrong in model output, are not trusted: the ladder finds the place. A
// diff without ---/+++ file lines edits the file the fence names
// ("```diff path") or the line above the fence does.
func parseDiffFences(lines []string, used []bool) []Edit {
	var edits []Edit
	for i := 0; i < len(lines); i++ {
		if used[i] {
			continue
		}
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		info := strings.TrimSpace(m[2])
		f := strings.Fields(info)
		kind := ""
		if len(f) > 0 {
			kind = strings.ToLower(f[0])
			// "```diff:app/x.go" names the file after a colon.
			if k, _, ok := strings.Cut(kind, ":"); ok && (k == "diff" || k == "patch") {
				kind, f = k, []string{k, f[0][len(k)+1:]}
			}
		}
		fence := m[1]
		end := len(lines)
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == fence {
				end = k
				break
			}
		}
		inner := false
		for k := i; k < end; k++ {
			inner = inner || used[k]
		}
		if inner {
			i = end // a SEARCH/REPLACE block inside: its body is content
			continue
		}
		if kind != "diff" && kind != "patch" && kind != "udiff" {
			i = end // another fence's body is content, never a diff
			continue
		}
		body := lines[i+1 : end]
		markUsed(used, i, end+1)
		if h := plusOnlyHeader(body); h >= 0 {
			// A "+++ b/x" without its "--- a/x" line: the file line, not an
			// added line "++ b/x".
			name := diffName(body[h][4:])
			body = append(append(append([]string(nil), body[:h]...), "--- a/"+name), body[h:]...)
		}
		if !hasFileHeader(body) {
			path := ""
			if len(f) > 1 {
				path = cleanPathLine(f[1])
			} else if i > 0 {
				path = cleanPathLine(lines[i-1])
			}
			if path == "" || !strings.ContainsAny(path, "./") {
				edits = append(edits, invalid(i, "", fmt.Sprintf("the diff at line %d of your answer names no file: start it with --- a/PATH and +++ b/PATH lines", i+1)))
				i = end
				continue
			}
			body = append([]string{"--- a/" + path, "+++ b/" + path}, body...)
			if !hasHunkHeader(body) {
				body = append(body[:2:2], append([]string{"@@ @@"}, body[2:]...)...)
			}
		}
		edits = append(edits, diffBlock(i, body)...)
		i = end
	}
	return edits
}

// diffBlock reads one unified diff found at line i of the answer, fenced
// or bare: its edits, or one invalid edit saying why it could not be read.
func diffBlock(i int, body []string) []Edit {
	es, err := parseUnifiedDiff(body)
	if err != nil {
		es = append(es, invalid(i, diffPath(body), fmt.Sprintf("the diff at line %d of your answer could not be read: %v; write a unified diff with --- and +++ file lines and @@ hunks", i+1, err)))
	}
	for n := range es {
		es[n].line = i
	}
	return es
}

// plusOnlyHeader is the index of a "+++ " line right before the first @@
// with no "--- " line before it, or -1.
func plusOnlyHeader(body []string) int {
	for k, l := range body {
		if strings.HasPrefix(l, "@@") {
			if k > 0 && strings.HasPrefix(body[k-1], "+++ ") && (k < 2 || !strings.HasPrefix(body[k-2], "--- ")) {
				return k - 1
			}
			return -1
		}
	}
	return -1
}

func hasFileHeader(body []string) bool {
	for k := 0; k+1 < len(body); k++ {
		if strings.HasPrefix(body[k], "--- ") && strings.HasPrefix(body[k+1], "+++ ") || strings.HasPrefix(body[k], "diff --git ") {
			return true
		}
	}
	return false
}

func hasHunkHeader(body []string) bool {
	for _, l := range body {
		if strings.HasPrefix(l, "@@") {
			return true
		}
	}
	return false
}

// diffPath is the first file a diff body names, "" when none.
func diffPath(body []string) string {
	for _, l := range body {
		if strings.HasPrefix(l, "--- ") {
			if p := diffName(l[4:]); !noFile(p) {
				return p
			}
		}
		if strings.HasPrefix(l, "+++ ") {
			if p := diffName(l[4:]); !noFile(p) {
				return p
			}
		}
	}
	return ""
}

// parseBareDiffs reads unified diffs written outside any fence: from a
// "diff --git" or "--- " line followed by "+++ " to the first line that is
// not part of a diff.
func parseBareDiffs(lines []string, used []bool) []Edit {
	var edits []Edit
	inFence := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			switch {
			case inFence == "":
				inFence = m[1]
			case strings.TrimSpace(l) == inFence:
				inFence = ""
			}
			continue
		}
		if inFence != "" || used[i] {
			continue
		}
		gitHeader := strings.HasPrefix(l, "diff --git ")
		if !gitHeader && !(strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")) {
			continue
		}
		end := i + 1
		for end < len(lines) && !used[end] && isDiffLine(lines[end]) {
			if lines[end] == "" && !continuesAfterBlank(lines, end+1) {
				break
			}
			end++
		}
		body := lines[i:end]
		if !hasHunkHeader(body) && !hasDeleteOrNew(body) {
			continue
		}
		markUsed(used, i, end)
		edits = append(edits, diffBlock(i, body)...)
		i = end - 1
	}
	return edits
}

// continuesAfterBlank: after a blank line a bare diff goes on only with a
// line that cannot be prose ("- item" is a Markdown list, not a removal).
func continuesAfterBlank(lines []string, k int) bool {
	for ; k < len(lines) && lines[k] == ""; k++ {
	}
	if k >= len(lines) {
		return false
	}
	l := lines[k]
	for _, p := range []string{" ", "@@", "diff --git ", "--- ", "+++ "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return (l[0] == '+' || l[0] == '-') && !strings.HasPrefix(l[1:], " ")
}

func hasDeleteOrNew(body []string) bool {
	for _, l := range body {
		if strings.HasPrefix(l, "deleted file mode") || strings.HasPrefix(l, "new file mode") || strings.HasPrefix(l, "rename from") {
			return true
		}
	}
	return false
}

// isDiffLine: a line a unified diff may hold. A blank line is a context
// line whose space was dropped; trailing ones are trimmed by normalizeHunks.
func isDiffLine(l string) bool {
	if l == "" {
		return true
	}
	switch l[0] {
	case ' ', '-', '+', '\\', '@':
		return l[0] != '@' || strings.HasPrefix(l, "@@")
	}
	for _, p := range []string{"diff --git ", "index ", "new file mode", "deleted file mode", "similarity index", "rename from", "rename to", "old mode", "new mode"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// parseUnifiedDiff normalises the hunk headers (recounting their lines, so a
// bare "@@ ... @@" works) and hands the text to go-diff.
func parseUnifiedDiff(body []string) ([]Edit, error) {
	fixed := normalizeHunks(body)
	fds, err := diff.ParseMultiFileDiff([]byte(fixed))
	if err != nil {
		return nil, err
	}
	var edits []Edit
	for _, fd := range fds {
		orig, neu := diffName(fd.OrigName), diffName(fd.NewName)
		if neu == "" {
			neu = orig // "+++ b/" names no file: the change stays where it was
		}
		if noFile(orig) && noFile(neu) {
			continue // "--- /dev/null" "+++ b/": no file to change
		}
		switch {
		case orig == "/dev/null" || orig == "":
			var b strings.Builder
			for _, h := range fd.Hunks {
				_, n := hunkTexts(h)
				b.WriteString(n)
			}
			// "--- /dev/null" says the file is new: over a file that exists
			// the headers contradict the workspace, and it is refused
			// like apply_patch's Add File.
			w := Edit{Kind: KindWrite, Path: neu, NewText: b.String(), Source: "diff", mustCreate: orig == "/dev/null"}
			// Hunks that remove lines contradict "/dev/null": the other
			// reading is an edit of the file those lines are in
			// (readings.go); the workspace decides.
			var asEdit []Edit
			for _, h := range fd.Hunks {
				if o, n := hunkTexts(h); strings.TrimSpace(o) != "" {
					asEdit = append(asEdit, Edit{Kind: KindEdit, Path: neu, OldText: o, NewText: n, Source: "diff"})
				}
			}
			if len(asEdit) == len(fd.Hunks) {
				w.variants = []variant{{why: fmt.Sprintf("the diff for %s as an edit of its lines, not a new file", neu), edits: asEdit}}
			}
			edits = append(edits, w)
			continue
		case neu == "/dev/null":
			// The lines the diff shows removed are what it believes the
			// file holds: a file that holds other lines is not deleted.
			var b strings.Builder
			for _, h := range fd.Hunks {
				o, _ := hunkTexts(h)
				b.WriteString(o)
			}
			edits = append(edits, Edit{Kind: KindDelete, Path: orig, OldText: b.String(), Source: "diff"})
			continue
		}
		for _, h := range fd.Hunks {
			o, n := hunkTexts(h)
			edits = append(edits, Edit{Kind: KindEdit, Path: orig, OldText: o, NewText: n, Source: "diff"})
		}
		if neu != orig {
			edits = append(edits, Edit{Kind: KindRename, Path: orig, NewPath: neu, Source: "diff"})
		}
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("no file changes found")
	}
	return edits, nil
}

// noFile is a diff file line that names no file.
func noFile(name string) bool { return name == "" || name == "/dev/null" }

func diffName(n string) string {
	n = strings.TrimSpace(n)
	if i := strings.IndexByte(n, '\t'); i >= 0 {
		n = n[:i]
	}
	if n == "/dev/null" {
		return n
	}
	for _, p := range []string{"a/", "b/"} {
		if strings.HasPrefix(n, p) {
			return n[2:]
		}
	}
	return n
}

// hunkTexts splits a hunk body into its old and new text.
func hunkTexts(h *diff.Hunk) (string, string) {
	var o, n strings.Builder
	body := string(h.Body)
	body = strings.TrimSuffix(body, "\n")
	for _, l := range strings.Split(body, "\n") {
		text, inOld, inNew, _ := diffLine(l)
		if inOld {
			o.WriteString(text + "\n")
		}
		if inNew {
			n.WriteString(text + "\n")
		}
	}
	return o.String(), n.String()
}

// diffLine reads one body line of a unified diff or an apply_patch update:
// its text and the sides it stands on (context both, "-" the old, "+" the
// new). An empty line is context whose space was dropped; any other line
// (a "\ No newline" marker) is not a change line (ok false).
func diffLine(l string) (text string, inOld, inNew, ok bool) {
	if l == "" {
		return "", true, true, true
	}
	switch l[0] {
	case ' ':
		return l[1:], true, true, true
	case '-':
		return l[1:], true, false, true
	case '+':
		return l[1:], false, true, true
	}
	return "", false, false, false
}

// normalizeHunks rewrites every @@ header with counts taken from its body and
// turns empty body lines (models drop the leading space) into context lines.
func normalizeHunks(lines []string) string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@") {
			out = append(out, l)
			continue
		}
		trailer := ""
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			trailer = m[1]
		}
		oldStart, newStart := 1, 1
		var a, b, c, d int
		if n, _ := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); n == 4 {
			oldStart, newStart = a, c
		} else if n, _ := fmt.Sscanf(l, "@@ -%d +%d @@", &a, &c); n == 2 {
			oldStart, newStart = a, c
		}
		var body []string
		k := i + 1
		for ; k < len(lines); k++ {
			x := lines[k]
			if strings.HasPrefix(x, "@@") || strings.HasPrefix(x, "diff ") ||
				strings.HasPrefix(x, "--- ") && k+1 < len(lines) && strings.HasPrefix(lines[k+1], "+++ ") {
				break
			}
			if x == "" || x[0] == '\t' {
				// Models drop the leading space of context lines: an empty
				// line, or one starting with the file's tab, is context.
				x = " " + x
			}
			if x[0] != ' ' && x[0] != '-' && x[0] != '+' && x[0] != '\\' {
				break
			}
			body = append(body, x)
		}
		// Trailing blank context lines are usually the fence's padding.
		for len(body) > 0 && body[len(body)-1] == " " {
			body = body[:len(body)-1]
		}
		oldN, newN := 0, 0
		for _, x := range body {
			switch x[0] {
			case ' ':
				oldN++
				newN++
			case '-':
				oldN++
			case '+':
				newN++
			}
		}
		if oldN == 0 {
			oldStart = 0
		}
		if newN == 0 {
			newStart = 0
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@%s", oldStart, oldN, newStart, newN, trailer))
		out = append(out, body...)
		i = k - 1
	}
	return strings.Join(out, "\n") + "\n"
}
