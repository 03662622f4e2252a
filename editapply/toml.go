package editapply

import (
	"fmt"
	"regexp"
	"strings"
)

// tomlProblem is a small TOML well-formedness check, enough to tell that an
// edit broke a file that was valid: table headers, key = value lines,
// balanced strings, arrays and inline tables (values may span lines inside
// brackets or triple quotes), and a key defined twice in one table. It
// returns "" when it finds nothing wrong. It is only used to compare a file
// before and after an edit, so a construct it does not know in both is no
// refusal.
func tomlProblem(src string) string {
	lines := strings.Split(normalizeEOL(strings.TrimPrefix(src, bom)), "\n")
	keys := map[string]bool{}
	tables := map[string]bool{}
	table := ""
	for n := 0; n < len(lines); n++ {
		l := strings.TrimSpace(lines[n])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") {
			m := tomlHeader.FindStringSubmatch(stripTOMLComment(l))
			if m == nil {
				return fmt.Sprintf("line %d: %q is not a table header", n+1, l)
			}
			name := strings.TrimSpace(m[2])
			if m[1] == "[" {
				if tables[name] {
					return fmt.Sprintf("line %d: table [%s] is defined twice", n+1, name)
				}
				tables[name] = true
			}
			table = name + "\x00" + fmt.Sprint(n)
			if m[1] == "[" {
				table = name
			}
			continue
		}
		eq := strings.IndexByte(l, '=')
		if eq <= 0 {
			return fmt.Sprintf("line %d: %q is neither a key = value line nor a table header", n+1, l)
		}
		key := strings.TrimSpace(l[:eq])
		if !tomlKey.MatchString(key) {
			return fmt.Sprintf("line %d: %q is not a key", n+1, key)
		}
		if keys[table+"\x01"+key] {
			return fmt.Sprintf("line %d: key %q is defined twice", n+1, key)
		}
		keys[table+"\x01"+key] = true
		value := strings.TrimSpace(l[eq+1:])
		if value == "" {
			return fmt.Sprintf("line %d: key %q has no value", n+1, key)
		}
		// Read the value, across lines while brackets or a triple-quoted
		// string stay open.
		depth, end, msg := scanTOMLValue(value)
		for (depth > 0 || end != "") && msg == "" && n+1 < len(lines) {
			n++
			var d int
			d, end, msg = scanTOMLValueFrom(lines[n], depth, end)
			depth = d
		}
		if msg != "" {
			return fmt.Sprintf("line %d: %s", n+1, msg)
		}
		if depth > 0 || end != "" {
			return fmt.Sprintf("line %d: the value of %q is not closed", n+1, key)
		}
	}
	return ""
}

var (
	tomlHeader = regexp.MustCompile(`^(\[\[?)\s*([A-Za-z0-9_.\-" ']+?)\s*\]\]?$`)
	tomlKey    = regexp.MustCompile(`^([A-Za-z0-9_\-]+|"[^"]*"|'[^']*')(\s*\.\s*([A-Za-z0-9_\-]+|"[^"]*"|'[^']*'))*$`)
)

func stripTOMLComment(l string) string {
	if i := strings.Index(l, " #"); i >= 0 && !strings.ContainsAny(l[:i], `"'`) {
		return strings.TrimSpace(l[:i])
	}
	return l
}

func scanTOMLValue(v string) (int, string, string) { return scanTOMLValueFrom(v, 0, "") }

// scanTOMLValueFrom scans one line of a value: bracket depth, the closing
// quotes of an open multi-line string, or what is wrong.
func scanTOMLValueFrom(v string, depth int, open string) (int, string, string) {
	for i := 0; i < len(v); i++ {
		if open != "" {
			if strings.HasPrefix(v[i:], open) {
				i += len(open) - 1
				open = ""
			} else if v[i] == '\\' && open == `"""` {
				i++
			}
			continue
		}
		c := v[i]
		switch {
		case strings.HasPrefix(v[i:], `"""`) || strings.HasPrefix(v[i:], `'''`):
			open = v[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			k := i + 1
			for ; k < len(v) && v[k] != c; k++ {
				if v[k] == '\\' && c == '"' {
					k++
				}
			}
			if k >= len(v) {
				return depth, "", "a string is not closed on its line"
			}
			i = k
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth < 0 {
				return depth, "", fmt.Sprintf("an unmatched %q", string(c))
			}
		case c == '#':
			return depth, "", ""
		}
	}
	return depth, open, ""
}
