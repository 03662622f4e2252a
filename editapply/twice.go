package editapply

import (
	"fmt"
	"strings"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// Content written twice (docs/edits.md, "Content written twice"; contract
// §9.2): the verifier's duplicate row, judged on the file the whole answer
// leaves (every edit of the file together), so a move — one edit deletes
// what another writes — is never blamed. Two findings are damage:
//
//   - a stutter: a block of lines followed at once by the same block, one
//     of the two copies written by the change (every line of it added),
//     where the file did not hold it so (a model that printed its text
//     twice, a new text that repeats the lines just before or after its
//     old text — the whole file given as one edit's new text repeats
//     both);
//   - a definition written twice: a function, method, class or type
//     (tree-sitter tags) whose header stands twice in one scope, where the
//     file had it at most once (a new text carrying a definition the file
//     keeps, a whole file given as one edit's new text, a function pasted
//     twice).
//
// Repetition apart from these is code: a test written beside a similar
// test shares its setup lines, similar branches share statements, and
// neither is refused.

// stutterLines and stutterChars are how many non-blank lines, holding how
// many non-space bytes, a block must have for its repeat to be a stutter
// (a closing brace and an "if err != nil" repeat on purpose).
const (
	stutterLines = 3
	stutterChars = 60
)

// twiceKinds are the definitions a file has one of per scope and header.
// Constants and variables are left out: reassigning one is code.
var twiceKinds = map[string]bool{"function": true, "method": true, "class": true, "type": true, "interface": true, "macro": true}

// checkDuplicates is the duplicate row: a stutter, then a definition
// written twice.
func checkDuplicates(c *fileChange) *refusal {
	cl := c.changed()
	// Both findings need an added line that stands twice in the file
	// after: the cheap test that spares every other change the rest.
	count := make(map[string]int, len(cl.after))
	for _, l := range cl.after {
		if t := strings.TrimSpace(l); t != "" {
			count[t]++
		}
	}
	twice := false
	for i, l := range cl.after {
		if cl.added[i] && count[strings.TrimSpace(l)] >= 2 {
			twice = true
			break
		}
	}
	if !twice {
		return nil
	}
	if ref := stutter(c, cl); ref != nil {
		return ref
	}
	return definedTwice(c, cl)
}

// textLine is a non-blank line of a file without its trailing white space
// (its indentation stays: the same statements after an if, dedented, are
// not a stutter of those inside it), its count of non-space bytes and its
// index among the file's lines.
type textLine struct {
	t  string
	n  int
	at int
}

func textLines(lines []string) []textLine {
	var out []textLine
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		n := 0
		for k := 0; k < len(t); k++ {
			if t[k] != ' ' && t[k] != '\t' {
				n++
			}
		}
		out = append(out, textLine{t, n, i})
	}
	return out
}

// stutter finds a block of the file after followed at once by itself
// (blank lines aside), one copy written by the change, that the file
// before did not hold twice in a row. Two copies that are both the file's
// lines, edited alike, are the file's own repetition.
func stutter(c *fileChange, cl *changedLines) *refusal {
	ls := textLines(cl.after)
	next := map[string]int{}
	nextOf := make([]int, len(ls))
	for k := len(ls) - 1; k >= 0; k-- {
		nextOf[k] = -1
		if j, ok := next[ls[k].t]; ok {
			nextOf[k] = j
		}
		next[ls[k].t] = k
	}
	var before []textLine
	for i := range ls {
		j := nextOf[i]
		n := j - i
		if j < 0 || n < stutterLines || j+n > len(ls) {
			continue
		}
		// One copy written by the change: every line of it added.
		chars, same, first, second := 0, true, true, true
		for k := 0; k < n && same; k++ {
			same = ls[i+k].t == ls[j+k].t
			chars += ls[i+k].n
			first = first && cl.added[ls[i+k].at]
			second = second && cl.added[ls[j+k].at]
		}
		if !same || chars < stutterChars || !first && !second {
			continue
		}
		added := ls[i].at
		if !first {
			added = ls[j].at
		}
		if before == nil {
			before = textLines(modelLines(c.before))
		}
		if inARow(before, ls[i:j]) {
			continue
		}
		return &refusal{spans: []int{cl.region[added]}, reason: fmt.Sprintf("the change would leave lines %d to %d of %s written twice in a row (%q …, again at line %d): a stutter, or a new text that repeats the lines next to its old text (or is the whole file given as the new text of one edit). Send only the lines that replace the old text, each written once, or the whole file with write_file", ls[i].at+1, ls[j-1].at+1, c.path, clip(strings.TrimSpace(ls[i].t)), ls[j].at+1)}
	}
	return nil
}

// inARow: ls holds block followed at once by block.
func inARow(ls []textLine, block []textLine) bool {
	n := len(block)
	for i := 0; i+2*n <= len(ls); i++ {
		ok := true
		for k := 0; k < 2*n && ok; k++ {
			ok = ls[i+k].t == block[k%n].t
		}
		if ok {
			return true
		}
	}
	return false
}

// definedTwice finds a definition whose header (its line, and the lines
// that complete its parameters) stands twice in one scope of the file
// after, one of the two written by the change, where the file before had
// that header in that scope at most once.
func definedTwice(c *fileChange, cl *changedLines) *refusal {
	tags, err := treesitter.Tags(c.path, []byte(c.after))
	if err != nil {
		return nil // a language without tags: the stutter row is all there is
	}
	type def struct {
		kind, name string
		at         int
	}
	seen := map[string]def{}
	var beforeLines []string
	for _, t := range tags {
		at := t.Line - 1
		if !t.Def || !twiceKinds[t.Kind] || at < 0 || at >= len(cl.after) || severalAllowed(c.path, t) {
			continue
		}
		key := defKey(cl.after, at)
		first, ok := seen[key]
		if !ok {
			seen[key] = def{t.Kind, t.Name, at}
			continue
		}
		written := at
		if !cl.added[at] {
			written = first.at
		}
		if !cl.added[written] {
			continue // both the file's own: a scope the tags cannot tell apart
		}
		if beforeLines == nil {
			beforeLines = modelLines(c.before)
		}
		if headersIn(beforeLines, key, strings.TrimSpace(cl.after[at])) >= 2 {
			continue
		}
		return &refusal{spans: []int{cl.region[written]}, reason: fmt.Sprintf("the change would leave %s %s written twice in %s (lines %d and %d, %q): the new text repeats a definition the file keeps, or holds it twice. Send the edit again so that each definition is written once; to change %s, put its old lines in the old text", t.Kind, t.Name, c.path, first.at+1, at+1, clip(strings.TrimSpace(cl.after[at])), t.Name)}
	}
	return nil
}

// severalAllowed: a definition the language lets a file have more than
// once under one header (Go's init functions, The Go Programming Language
// Specification, "Package initialization").
func severalAllowed(p string, t treesitter.Tag) bool {
	return t.Name == "init" && t.Kind == "function" && strings.HasSuffix(p, ".go")
}

// defKey is the header of the definition at line at of lines and its
// scope: the line, trimmed, with the lines that complete an open
// parameter list and the decorators above it, then every enclosing line (each nearest line above
// indented less than the last), so that two classes' setUp methods or two
// tests' local helpers are two scopes.
func defKey(lines []string, at int) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(lines[at]))
	open := strings.Count(lines[at], "(") - strings.Count(lines[at], ")")
	for k := at + 1; open > 0 && k < len(lines) && k <= at+8; k++ {
		b.WriteByte(' ')
		b.WriteString(strings.TrimSpace(lines[k]))
		open += strings.Count(lines[k], "(") - strings.Count(lines[k], ")")
	}
	ind := indentOf(lines[at])
	// Its decorators are part of the header: prompt_toolkit's key
	// bindings are functions all named _, one per @kb.add(...).
	for k := at - 1; k >= 0 && strings.HasPrefix(strings.TrimSpace(lines[k]), "@") && indentOf(lines[k]) == ind; k-- {
		b.WriteString("\x00@")
		b.WriteString(strings.TrimSpace(lines[k]))
	}
	for k := at - 1; k >= 0 && ind > 0; k-- {
		if strings.TrimSpace(lines[k]) == "" {
			continue
		}
		if d := indentOf(lines[k]); d < ind {
			b.WriteString("\x00")
			b.WriteString(strings.TrimSpace(lines[k]))
			ind = d
		}
	}
	return b.String()
}

// indentOf is the width of a line's leading white space.
func indentOf(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// headersIn counts the lines of lines whose definition key is key; line is
// the header's own line, trimmed, the cheap test.
func headersIn(lines []string, key, line string) int {
	n := 0
	for k, l := range lines {
		if strings.TrimSpace(l) == line && defKey(lines, k) == key {
			n++
		}
	}
	return n
}
