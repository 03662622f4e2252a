package treesitter

import (
	"path"
	"strings"
)

// Lang is one row of the language table: the one place aide-lsp knows a
// language by its file names, its comments and its strings. The index
// parses the rows that have a grammar (Parsed, Language); the AI-comment
// scan (commands), the escape check of edits (editapply), the lexical
// reference scan (lexrefs.go) and the fake editor's languageId read the
// rest. tests/testdata/languages.json is checked against it, and the VS
// Code client's comment openers against that file.
type Lang struct {
	Name     string   // "go", "python": the grammar's name when Parsed
	ID       string   // the LSP languageId, when not Name
	Exts     []string // lower-case extensions, with the dot
	Files    []string // lower-case base names that say the language (makefile)
	Comments []string // line-comment markers, the usual one first
	Block    bool     // /* … */ comments
	Quotes   string   // characters that open a string the same one closes
	// BareEscapes: a backslash escape outside any string is ordinary
	// (a shell's \" and \n), so none is a sign of text left escaped.
	BareEscapes bool
	RegexSlash  bool // a "/" after an operator opens a regular expression
	Parsed      bool // a grammar indexes it
}

var (
	slashes = []string{"//"}
	hashes  = []string{"#"}
	dashes  = []string{"--"}
	semis   = []string{";"}
	percent = []string{"%"}
	cQuotes = `"'`
	jsQuote = "\"'`"
)

var langTable = []Lang{
	{Name: "go", Exts: []string{".go"}, Comments: slashes, Block: true, Quotes: jsQuote, Parsed: true},
	{Name: "python", Exts: []string{".py", ".pyi", ".pyw"}, Comments: hashes, Quotes: cQuotes, Parsed: true},
	{Name: "javascript", RegexSlash: true, Exts: []string{".js", ".mjs", ".cjs", ".jsx"}, Comments: slashes, Block: true, Quotes: jsQuote, Parsed: true},
	{Name: "typescript", RegexSlash: true, Exts: []string{".ts", ".mts", ".cts"}, Comments: slashes, Block: true, Quotes: jsQuote, Parsed: true},
	{Name: "tsx", RegexSlash: true, ID: "typescriptreact", Exts: []string{".tsx"}, Comments: slashes, Block: true, Quotes: jsQuote, Parsed: true},
	{Name: "rust", Exts: []string{".rs"}, Comments: slashes, Block: true, Quotes: `"`, Parsed: true},
	{Name: "java", Exts: []string{".java"}, Comments: slashes, Block: true, Quotes: cQuotes, Parsed: true},
	{Name: "c", Exts: []string{".c", ".h"}, Comments: slashes, Block: true, Quotes: cQuotes, Parsed: true},
	{Name: "cpp", Exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++"}, Comments: slashes, Block: true, Quotes: cQuotes, Parsed: true},
	{Name: "ruby", RegexSlash: true, Exts: []string{".rb", ".rake", ".gemspec"}, Files: []string{"rakefile", "gemfile"}, Comments: hashes, Quotes: cQuotes, Parsed: true},
	{Name: "bash", ID: "shellscript", Exts: []string{".sh", ".bash"}, Comments: hashes, Quotes: cQuotes, BareEscapes: true, Parsed: true},
	{Name: "json", Exts: []string{".json"}, Quotes: `"`},
	{Name: "markdown", Exts: []string{".md", ".markdown"}},
	{Name: "php", Exts: []string{".php"}, Comments: []string{"//", "#"}, Block: true},
	{Name: "c-like", Exts: []string{".swift", ".kt", ".kts", ".scala", ".cs", ".dart", ".zig", ".proto"}, Comments: slashes, Block: true},
	{Name: "hash-comment", Exts: []string{".zsh", ".yaml", ".yml", ".toml", ".pl", ".r", ".nix", ".ex", ".exs", ".jl", ".cmake", ".conf"},
		Files: []string{"makefile", "dockerfile"}, Comments: hashes},
	{Name: "dash-comment", Exts: []string{".lua", ".sql", ".hs", ".elm"}, Comments: dashes},
	{Name: "semicolon-comment", Exts: []string{".el", ".lisp", ".clj", ".scm", ".ini", ".asm"}, Comments: semis},
	{Name: "percent-comment", Exts: []string{".tex", ".erl", ".m"}, Comments: percent},
}

// byExt and byFile index langTable.
var byExt, byFile = func() (map[string]*Lang, map[string]*Lang) {
	ext, file := map[string]*Lang{}, map[string]*Lang{}
	for i := range langTable {
		l := &langTable[i]
		for _, e := range l.Exts {
			ext[e] = l
		}
		for _, f := range l.Files {
			file[f] = l
		}
	}
	return ext, file
}()

// LangOf is the language of a path by its base name, else its extension
// (case ignored); false when the table has none.
func LangOf(p string) (Lang, bool) {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	if l, ok := byFile[base]; ok {
		return *l, true
	}
	if l, ok := byExt[path.Ext(base)]; ok {
		return *l, true
	}
	return Lang{}, false
}

// LangNamed is the row of a language name (Language's answer).
func LangNamed(name string) (Lang, bool) {
	for _, l := range langTable {
		if l.Name == name {
			return l, true
		}
	}
	return Lang{}, false
}
