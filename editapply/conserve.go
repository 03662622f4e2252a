package editapply

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// Content conservation (docs/edits.md): a change keeps what the plan does
// not ask to remove. A whole-file write may not drop definitions, nor most
// of the file, unless the plan says so; no change may write content twice
// (twice.go).

// removalWords: a plan that says any of these may shorten a file.
var removalWords = regexp.MustCompile(`(?i)\b(remov|delet|drop|strip|trim|shorten|simplif|clean|prun|cut|replac|rewrit|reduc|consolidat|merg|mov|extract|split|eliminat|get rid)`)

func checkConservation(c *fileChange) *refusal {
	if ref := checkDuplicates(c); ref != nil {
		return ref
	}
	w := -1
	for k, s := range c.spans {
		if s.write && !s.replace && s.start <= bomLen(c.before) && s.end == len(c.before) {
			w = k
		}
	}
	if w < 0 || strings.TrimSpace(c.before) == "" {
		return nil
	}
	before, after := len(nonBlankLines(c.before)), len(nonBlankLines(c.after))
	if before >= 10 && 2*after < before && !removalWords.MatchString(c.plan) {
		return &refusal{spans: []int{w}, reason: fmt.Sprintf("the new content of %s has %d of the file's %d lines, and the plan asks to remove nothing; write the complete file, or use edit_file for the part that changes", c.path, after, before)}
	}
	if dropped := droppedDefinitions(c); len(dropped) > 0 {
		return &refusal{spans: []int{w}, reason: fmt.Sprintf("the new content of %s leaves out %s, which the plan does not ask to remove; write the complete file with them, or use edit_file for the part that changes", c.path, strings.Join(dropped, ", "))}
	}
	return nil
}

// droppedDefinitions lists the definitions (tree-sitter tags) before has
// and after lacks, that the plan does not name.
func droppedDefinitions(c *fileChange) []string {
	bt, err := treesitter.Tags(c.path, []byte(c.before))
	if err != nil {
		return nil
	}
	at, err := treesitter.Tags(c.path, []byte(c.after))
	if err != nil {
		return nil
	}
	have := map[string]int{}
	for _, t := range at {
		if t.Def {
			have[t.Kind+" "+t.Name]++
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range bt {
		k := t.Kind + " " + t.Name
		if !t.Def || seen[k] {
			continue
		}
		if have[k] > 0 {
			have[k]--
			continue
		}
		seen[k] = true
		if !mentions(c.plan, t.Name) {
			out = append(out, fmt.Sprintf("%s %s (line %d)", t.Kind, t.Name, t.Line))
		}
	}
	return out
}

// mentions: name stands in text as a word.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(name)
		if (s == 0 || !isWordByte(text[s-1])) && (e == len(text) || !isWordByte(text[e])) {
			return true
		}
		i = s + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
