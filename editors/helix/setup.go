// Package helix sets aide-lsp up in Helix (docs/contract.md §2, `setup
// helix`): the languages.toml and config.toml snippets of this folder (the
// copies docs/editors.md links to), and their merge into a user's own files,
// which adds what is missing and never changes a key the user has set.
//
// The user's file is read by a TOML decoder; what to add comes from the
// snippet. Whatever the merge does to the text, one check guards it: the
// merged file must decode, and every value of the user's file must decode
// unchanged from it (only new keys and new [[language]] entries may appear).
// A merge that fails that check is refused, with the lines to add by hand.
package helix

import (
	_ "embed"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed languages.toml
var languagesSnippet string

//go:embed config.toml
var configSnippet string

// A File is one of Helix's files aide-lsp's set-up touches.
type File struct {
	Name    string // languages.toml or config.toml
	Snippet string // what aide-lsp needs in it, with comments
}

// Files are the two files, languages.toml first.
func Files() []File {
	return []File{{"languages.toml", languagesSnippet}, {"config.toml", configSnippet}}
}

// section is one table of the snippet: its header ("language-server.aide",
// or "language" for an array element), the comment lines right above it and
// its body lines.
type section struct {
	name  string
	array bool
	text  []string // comments, header, body
	keys  []keyLine
}

type keyLine struct {
	key  string
	line string
}

var (
	headerRe = regexp.MustCompile(`^\s*\[(\[?)\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$`)
	keyRe    = regexp.MustCompile(`^\s*([A-Za-z0-9_\-]+)\s*=`)
)

// sections splits the snippet (this package's own text) into its tables.
// Comment lines go with the header or key line below them; comments
// followed by a blank line or by nothing (the file's preamble, a body's
// trailing notes) are left out.
func sections(snippet string) []section {
	var out []section
	var pending []string
	for _, line := range strings.Split(snippet, "\n") {
		trimmed := strings.TrimSpace(line)
		switch m := headerRe.FindStringSubmatch(line); {
		case m != nil:
			out = append(out, section{name: m[2], array: m[1] == "[", text: append(pending, line)})
			pending = nil
		case trimmed == "":
			pending = nil
		case strings.HasPrefix(trimmed, "#"):
			pending = append(pending, line)
		case len(out) > 0:
			cur := &out[len(out)-1]
			cur.text = append(append(cur.text, pending...), line)
			pending = nil
			if k := keyRe.FindStringSubmatch(line); k != nil {
				cur.keys = append(cur.keys, keyLine{k[1], line})
			}
		}
	}
	return out
}

// lookup walks a dotted table path in a decoded file.
func lookup(doc map[string]any, path string) (map[string]any, bool) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		next, ok := cur[part].(map[string]any)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// A Result is what Merge made of a user's file.
type Result struct {
	Text  string   // the merged file
	Added []string // what was added, one line each
	Notes []string // what was left as it is, and why
}

// Merge adds to existing (a user's file, possibly empty) the parts of the
// snippet it lacks. It never changes a key existing sets: a key already set
// (to any value) stays, a [[language]] the user already lists stays as it is
// (a note says to add "aide" to its language-servers by hand).
func Merge(existing, snippet string) (Result, error) {
	old := map[string]any{}
	if _, err := toml.Decode(existing, &old); err != nil {
		return Result{}, fmt.Errorf("cannot read it as TOML (%v): fix it, or add the lines by hand", err)
	}
	res := Result{Text: existing}
	var appended []string
	for _, s := range sections(snippet) {
		if s.array {
			appended = mergeArray(&res, old, s, appended)
			continue
		}
		table, exists := lookup(old, s.name)
		if !exists {
			res.Added = append(res.Added, "["+s.name+"]")
			appended = append(appended, "", strings.Join(s.text, "\n"))
			continue
		}
		var missing []string
		for _, k := range s.keys {
			if _, set := table[k.key]; set {
				res.Notes = append(res.Notes, fmt.Sprintf("[%s] %s is already set: kept as it is", s.name, k.key))
				continue
			}
			missing = append(missing, k.line)
			res.Added = append(res.Added, fmt.Sprintf("[%s] %s", s.name, k.key))
		}
		if len(missing) == 0 {
			continue
		}
		text, ok := insertAfterHeader(res.Text, s.name, missing)
		if !ok {
			return Result{}, fmt.Errorf("[%s] is defined in a way this set-up does not edit (no [%s] line of its own): add by hand under it:\n%s",
				s.name, s.name, strings.Join(missing, "\n"))
		}
		res.Text = text
	}
	if len(appended) > 0 {
		t := res.Text
		if t != "" && !strings.HasSuffix(t, "\n") {
			t += "\n"
		}
		if t != "" {
			t += "\n"
		}
		t += "# aide-lsp (added by `aide-lsp setup helix --write`; docs/editors.md#helix)" + strings.Join(appended, "\n") + "\n"
		res.Text = t
	}
	if err := keeps(old, res.Text); err != nil {
		return Result{}, fmt.Errorf("the merge would change what the file says (%v): add the lines by hand", err)
	}
	return res, nil
}

// mergeArray handles one [[language]] element of the snippet.
func mergeArray(res *Result, old map[string]any, s section, appended []string) []string {
	name := ""
	for _, k := range s.keys {
		kv := map[string]any{}
		if _, err := toml.Decode(k.line, &kv); err == nil && k.key == "name" {
			name, _ = kv["name"].(string)
		}
	}
	list, _ := old[s.name].([]map[string]any)
	for _, el := range list {
		if el["name"] != name {
			continue
		}
		servers, _ := el["language-servers"].([]any)
		for _, srv := range servers {
			if srv == "aide" {
				return appended
			}
			if m, ok := srv.(map[string]any); ok && m["name"] == "aide" {
				return appended
			}
		}
		res.Notes = append(res.Notes, fmt.Sprintf("[[%s]] %q is yours: kept as it is; add \"aide\" to its language-servers by hand", s.name, name))
		return appended
	}
	res.Added = append(res.Added, fmt.Sprintf("[[%s]] %s", s.name, name))
	return append(appended, "", strings.Join(s.text, "\n"))
}

// insertAfterHeader puts lines right under the "[name]" header line of text.
func insertAfterHeader(text, name string, lines []string) (string, bool) {
	all := strings.SplitAfter(text, "\n")
	for i, l := range all {
		m := headerRe.FindStringSubmatch(strings.TrimRight(l, "\r\n"))
		if m == nil || m[1] == "[" || m[2] != name {
			continue
		}
		nl := "\n"
		if strings.HasSuffix(l, "\r\n") {
			nl = "\r\n"
		}
		if !strings.HasSuffix(l, "\n") {
			all[i] = l + nl
		}
		ins := strings.Join(lines, nl) + nl
		return strings.Join(all[:i+1], "") + ins + strings.Join(all[i+1:], ""), true
	}
	return "", false
}

// keeps is the merge's one guard: merged decodes, and every value of old
// decodes the same from it.
func keeps(old map[string]any, merged string) error {
	now := map[string]any{}
	if _, err := toml.Decode(merged, &now); err != nil {
		return err
	}
	return within("", old, now)
}

// within reports the first value of old that now lacks or holds differently.
// Tables may gain keys and arrays of tables may gain elements at the end;
// every other value must be equal.
func within(path string, old, now any) error {
	switch o := old.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is no longer a table", path)
		}
		for k, v := range o {
			nv, ok := n[k]
			if !ok {
				return fmt.Errorf("%s.%s is gone", path, k)
			}
			if err := within(path+"."+k, v, nv); err != nil {
				return err
			}
		}
		return nil
	case []map[string]any:
		n, ok := now.([]map[string]any)
		if !ok || len(n) < len(o) {
			return fmt.Errorf("%s lost entries", path)
		}
		for i := range o {
			if !reflect.DeepEqual(o[i], n[i]) {
				return fmt.Errorf("%s[%d] changed", path, i)
			}
		}
		return nil
	default:
		if !reflect.DeepEqual(old, now) {
			return fmt.Errorf("%s changed", path)
		}
		return nil
	}
}

// Diff is a unified diff of a merge (zero context lines: a merge only
// inserts lines), for the user to read before the file is written.
func Diff(path, before, after string) string {
	a, b := splitLines(before), splitLines(after)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", path, path)
	i, j := 0, 0
	for j < len(b) {
		if i < len(a) && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		start := j
		for j < len(b) && (i >= len(a) || a[i] != b[j]) {
			j++
		}
		fmt.Fprintf(&out, "@@ -%d,0 +%d,%d @@\n", i, start+1, j-start)
		for _, l := range b[start:j] {
			out.WriteString("+" + l + "\n")
		}
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
