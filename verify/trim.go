package verify

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// What goes back to the editor model after a failure (docs/design.md
// "Verification"): the lines that name a changed file first — the
// compiler's "main.go:7:2: undefined: x" is what the model can act on —
// then the first lines of the rest, for a failure that names no file.

// TrimLines is how many lines of each kind Trim keeps; trimLineChars bounds
// one line (a minified bundle on one line must not fill the prompt).
const (
	TrimLines     = 30
	trimLineChars = 300
)

// Trim returns the lines of output that name one of changed (root-relative
// paths), at most n, then the first n lines of the rest, each line cut to
// a readable length, with a note of what was left out.
func Trim(output string, changed []string, n int) string {
	if n <= 0 {
		n = TrimLines
	}
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	var named, rest []string
	for _, l := range lines {
		if len(named) < n && namesAny(l, changed) {
			named = append(named, shorten(l))
			continue
		}
		if len(rest) < n && strings.TrimSpace(l) != "" {
			rest = append(rest, shorten(l))
		}
	}
	kept := append(named, rest...)
	if left := countNonEmpty(lines) - len(kept); left > 0 {
		kept = append(kept, fmt.Sprintf("… %d more lines", left))
	}
	return strings.Join(kept, "\n")
}

// Tail is the last n non-empty lines of output, for the plan document's
// account of a failure.
func Tail(output string, n int) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, shorten(lines[i]))
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n")
}

func countNonEmpty(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func shorten(l string) string {
	l = strings.TrimRight(l, "\r")
	if len(l) <= trimLineChars {
		return l
	}
	cut := trimLineChars
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + " …"
}

// namesAny reports whether line names one of the paths: the path itself
// (as "pkg/x.go" or "./pkg/x.go", after a space, a quote, a parenthesis or
// at the start) followed by something that is not part of a name (":",
// space, ")", end), so "x.go" is not found in "index.go".
func namesAny(line string, paths []string) bool {
	for _, p := range paths {
		p = path.Clean(strings.TrimPrefix(p, "./"))
		if p == "." || p == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(line[from:], p)
			if i < 0 {
				break
			}
			i += from
			end := i + len(p)
			if boundaryBefore(line, i) && boundaryAfter(line, end) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case '/':
		// "./x.go" and "a/b/x.go" name x.go only when the rest of the
		// path is "." — "pkg/x.go" is another file than "x.go".
		j := i - 1
		for j > 0 && !isPathStop(s[j-1]) {
			j--
		}
		return s[j:i] == "./" || s[j:i] == "/"
	case ' ', '\t', '"', '\'', '(', '[', '<', '`', '=', ',':
		return true
	}
	return false
}

func isPathStop(b byte) bool {
	switch b {
	case ' ', '\t', '"', '\'', '(', '[', '<', '`', '=', ',':
		return true
	}
	return false
}

func boundaryAfter(s string, end int) bool {
	if end == len(s) {
		return true
	}
	switch s[end] {
	case ':', ' ', '\t', ')', ']', '"', '\'', '>', '`', ',', '(':
		return true
	}
	return false
}
