package treesitter

import sitter "github.com/smacker/go-tree-sitter"

// A cold index parses every file of the repository, and in C and C++ most
// of a file's bytes are function bodies and initializers (tables of
// data), which give the map nothing but references — and references come
// from the lexical scan of the real source (lexrefs.go), not from the
// tree. So Build's workers tell the parser to leave their insides out
// (tree-sitter's included ranges): it parses the file as if each function
// and initializer were empty but for the preprocessor lines inside, which
// stay so that a #define in a body is still found. Offsets, lines and
// signatures are the file's own. The statements and expressions that are
// most of a parse's work are never read (design.md "Repository map").
//
// Where the scanner below is not sure, the whole file is parsed: braces
// that do not balance (an #ifdef that opens one body twice), conditional
// directives that do not balance inside a body, an unterminated comment or
// literal, a C++ raw string. What a skimmed file loses on purpose is what
// a body defines: a struct, union or typedef local to a function (not part
// of the file's interface) and statements misparsed as declarations. The
// incremental retag of open files, the kept trees and the syntax check
// parse the whole source.

// skippable returns the byte ranges of src (C when cpp is false, else
// C++) the bulk index need not parse: the insides of its function bodies
// but their preprocessor lines, in order; nil when it finds none or is not
// sure.
func skippable(src []byte, cpp bool) [][2]int {
	b := blanker{src: src, cpp: cpp}
	if !b.scan() || len(b.bodies) == 0 {
		return nil
	}
	var out [][2]int
	k := 0 // the next kept directive
	for _, r := range b.bodies {
		at := r[0]
		for ; k < len(b.kept) && b.kept[k][0] < r[1]; k++ {
			if b.kept[k][0] > at {
				out = append(out, [2]int{at, b.kept[k][0]})
			}
			at = min(b.kept[k][1]+1, r[1]) // with the newline that ends it
		}
		if r[1] > at {
			out = append(out, [2]int{at, r[1]})
		}
	}
	return out
}

// includedRanges are the parts of src outside skip (skippable's answer),
// as the parser's included ranges.
func includedRanges(src []byte, skip [][2]int) []sitter.Range {
	lines := newLineIndex(src)
	point := func(off int) sitter.Point {
		l := lines.line(uint32(off))
		return sitter.Point{Row: uint32(l - 1), Column: uint32(off) - lines.starts[l-1]}
	}
	out := make([]sitter.Range, 0, len(skip)+1)
	add := func(from, to int) {
		if to > from {
			out = append(out, sitter.Range{StartPoint: point(from), EndPoint: point(to), StartByte: uint32(from), EndByte: uint32(to)})
		}
	}
	at := 0
	for _, r := range skip {
		add(at, r[0])
		at = r[1]
	}
	add(at, len(src))
	return out
}

// wholeFile is the parser's default included range: everything.
var wholeFile = []sitter.Range{{EndPoint: sitter.Point{Row: ^uint32(0), Column: ^uint32(0)}, EndByte: ^uint32(0)}}

// blanker scans C or C++ source for the bodies of functions.
type blanker struct {
	src    []byte
	cpp    bool
	bodies [][2]int // the insides of function bodies, between the braces
	kept   [][2]int // the preprocessor lines inside them, in order
}

// token is what the scanner remembers of the last significant token: a
// punctuation byte, or 'i' and the identifier; for ')' the token before its
// '(' (what decides whether a '{' after it opens a function body).
type token struct {
	kind       byte
	ident      string
	beforeOpen string // the identifier before the matching '(' of a ')'
	// openAfter is the kind of the token before that '(': an identifier
	// (`f(void)`) or a ')' (`(*g(void))(int)`) may end a function's head.
	openAfter byte
}

// notFunctionAttrs are names before a parenthesis that may end the head of
// a struct, union or enum rather than a function's parameter list
// (`struct __attribute__((packed)) {`): a brace after them is not taken
// for a body.
var notFunctionAttrs = map[string]bool{
	"__attribute__": true, "__attribute": true, "__declspec": true, "alignas": true,
	"_Alignas": true, "__aligned": true, "__packed": true, "__section": true,
	"__randomize_layout": true, "__no_randomize_layout": true, "decltype": true,
	"__typeof__": true, "typeof": true, "sizeof": true,
}

// scan records the function bodies of b.src; false when the file must be
// parsed as it is.
func (b *blanker) scan() bool {
	src := b.src
	var (
		last   token
		depth  int // open braces that are not function bodies
		parens []token
	)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' && b.directiveAt(i):
			i = b.directiveEnd(i)
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			end, ok := b.commentEnd(i)
			if !ok {
				return false
			}
			i = end
		case c == '"' || c == '\'':
			if b.cpp && c == '"' && last.kind == 'i' && i > 0 && isIdentPart(src[i-1], false) &&
				last.ident[len(last.ident)-1] == 'R' {
				return false // a raw string literal: R"(…)"
			}
			end, ok := b.literalEnd(i)
			if !ok {
				return false
			}
			i = end
			last = token{kind: c}
		case isIdentStart(c, false):
			start := i
			for i < len(src) && isIdentPart(src[i], false) {
				i++
			}
			last = token{kind: 'i', ident: string(src[start:i])}
		case c >= '0' && c <= '9':
			// A number (0x1F, 1e-9, 1'000 in C++).
			for i < len(src) && (isIdentPart(src[i], false) || src[i] == '.' ||
				(b.cpp && src[i] == '\'' && i+1 < len(src) && isIdentPart(src[i+1], false)) ||
				((src[i] == '+' || src[i] == '-') && (src[i-1]|0x20 == 'e' || src[i-1]|0x20 == 'p'))) {
				i++
			}
			last = token{kind: '0'}
		case c == '(':
			parens = append(parens, last)
			last = token{kind: '('}
			i++
		case c == ')':
			if len(parens) == 0 {
				return false
			}
			before := parens[len(parens)-1]
			parens = parens[:len(parens)-1]
			last = token{kind: ')', beforeOpen: before.ident, openAfter: before.kind}
			i++
		case c == '{':
			if len(parens) == 0 && b.opensBody(last) {
				end, ok := b.bodyEnd(i + 1)
				if !ok {
					return false
				}
				b.bodies = append(b.bodies, [2]int{i + 1, end})
				i = end + 1
				last = token{kind: '}'}
				continue
			}
			depth++
			last = token{kind: '{'}
			i++
		case c == '}':
			if depth == 0 {
				return false
			}
			depth--
			last = token{kind: '}'}
			i++
		default:
			last = token{kind: c}
			i++
		}
	}
	return depth == 0 && len(parens) == 0
}

// opensBody says whether a '{' after last opens a function body —
// `f(void) {`, `SYSCALL_DEFINE1(x, int, a) {`, and in C++ `f() const {`,
// `f() override {`, `f() noexcept {` — or an initializer (`= {`: a
// table of data, which defines nothing either).
func (b *blanker) opensBody(last token) bool {
	switch last.kind {
	case '=':
		return true
	case ')':
		return (last.openAfter == 'i' && !notFunctionAttrs[last.beforeOpen]) || last.openAfter == ')'
	case 'i':
		return b.cpp && (last.ident == "const" || last.ident == "override" || last.ident == "noexcept")
	}
	return false
}

// bodyEnd returns the offset of the '}' that closes a body whose inside
// starts at i; false when there is none, or when the conditional
// directives inside it do not balance (the body is not one piece of text
// in every configuration).
func (b *blanker) bodyEnd(i int) (int, bool) {
	src := b.src
	depth, conds := 0, 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#' && b.directiveAt(i):
			switch directiveName(src, i) {
			case "if", "ifdef", "ifndef":
				conds++
			case "endif":
				if conds--; conds < 0 {
					return 0, false
				}
			}
			end := b.directiveEnd(i)
			b.kept = append(b.kept, [2]int{i, end})
			i = end
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			end, ok := b.commentEnd(i)
			if !ok {
				return 0, false
			}
			i = end
		case c == '"' || c == '\'':
			if b.cpp && c == '"' && i > 0 && src[i-1] == 'R' {
				return 0, false
			}
			end, ok := b.literalEnd(i)
			if !ok {
				return 0, false
			}
			i = end
		case c >= '0' && c <= '9' && (i == 0 || !isIdentPart(src[i-1], false)):
			// Skipped whole, so that a C++ digit separator (1'000) is not
			// read as a character literal.
			for i < len(src) && (isIdentPart(src[i], false) || src[i] == '.' ||
				(b.cpp && src[i] == '\'' && i+1 < len(src) && isIdentPart(src[i+1], false))) {
				i++
			}
		case c == '{':
			depth++
			i++
		case c == '}':
			if depth == 0 {
				return i, conds == 0
			}
			depth--
			i++
		default:
			i++
		}
	}
	return 0, false
}

// directiveAt says whether the '#' at i starts a preprocessor line: only
// blanks before it on its line.
func (b *blanker) directiveAt(i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch b.src[j] {
		case ' ', '\t', '\r', '\f', '\v':
			continue
		case '\n':
			return true
		}
		return false
	}
	return true
}

// directiveName is the word after the '#' at i ("if", "define").
func directiveName(src []byte, i int) string {
	i++
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	start := i
	for i < len(src) && isIdentPart(src[i], false) {
		i++
	}
	return string(src[start:i])
}

// directiveEnd is the offset of the newline that ends the preprocessor
// line starting at i (or len(src)): backslash-newlines continue it, and a
// block comment that starts on it continues it to the comment's end.
func (b *blanker) directiveEnd(i int) int {
	src := b.src
	for i < len(src) {
		switch c := src[i]; {
		case c == '\n':
			return i
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end, ok := b.commentEnd(i)
			if !ok {
				return len(src)
			}
			i = end
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			end, _ := b.commentEnd(i)
			return end
		default:
			i++
		}
	}
	return i
}

// commentEnd is the offset after the comment at i: the "*/" of a block
// comment, the newline of a line comment (not the newline itself; a
// backslash-newline continues it). False for an unterminated block comment.
func (b *blanker) commentEnd(i int) (int, bool) {
	src := b.src
	if src[i+1] == '*' {
		for j := i + 2; j+1 < len(src); j++ {
			if src[j] == '*' && src[j+1] == '/' {
				return j + 2, true
			}
		}
		return 0, false
	}
	for j := i + 2; j < len(src); j++ {
		if src[j] == '\n' && src[j-1] != '\\' && !(src[j-1] == '\r' && src[j-2] == '\\') {
			return j, true
		}
	}
	return len(src), true
}

// literalEnd is the offset after the string or character literal opened
// by the quote at i; false when it is not closed on its line (a
// backslash-newline continues it).
func (b *blanker) literalEnd(i int) (int, bool) {
	src := b.src
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}
