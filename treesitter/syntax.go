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
	if lang == "python" {
		// tree-sitter's Python grammar accepts indentation CPython
		// rejects (a 9-space line in a 4-space block): check it apart.
		if line, msg := pythonIndentError(after); line > 0 {
			if bl, bmsg := pythonIndentError(before); bl == 0 || bmsg != msg {
				return &SyntaxError{Path: path, Line: line, Col: 1, Message: "IndentationError: " + msg}
			}
		}
	}
	g, err := grammarFor(lang)
	if err != nil {
		return nil
	}
	t := getSyntaxTagger()
	defer putSyntaxTagger(t)
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

// pythonIndentError finds the first indentation CPython's tokenizer
// rejects: an indented line no block opened ("unexpected indent"), a
// dedent to a level no enclosing block has ("unindent does not match any
// outer indentation level"), or a block opener with nothing indented
// under it ("expected an indented block"). It returns line 0 when there is
// none. Lines inside brackets, triple-quoted strings and after a
// backslash continue a logical line and are not checked.
func pythonIndentError(src string) (int, string) {
	// CPython reads indentation twice, tabs to the next multiple of 8 and
	// tabs as one column (alt), and raises TabError where the two
	// readings order a line differently against the block it is in.
	stack, alt := []int{0}, []int{0}
	const tabError = "inconsistent use of tabs and spaces in indentation (TabError)"
	depth := 0       // open brackets
	triple := ""     // the quotes of an open triple-quoted string
	cont := false    // the previous line ended with a backslash
	expectBlock := 0 // line number of a ":" opener waiting for its block
	for n, raw := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		lineNo := n + 1
		startsLogical := depth == 0 && triple == "" && !cont
		trimmed := strings.TrimLeft(raw, " \t\f")
		if startsLogical && trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			width, altWidth := 0, 0
			for _, c := range raw[:len(raw)-len(trimmed)] {
				switch c {
				case '\t':
					width = (width/8 + 1) * 8
					altWidth++
				case ' ':
					width++
					altWidth++
				}
			}
			top, altTop := stack[len(stack)-1], alt[len(alt)-1]
			switch {
			case width > top:
				if expectBlock == 0 {
					return lineNo, "unexpected indent"
				}
				if altWidth <= altTop {
					return lineNo, tabError
				}
				stack, alt = append(stack, width), append(alt, altWidth)
			case expectBlock != 0:
				return lineNo, "expected an indented block"
			case width == top:
				if altWidth != altTop {
					return lineNo, tabError
				}
			default:
				for len(stack) > 1 && stack[len(stack)-1] > width {
					stack, alt = stack[:len(stack)-1], alt[:len(alt)-1]
				}
				if stack[len(stack)-1] != width {
					return lineNo, "unindent does not match any outer indentation level"
				}
				if alt[len(alt)-1] != altWidth {
					return lineNo, tabError
				}
			}
			expectBlock = 0
		}
		// Scan the line for brackets, strings and comments.
		last := byte(0)
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			if triple != "" {
				if strings.HasPrefix(raw[i:], triple) {
					i += 2
					triple = ""
				}
				continue
			}
			switch c {
			case '#':
				i = len(raw)
				continue
			case '"', '\'':
				q := raw[i : i+1]
				if strings.HasPrefix(raw[i:], q+q+q) {
					triple = q + q + q
					i += 2
					continue
				}
				for i++; i < len(raw) && raw[i:i+1] != q; i++ {
					if raw[i] == '\\' {
						i++
					}
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			}
			if c != ' ' && c != '\t' {
				last = c
			}
		}
		cont = strings.HasSuffix(strings.TrimRight(raw, " \t"), "\\") && triple == ""
		if depth == 0 && triple == "" && !cont && last == ':' {
			expectBlock = lineNo
		}
	}
	return 0, ""
}
