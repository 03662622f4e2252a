package treesitter

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Languages lists the supported language names, as Language returns them:
// the parsed rows of the language table, sorted.
var Languages = func() []string {
	var out []string
	for _, l := range langTable {
		if l.Parsed {
			out = append(out, l.Name)
		}
	}
	sort.Strings(out)
	return out
}()

// interpreters maps the program named by a shebang line to a language.
var interpreters = map[string]string{
	"python": "python", "python2": "python", "python3": "python", "pypy": "python", "pypy3": "python",
	"node": "javascript", "nodejs": "javascript",
	"deno": "typescript", "ts-node": "typescript", "tsx": "typescript", "bun": "typescript",
	"ruby": "ruby",
	"bash": "bash", "sh": "bash", "dash": "bash", "ksh": "bash",
}

// Language names the language of a path (by extension, else by shebang in
// head), or "" when unsupported.
func Language(p string, head []byte) string {
	if l, ok := LangOf(p); ok && l.Parsed {
		return l.Name
	}
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if ext := strings.ToLower(path.Ext(base)); ext != "" {
		// A known-unsupported extension (".md", ".s") is never a script.
		if len(ext) > 1 {
			return ""
		}
	}
	return shebangLanguage(head)
}

// shebangLanguage reads "#!/usr/bin/env -S python3 -u" and "#!/bin/bash".
func shebangLanguage(head []byte) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			prog = path.Base(f)
			break
		}
	}
	if lang, ok := interpreters[prog]; ok {
		return lang
	}
	// "python3.12", "ruby3.2"
	if i := strings.IndexAny(prog, "0123456789"); i > 0 {
		return interpreters[strings.TrimRight(prog[:i], ".-")]
	}
	return ""
}

// grammar is a language with its compiled definitions query and what the
// reference scan needs (lexrefs.go).
type grammar struct {
	name  string
	lang  *sitter.Language
	query *sitter.Query
	// captureKind[i] is the definition kind of capture i ("" for @name).
	captureKind []string
	// maxDepth is the deepest node (the root is 0) where a definition
	// pattern may start; see depth.go and defDepths.
	maxDepth uint32
	syntax   lexSyntax
	// prototypes: C and C++, where a function may be declared and defined
	// in one file; tagTree keeps one of the two (onePerName).
	prototypes bool
}

// defDepths is, per language, the depth (the root is 0) of the deepest
// definition the map lists; the query cursor does not start matches below
// it, so it skips function bodies. Each leaves room for the nesting real
// code has: a method in a class in a namespace or module (C++, Rust, Ruby,
// TypeScript namespaces), a decorated method (Python), an exported class's
// method (JavaScript). A pattern rooted above the limit still matches
// below it (Go's interface methods are matched from their type_spec, so Go
// needs only depth 2: a type_spec in a type_declaration). Definitions in
// function bodies (local types, closures) are left out of the map on
// purpose: they are not part of a file's interface.
var defDepths = map[string]uint32{
	"go": 2, "python": 4, "javascript": 5, "typescript": 6, "tsx": 6,
	"rust": 5, "java": 5, "c": 4, "cpp": 7, "ruby": 6, "bash": 3,
}

var (
	grammarsOnce sync.Once
	grammars     map[string]*grammar
	grammarsErr  error
)

// grammarFor returns the grammar of a language name; the queries are
// compiled once (a TSQuery is immutable and shared by all parsers).
func grammarFor(name string) (*grammar, error) {
	grammarsOnce.Do(func() {
		langs := map[string]*sitter.Language{
			"go": golang.GetLanguage(), "python": python.GetLanguage(),
			"javascript": javascript.GetLanguage(), "typescript": typescript.GetLanguage(),
			"tsx": tsx.GetLanguage(), "rust": rust.GetLanguage(), "java": java.GetLanguage(),
			"c": c.GetLanguage(), "cpp": cpp.GetLanguage(), "ruby": ruby.GetLanguage(),
			"bash": bash.GetLanguage(),
		}
		grammars = map[string]*grammar{}
		for name, lang := range langs {
			q, err := sitter.NewQuery([]byte(tagQueries[name]), lang)
			if err != nil {
				grammarsErr = fmt.Errorf("treesitter: tags query for %s: %w", name, err)
				return
			}
			g := &grammar{name: name, lang: lang, query: q, maxDepth: defDepths[name], syntax: lexSyntaxOf(name),
				prototypes: name == "c" || name == "cpp"}
			for i := uint32(0); i < q.CaptureCount(); i++ {
				capture := q.CaptureNameForId(i)
				kind := ""
				if strings.HasPrefix(capture, "def.") {
					kind = strings.TrimPrefix(capture, "def.")
				}
				g.captureKind = append(g.captureKind, kind)
			}
			grammars[name] = g
		}
	})
	if grammarsErr != nil {
		return nil, grammarsErr
	}
	g, ok := grammars[name]
	if !ok {
		return nil, fmt.Errorf("treesitter: unsupported language %q", name)
	}
	return g, nil
}

// Definitions queries. Each pattern captures the whole definition as
// @def.KIND and its name as @name. Written for these grammars' node types.
// References are not queried: a lexical scan finds them (lexrefs.go).
var tagQueries = map[string]string{
	"go": `
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: (struct_type)) @def.type
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (map_type) (array_type) (function_type) (channel_type) (generic_type)]) @def.type
(type_alias name: (type_identifier) @name) @def.type
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
(type_spec type: (interface_type (method_elem name: (field_identifier) @name) @def.method))
`,
	"python": `
(class_definition name: (identifier) @name) @def.class
(class_definition body: (block (function_definition name: (identifier) @name) @def.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @def.method)))
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.constant))
`,
	"javascript": `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: (property_identifier) @name) @def.method
` + ecmaQuery,
	"typescript": tsQuery,
	"tsx":        tsQuery,
	"rust": `
(impl_item body: (declaration_list (function_item name: (identifier) @name) @def.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @def.method))
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.method
(struct_item name: (type_identifier) @name) @def.type
(enum_item name: (type_identifier) @name) @def.type
(union_item name: (type_identifier) @name) @def.type
(type_item name: (type_identifier) @name) @def.type
(trait_item name: (type_identifier) @name) @def.interface
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(macro_definition name: (identifier) @name) @def.macro
(mod_item name: (identifier) @name) @def.module
`,
	"java": `
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.type
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @def.constant
`,
	"c":   cQuery,
	"cpp": cQuery + cppQuery,
	"ruby": `
(class name: [(constant) (scope_resolution)] @name) @def.class
(module name: [(constant) (scope_resolution)] @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(assignment left: (constant) @name) @def.constant
`,
	"bash": `
(function_definition name: (word) @name) @def.function
`,
}

const tsQuery = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(function_signature name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.type
(method_definition name: (property_identifier) @name) @def.method
(method_signature name: (property_identifier) @name) @def.method
(abstract_method_signature name: (property_identifier) @name) @def.method
(module name: [(identifier) (string)] @name) @def.module
` + ecmaQuery

// ecmaQuery is what JavaScript, TypeScript and TSX share: functions and
// constants bound at the top level.
const ecmaQuery = `(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
`

const cQuery = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.type
(union_specifier name: (type_identifier) @name body: (_)) @def.type
(enum_specifier name: (type_identifier) @name body: (_)) @def.type
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.constant
(preproc_function_def name: (identifier) @name) @def.macro
(enumerator name: (identifier) @name) @def.constant
`

const cppQuery = `
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @def.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(namespace_definition name: (namespace_identifier) @name) @def.module
`
