package treesitter

import "unicode/utf8"

// References are found by a lexical scan, not by the tags query: a query
// that captures calls and type names has to walk every node of every
// function body, which cost about 40% of a parse on GOROOT/src, while the
// scan below reads each byte once (hundreds of MB/s). It yields every
// identifier outside comments and string literals; the graph keeps only
// names that some file defines and weighs them by how many files use them
// (rank.go), so a local variable that happens to share a definition's name
// adds little. The rules are deliberately coarse: a misread literal costs a
// few references, never a crash, and the scan is linear in the input.

// lexSyntax is what the scan needs to know of a language's comments and
// strings.
type lexSyntax struct {
	lineComment  string // "//" or "#"
	blockComment bool   // /* ... */
	hashAtWord   bool   // "#" starts a comment only at the start of a word (bash: $#, ${#x})
	quotes       string // characters that open a string that ends at the same character
	tripleQuotes bool   // """ and ''' (python)
	// shortQuote is a quote that only opens a literal closed within a few
	// bytes ('a', '\n', '\u{1F600}'); otherwise it is a Rust lifetime.
	shortQuote byte
	dollar     bool // "$" is part of identifiers (javascript)
	// predicateSuffix: a name may end in "?" or "!" (ruby's valid?, save!).
	predicateSuffix bool
}

// lexSyntaxOf is a parsed language's syntax for the scan: its comments and
// quotes from the language table, with what only the scan needs to know.
func lexSyntaxOf(name string) lexSyntax {
	l, _ := LangNamed(name)
	syn := lexSyntax{blockComment: l.Block, quotes: l.Quotes}
	if len(l.Comments) > 0 {
		syn.lineComment = l.Comments[0]
	}
	switch name {
	case "javascript", "typescript", "tsx":
		syn.dollar = true
	case "rust":
		syn.shortQuote = '\''
	case "python":
		syn.tripleQuotes = true
	case "ruby":
		syn.predicateSuffix = true
	case "bash":
		syn.hashAtWord = true
	}
	return syn
}

// maxShortQuote bounds an escaped character literal: '\u{10FFFF}' is the
// longest.
const maxShortQuote = 12

// scanIdents calls fn with the byte range and 1-based line of every
// identifier in src outside comments and string literals.
func scanIdents(src []byte, syn lexSyntax, fn func(start, end, line int)) {
	line := 1
	// skipTo moves past the first occurrence of end at or after i and
	// counts the lines crossed; an unterminated literal runs to the end.
	skipTo := func(i int, end string, escapes bool) int {
		for i < len(src) {
			c := src[i]
			switch {
			case c == '\n':
				line++
			case escapes && c == '\\':
				if i+1 < len(src) && src[i+1] == '\n' {
					line++
				}
				i += 2
				continue
			case c == end[0] && hasPrefixAt(src, i, end):
				return i + len(end)
			}
			i++
		}
		return i
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case isIdentStart(c, syn.dollar):
			start := i
			for i < len(src) && isIdentPart(src[i], syn.dollar) {
				i++
			}
			if syn.predicateSuffix && i < len(src) && (src[i] == '?' || src[i] == '!') &&
				(i+1 == len(src) || src[i+1] != '=') {
				i++
			}
			fn(start, i, line)
		case c >= '0' && c <= '9':
			// A number, with its suffix or exponent (0x1F, 1e9, 10u32).
			for i < len(src) && isIdentPart(src[i], false) {
				i++
			}
		case syn.lineComment != "" && c == syn.lineComment[0] && hasPrefixAt(src, i, syn.lineComment) &&
			(!syn.hashAtWord || i == 0 || isSpace(src[i-1])):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case syn.blockComment && c == '/' && hasPrefixAt(src, i, "/*"):
			i = skipTo(i+2, "*/", false)
		case syn.tripleQuotes && (hasPrefixAt(src, i, `"""`) || hasPrefixAt(src, i, "'''")):
			i = skipTo(i+3, string(src[i:i+3]), true)
		case c == syn.shortQuote && c != 0:
			if end := shortLiteralEnd(src, i); end > 0 {
				i = end
			} else {
				i++ // a lifetime: the name after it is scanned as an identifier
			}
		case indexByte(syn.quotes, c):
			// Go's raw strings take no escapes.
			i = skipTo(i+1, string(c), c != '`')
		default:
			i++
		}
	}
}

// shortLiteralEnd is the end of a character literal opened at i ('a',
// 'é', '\n', '\u{1F600}'), or 0 when the quote opens none (a Rust
// lifetime such as 'a in <'a>).
func shortLiteralEnd(src []byte, i int) int {
	j := i + 1
	if j >= len(src) {
		return 0
	}
	if src[j] == '\\' {
		// An escape: the closing quote follows within maxShortQuote bytes.
		for k := j + 2; k < len(src) && k <= i+maxShortQuote && src[k] != '\n'; k++ {
			if src[k] == '\'' {
				return k + 1
			}
		}
		return 0
	}
	// One character (1-4 bytes of UTF-8), then the closing quote.
	_, size := utf8.DecodeRune(src[j:])
	if k := j + size; k < len(src) && src[j] != '\'' && src[j] != '\n' && src[k] == '\'' {
		return k + 1
	}
	return 0
}

func hasPrefixAt(src []byte, i int, p string) bool {
	return len(src)-i >= len(p) && string(src[i:i+len(p)]) == p
}

func indexByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isIdentStart: ASCII letters, '_', and any byte of a multi-byte UTF-8
// sequence (Go, Rust, Python and JavaScript allow Unicode letters; treating
// every non-ASCII byte as a letter keeps such names whole).
func isIdentStart(c byte, dollar bool) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80 || (dollar && c == '$')
}

func isIdentPart(c byte, dollar bool) bool {
	return isIdentStart(c, dollar) || (c >= '0' && c <= '9')
}
