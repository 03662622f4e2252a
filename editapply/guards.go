package editapply

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Damage guards: edits that would match and apply but leave a file worse
// than the answer meant (docs/contract.md §9).

func countRecipeSpaces(s string) int { n, _ := recipeSpaces(s); return n }
func countTabIndents(s string) int   { n, _ := tabIndents(s); return n }

// recipeSpaces counts lines in a rule's recipe that start with spaces.
func recipeSpaces(s string) (int, int) {
	n, first := 0, 0
	inRule := false
	for k, l := range strings.Split(normalizeEOL(s), "\n") {
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#"):
		case strings.HasPrefix(l, "\t"):
		case l[0] == ' ':
			if inRule {
				n++
				if first == 0 {
					first = k + 1
				}
			}
		default:
			t := strings.TrimSpace(l)
			inRule = strings.Contains(t, ":") && !strings.Contains(t, ":=") && !strings.Contains(t, "=") && !strings.HasSuffix(t, "\\")
		}
	}
	return n, first
}

func tabIndents(s string) (int, int) {
	n, first := 0, 0
	block := false // inside a literal block scalar ("|" or ">"), tabs are content
	blockIndent := 0
	for k, l := range strings.Split(normalizeEOL(s), "\n") {
		ind := len(leadingWS(l))
		if block && (isBlank(l) || ind > blockIndent) {
			continue
		}
		block = false
		if strings.HasPrefix(l, "\t") || strings.Contains(leadingWS(l), "\t") {
			n++
			if first == 0 {
				first = k + 1
			}
		}
		t := strings.TrimSpace(l)
		if strings.HasSuffix(t, "|") || strings.HasSuffix(t, ">") || strings.HasSuffix(t, "|-") || strings.HasSuffix(t, ">-") {
			block, blockIndent = true, ind
		}
	}
	return n, first
}

// isFragment: whole-file content that is a small part of the file it
// replaces (one function of a file of twenty): at most a third of its
// non-blank lines, most of them lines the file already has.
func isFragment(old, content string) bool {
	ol := nonBlankSet(old)
	cl := nonBlankLines(content)
	on := len(nonBlankLines(old))
	if on < 12 || len(cl) == 0 || 3*len(cl) > on {
		return false
	}
	kept := 0
	for _, l := range cl {
		if ol[l] {
			kept++
		}
	}
	return 10*kept >= 6*len(cl)
}

func nonBlankLines(s string) []string {
	var out []string
	for _, l := range modelLines(s) {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func nonBlankSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range nonBlankLines(s) {
		m[l] = true
	}
	return m
}

// caseClash returns an existing path that differs from p only in the case
// of a name ("readme.md" beside "README.md"), or "". It needs a Files that
// can say where p is on disk (workspace.Workspace's Resolve) or list its
// paths (the tests' map).
func caseClash(files Files, p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	if l, ok := files.(interface{ Paths() []string }); ok {
		for _, q := range l.Paths() {
			if q != p && strings.EqualFold(q, p) {
				return q
			}
			// A folder spelled in another case.
			qs := strings.Split(q, "/")
			for k := 0; k < len(parts)-1 && k < len(qs)-1; k++ {
				if qs[k] != parts[k] && strings.EqualFold(qs[k], parts[k]) && strings.Join(qs[:k], "/") == strings.Join(parts[:k], "/") {
					return strings.Join(qs[:k+1], "/") + "/"
				}
			}
		}
		return ""
	}
	r, ok := files.(interface {
		Resolve(p string) (abs, rel string, err error)
	})
	if !ok {
		return ""
	}
	abs, rel, err := r.Resolve(p)
	if err != nil || rel == "" {
		return ""
	}
	rel = filepath.ToSlash(rel)
	root := strings.TrimSuffix(filepath.ToSlash(abs), rel)
	parts = strings.Split(rel, "/")
	dir := root
	for k, name := range parts {
		entries, err := os.ReadDir(filepath.FromSlash(dir))
		if err != nil {
			return ""
		}
		exact := false
		other := ""
		for _, e := range entries {
			if e.Name() == name {
				exact = true
				break
			}
			if strings.EqualFold(e.Name(), name) {
				other = e.Name()
			}
		}
		if !exact {
			if other != "" {
				out := strings.Join(append(append([]string(nil), parts[:k]...), other), "/")
				if k < len(parts)-1 {
					out += "/"
				}
				return out
			}
			return ""
		}
		dir = strings.TrimSuffix(dir, "/") + "/" + name
	}
	return ""
}

// yamlCheck decodes every document of s.
func yamlCheck(s string) error {
	dec := yaml.NewDecoder(strings.NewReader(strings.TrimPrefix(s, bom)))
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func yamlValid(s string) bool { return yamlCheck(s) == nil }

// cutOff: whole-file content that is the file's beginning and stops (an
// answer cut off at its token limit): every line is the file's line, the
// last maybe only begun, and the file has more.
func cutOff(old, content string) bool {
	ol, cl := modelLines(old), modelLines(content)
	for len(cl) > 0 && isBlank(cl[len(cl)-1]) {
		cl = cl[:len(cl)-1]
	}
	if len(cl) == 0 || len(cl) >= len(ol) {
		return false
	}
	for k := 0; k < len(cl)-1; k++ {
		if trimRightWS(cl[k]) != trimRightWS(ol[k]) {
			return false
		}
	}
	last := trimRightWS(cl[len(cl)-1])
	if !strings.HasPrefix(ol[len(cl)-1], last) {
		return false
	}
	// The rest of the file is more than blank lines.
	for _, l := range ol[len(cl):] {
		if !isBlank(l) {
			return true
		}
	}
	return false
}
