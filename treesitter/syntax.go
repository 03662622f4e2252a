package treesitter

import (
	"fmt"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// syntaxProblem is one ERROR or MISSING node.
type syntaxProblem struct {
	key       string // what it is, independent of where: "missing '}'"
	construct string // the enclosing node type, for the message
	line, col int    // 1-based; col counts bytes
}

// maxErrorSnippet bounds the unexpected text quoted in a message.
const maxErrorSnippet = 24

// SyntaxCheck reports a *SyntaxError when after has ERROR or MISSING nodes
// that before did not have; nil for unsupported languages. An error that was
// already in before (same kind, same text) is not blamed on the edit even if
// it moved.
func SyntaxCheck(path, before, after string) error {
	lang := Language(path, head([]byte(after)))
	if lang == "" || before == after {
		return nil
	}
	g, err := grammarFor(lang)
	if err != nil {
		return nil
	}
	t := taggers.Get().(*tagger)
	defer taggers.Put(t)
	afterProblems, ok := problems(t, g, []byte(after))
	if !ok || len(afterProblems) == 0 {
		return nil
	}
	beforeProblems, _ := problems(t, g, []byte(before))
	old := map[string]int{}
	for _, p := range beforeProblems {
		old[p.key]++
	}
	for _, p := range afterProblems {
		if old[p.key] > 0 {
			old[p.key]--
			continue
		}
		msg := p.key
		if p.construct != "" {
			msg += " in " + strings.ReplaceAll(p.construct, "_", " ")
		}
		return &SyntaxError{Path: path, Line: p.line, Col: p.col, Message: msg}
	}
	return nil
}

// problems lists the ERROR and MISSING nodes of src in source order; ok is
// false when src could not be parsed at all.
func problems(t *tagger, g *grammar, src []byte) ([]syntaxProblem, bool) {
	tree, err := t.parse(g, src, nil)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	var out []syntaxProblem
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch {
		case n.IsMissing():
			out = append(out, problemAt(n, "missing "+quote(n.Type())))
			return
		case n.IsError():
			out = append(out, problemAt(n, "unexpected "+snippet(n.Content(src))))
			return // its insides are one error
		case !n.HasError():
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(tree.RootNode())
	return out, true
}

func problemAt(n *sitter.Node, key string) syntaxProblem {
	p := n.StartPoint()
	construct := ""
	if parent := n.Parent(); parent != nil && !parent.IsError() && parent.Type() != "source_file" &&
		parent.Type() != "program" && parent.Type() != "module" && parent.Type() != "translation_unit" {
		construct = parent.Type()
	}
	return syntaxProblem{key: key, construct: construct, line: int(p.Row) + 1, col: int(p.Column) + 1}
}

// snippet quotes the first token-ish part of unexpected text.
func snippet(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if s == "" {
		return "input"
	}
	if len(s) > maxErrorSnippet {
		cut := maxErrorSnippet
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return quote(s)
}

func quote(s string) string { return "'" + strings.ToValidUTF8(s, "\uFFFD") + "'" }

func (e *SyntaxError) String() string { return e.Error() }

func syntaxErrorText(e *SyntaxError) string {
	return fmt.Sprintf("%s:%d:%d: syntax error: %s", e.Path, e.Line, e.Col, e.Message)
}
