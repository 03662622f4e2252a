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
// wrong in model output, are not trusted: the ladder finds the place.
func parseDiffFences(lines []string) ([]Edit, []error) {
	var edits []Edit
	var errs []error
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		info := strings.ToLower(strings.TrimSpace(m[2]))
		if f := strings.Fields(info); len(f) > 0 {
			info = f[0]
		}
		if info != "diff" && info != "patch" && info != "udiff" {
			continue
		}
		fence := m[1]
		end := len(lines)
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == fence {
				end = k
				break
			}
		}
		body := lines[i+1 : end]
		es, err := parseUnifiedDiff(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("the diff at line %d of your answer could not be read: %v; write a unified diff with --- and +++ file lines and @@ hunks", i+1, err))
		}
		edits = append(edits, es...)
		i = end
	}
	return edits, errs
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
			edits = append(edits, Edit{Kind: KindWrite, Path: neu, NewText: b.String(), Source: "diff"})
			continue
		case neu == "/dev/null":
			edits = append(edits, Edit{Kind: KindDelete, Path: orig, Source: "diff"})
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
		if l == "" {
			o.WriteString("\n")
			n.WriteString("\n")
			continue
		}
		switch l[0] {
		case ' ':
			o.WriteString(l[1:] + "\n")
			n.WriteString(l[1:] + "\n")
		case '-':
			o.WriteString(l[1:] + "\n")
		case '+':
			n.WriteString(l[1:] + "\n")
		}
	}
	return o.String(), n.String()
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
