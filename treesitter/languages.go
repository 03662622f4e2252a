package treesitter

import (
	"bytes"
	"fmt"
	"path"
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

// Languages lists the supported language names, as Language returns them.
var Languages = []string{"bash", "c", "cpp", "go", "java", "javascript", "python", "ruby", "rust", "tsx", "typescript"}

var extensions = map[string]string{
	".go": "go",
	".py": "python", ".pyi": "python", ".pyw": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx":  "tsx",
	".rs":   "rust",
	".java": "java",
	".c":    "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp",
	".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
	".sh": "bash", ".bash": "bash",
}

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
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if base == "Rakefile" || base == "Gemfile" {
		return "ruby"
	}
	if ext := strings.ToLower(path.Ext(base)); ext != "" {
		if lang, ok := extensions[ext]; ok {
			return lang
		}
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

// grammar is a language with its compiled tags query.
type grammar struct {
	name  string
	lang  *sitter.Language
	query *sitter.Query
	// captureKind[i] is the definition kind of capture i ("" for @name,
	// "ref" for a reference).
	captureKind []string
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
			g := &grammar{name: name, lang: lang, query: q}
			for i := uint32(0); i < q.CaptureCount(); i++ {
				capture := q.CaptureNameForId(i)
				kind := ""
				switch {
				case capture == "ref":
					kind = "ref"
				case strings.HasPrefix(capture, "def."):
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

// Tags queries. Each definition pattern captures the whole definition as
// @def.KIND and its name as @name; references are @ref. Written for these
// grammars' node types; references are the identifiers that link files
// (calls, selectors, type names), not every local variable.
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
(method_elem name: (field_identifier) @name) @def.method
(call_expression function: (identifier) @ref)
(selector_expression field: (field_identifier) @ref)
(type_identifier) @ref
`,
	"python": `
(class_definition name: (identifier) @name) @def.class
(class_definition body: (block (function_definition name: (identifier) @name) @def.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @def.method)))
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.constant))
(call function: (identifier) @ref)
(call function: (attribute attribute: (identifier) @ref))
(class_definition superclasses: (argument_list (identifier) @ref))
(type (identifier) @ref)
`,
	"javascript": `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: (property_identifier) @name) @def.method
(class_heritage (identifier) @ref)
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
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (scoped_identifier name: (identifier) @ref))
(macro_invocation macro: (identifier) @ref)
(type_identifier) @ref
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
(method_invocation name: (identifier) @ref)
(object_creation_expression type: (type_identifier) @ref)
(type_identifier) @ref
`,
	"c":   cQuery,
	"cpp": cQuery + cppQuery,
	"ruby": `
(class name: [(constant) (scope_resolution)] @name) @def.class
(module name: [(constant) (scope_resolution)] @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(assignment left: (constant) @name) @def.constant
(call method: (identifier) @ref)
(constant) @ref
`,
	"bash": `
(function_definition name: (word) @name) @def.function
(command name: (command_name (word) @ref))
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
(type_identifier) @ref
` + ecmaQuery

// ecmaQuery is what JavaScript, TypeScript and TSX share: functions and
// constants bound at the top level, calls and constructions.
const ecmaQuery = `(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
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
(call_expression function: (identifier) @ref)
(type_identifier) @ref
`

const cppQuery = `
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @def.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(namespace_definition name: (namespace_identifier) @name) @def.module
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (qualified_identifier name: (identifier) @ref))
`
