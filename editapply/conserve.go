package editapply

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// Content conservation (docs/edits.md): a change keeps what the plan does
// not ask to remove. A whole-file write may not drop definitions, nor most
// of the file, unless the plan says so; no change may add a second copy of
// a block the file has once.

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

// dupWindow is how many non-blank lines in a row make a block, and
// dupChars how much text they must hold, for a repeat to count as a copy
// (a closing brace and an "if err != nil" repeat on purpose).
const (
	dupWindow = 5
	dupChars  = 80
)

// checkDuplicates refuses a change that leaves twice a block of lines the
// file had once, one of the copies written by the change: a replacement
// that repeats the lines after it, a write that pastes a function twice.
func checkDuplicates(c *fileChange) *refusal {
	cl := c.changed()
	type line struct {
		h     uint64
		n     int // non-space bytes
		added bool
		at    int
	}
	lines := func(src []string, added []bool) []line {
		var out []line
		for i, l := range src {
			// FNV-1a of the line without surrounding white space, and
			// its count of non-space bytes, without allocating.
			h, n := uint64(14695981039346656037), 0
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			for k := 0; k < len(t); k++ {
				h = (h ^ uint64(t[k])) * 1099511628211
				if t[k] != ' ' && t[k] != '\t' {
					n++
				}
			}
			out = append(out, line{h: h, n: n, added: added != nil && added[i], at: i})
		}
		return out
	}
	after := lines(cl.after, cl.added)
	// Candidate windows: those holding an added line, with enough text.
	key := func(ls []line, i int) (uint64, int) {
		var h uint64
		n := 0
		for _, l := range ls[i : i+dupWindow] {
			h = h*1099511628211 ^ l.h
			n += l.n
		}
		return h, n
	}
	cand := map[uint64]int{}
	for i := 0; i+dupWindow <= len(after); i++ {
		hasAdded := false
		for _, l := range after[i : i+dupWindow] {
			hasAdded = hasAdded || l.added
		}
		if h, n := key(after, i); hasAdded && n >= dupChars {
			cand[h] = i
		}
	}
	if len(cand) == 0 {
		return nil
	}
	count := func(ls []line) map[uint64]int {
		m := map[uint64]int{}
		for i := 0; i+dupWindow <= len(ls); i++ {
			if h, _ := key(ls, i); hasKey(cand, h) {
				m[h]++
			}
		}
		return m
	}
	inBefore, inAfter := count(lines(strings.Split(normalizeEOL(c.before), "\n"), nil)), count(after)
	var hits []int
	for h, i := range cand {
		if inBefore[h] == 1 && inAfter[h] >= 2 {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	sort.Ints(hits)
	i := hits[0]
	r := -1
	for _, l := range after[i : i+dupWindow] {
		if l.added && r < 0 {
			r = cl.region[l.at]
		}
	}
	return &refusal{spans: []int{r}, reason: fmt.Sprintf("the change would leave lines %d to %d of %s twice in the file (%q …): the replacement repeats lines the file keeps. Send the edit again so that each line is written once", after[i].at+1, after[i+dupWindow-1].at+1, c.path, clip(strings.TrimSpace(cl.after[after[i].at])))}
}

func hasKey(m map[uint64]int, h uint64) bool { _, ok := m[h]; return ok }
