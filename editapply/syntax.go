package editapply

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/aide-lsp/aide-lsp/treesitter"
)

// Syntax (docs/edits.md): a file its parser accepted stays accepted, and a
// file that had errors gets no new one. One row per language: which files
// it reads, and the check of after against before (nil when after has no
// error before lacked).
var syntaxRows = []struct {
	lang    string
	applies func(p, after string) bool
	check   func(p, before, after string) error
}{
	// Every tree-sitter language the project knows (treesitter.Languages:
	// Go, Python with CPython's indentation rules, JavaScript, TypeScript,
	// shell, C, C++, Java, Ruby, Rust).
	{"tree-sitter", func(p, after string) bool { return treesitter.Language(p, []byte(headLine(after))) != "" }, nil},
	{"JSON", isJSONPath, checkJSON},
	{"YAML", hasExt(".yaml", ".yml"), checkYAML},
	{"TOML", hasExt(".toml"), checkTOML},
	{"Makefile", isMakefile, checkMakefile},
	{"Markdown", hasExt(".md", ".markdown", ".mdx"), checkFences},
}

func hasExt(exts ...string) func(p, after string) bool {
	return func(p, _ string) bool {
		e := strings.ToLower(path.Ext(p))
		for _, x := range exts {
			if e == x {
				return true
			}
		}
		return false
	}
}

// treeSitterCheck is the tree-sitter row's check: told the regions, it
// parses the file after incrementally from the tree of the file before
// (docs/performance.md), and in full only when that finds an error.
func treeSitterCheck(p, before, after string, spans []region) error {
	rs := make([]treesitter.Region, len(spans))
	for k, s := range spans {
		rs[k] = treesitter.Region{Start: s.start, End: s.end, Len: len(s.text)}
	}
	return treesitter.SyntaxCheckRegions(p, before, after, rs)
}

// checkSyntax runs the file's rows over the whole change; on an error it
// blames the regions that make it alone, or all of them together.
func checkSyntax(c *fileChange) *refusal {
	for _, row := range syntaxRows {
		if !row.applies(c.path, c.after) {
			continue
		}
		check := func(after string, spans []region) error {
			if row.check == nil {
				return treeSitterCheck(c.path, c.before, after, spans)
			}
			return row.check(c.path, c.before, after)
		}
		err := check(c.after, c.spans)
		if err == nil {
			continue
		}
		var blamed []int
		if len(c.spans) > 1 {
			for k, s := range c.spans {
				if check(spliceSpans(c.before, []region{s}), []region{s}) != nil {
					blamed = append(blamed, k)
				}
			}
		} else {
			blamed = []int{0}
		}
		return &refusal{err: err, spans: blamed, reason: err.Error()}
	}
	return nil
}

func isJSONPath(p, _ string) bool {
	base := path.Base(p)
	switch strings.ToLower(path.Ext(base)) {
	case ".json", ".jsonc", ".json5":
		return true
	}
	return base == ".babelrc" || base == ".eslintrc"
}

// checkJSON: valid JSON stays valid; a file with comments or trailing
// commas (JSONC: tsconfig.json, VS Code's settings) stays valid JSONC.
func checkJSON(p, before, after string) error {
	b, a := strings.TrimPrefix(before, bom), strings.TrimPrefix(after, bom)
	if strings.TrimSpace(b) == "" {
		return nil
	}
	if json.Valid([]byte(b)) {
		if !json.Valid([]byte(a)) {
			var v any
			err := json.Unmarshal([]byte(a), &v)
			if json.Valid([]byte(stripJSONC(a))) {
				return fmt.Errorf("%s would no longer be valid JSON (%v): JSON has no comments nor trailing commas", p, err)
			}
			return fmt.Errorf("%s would no longer be valid JSON (%v)", p, err)
		}
		return nil
	}
	if json.Valid([]byte(stripJSONC(b))) && !json.Valid([]byte(stripJSONC(a))) {
		var v any
		err := json.Unmarshal([]byte(stripJSONC(a)), &v)
		return fmt.Errorf("%s would no longer be valid JSON with comments (%v)", p, err)
	}
	return nil
}

// stripJSONC blanks JSONC's comments and trailing commas (outside strings)
// so that encoding/json can judge the rest.
func stripJSONC(s string) string {
	b := []byte(s)
	inStr := false
	for i := 0; i < len(b); i++ {
		switch {
		case inStr:
			if b[i] == '\\' {
				i++
			} else if b[i] == '"' {
				inStr = false
			}
		case b[i] == '"':
			inStr = true
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			j := i
			for ; j < len(b) && !(b[j] == '*' && j+1 < len(b) && b[j+1] == '/' && j > i+1); j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			if j+1 < len(b) {
				b[j], b[j+1] = ' ', ' '
			}
			i = j + 1
		case b[i] == ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

func checkYAML(p, before, after string) error {
	if n, line := tabIndents(after); n > countTabIndents(before) {
		return fmt.Errorf("line %d of %s would be indented with a tab, which YAML does not allow", line, p)
	}
	if yamlValid(before) {
		if err := yamlCheck(after); err != nil {
			return fmt.Errorf("%s would no longer be valid YAML (%v)", p, err)
		}
	}
	return nil
}

func checkTOML(p, before, after string) error {
	if tomlProblem(before) == "" {
		if msg := tomlProblem(after); msg != "" {
			return fmt.Errorf("%s would no longer be valid TOML (%s)", p, msg)
		}
	}
	return nil
}

func isMakefile(p, _ string) bool {
	base := path.Base(p)
	return base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.ToLower(path.Ext(base)) == ".mk"
}

func checkMakefile(p, before, after string) error {
	if n, line := recipeSpaces(after); n > countRecipeSpaces(before) {
		return fmt.Errorf("line %d of %s would start a recipe line with spaces instead of a tab (make: missing separator)", line, p)
	}
	return nil
}

// mdFence is a Markdown code fence: up to three spaces, then three or
// more backticks or tildes.
var mdFence = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// unclosedFence returns the line (1-based) of a fence never closed, or 0.
func unclosedFence(s string) int {
	open, char, n := 0, byte(0), 0
	for i, l := range strings.Split(normalizeEOL(s), "\n") {
		m := mdFence.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch {
		case open == 0:
			if m[1][0] == '`' && strings.Contains(m[2], "`") {
				continue // an inline code span, not a fence
			}
			open, char, n = i+1, m[1][0], len(m[1])
		case m[1][0] == char && len(m[1]) >= n && strings.TrimSpace(m[2]) == "":
			open = 0
		}
	}
	return open
}

// checkFences: every fence the file closed stays closed.
func checkFences(p, before, after string) error {
	if unclosedFence(before) == 0 {
		if line := unclosedFence(after); line > 0 {
			return fmt.Errorf("line %d of %s would open a code fence that is never closed", line, p)
		}
	}
	return nil
}
