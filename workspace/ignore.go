package workspace

import (
	"slices"
	"strings"
)

// This file is the .gitignore matcher, written from gitignore(5) and git's
// wildmatch: blank lines and "#" comments are skipped; trailing unescaped
// spaces are dropped; "!" negates; a trailing "/" matches directories only;
// a pattern with a "/" at its start or middle is anchored to the directory
// of its .gitignore, otherwise it matches a name at any depth; "**" as a
// whole segment matches any number of directories ("a/**" needs at least
// one more segment, "**/a" and "a/**/b" also match zero); inside a segment
// "*", "?", "[...]" (with "!" or "^" negation, ranges and [:class:]) and
// backslash escapes work as in fnmatch. Later rules win, deeper files win
// over shallower ones, and a path under an excluded directory stays
// excluded whatever later rules say (checked by Workspace.ignored).

// ignoreRule is one parsed line of a .gitignore file.
type ignoreRule struct {
	segments []string // pattern split on "/", never empty
	negate   bool
	dirOnly  bool
}

// parseIgnore parses the text of a .gitignore file.
func parseIgnore(text string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range strings.Split(text, "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// parseIgnoreLine parses one .gitignore line; ok is false for blank lines,
// comments and patterns that can never match.
func parseIgnoreLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !escapedAt(line, len(line)-1) {
		line = line[:len(line)-1]
	}
	var r ignoreRule
	if line != "" && line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimLeft(line, "/")
	if line == "" {
		return ignoreRule{}, false
	}
	var segs []string
	for _, s := range strings.Split(line, "/") {
		if s != "" { // "a//b" is "a/b"
			segs = append(segs, s)
		}
	}
	if !anchored {
		segs = append([]string{"**"}, segs...)
	}
	r.segments = segs
	return r, true
}

// escapedAt reports whether the byte at i is preceded by an odd number of
// backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// match reports whether the rule matches the path, given as segments
// relative to the .gitignore's directory.
func (r ignoreRule) match(path []string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	return matchSegments(r.segments, path)
}

// matchSegments matches pattern segments against path segments with "**"
// semantics. The usual shapes ("name", "a/b", "**/a/b": no "**" but
// maybe a leading one) are matched segment by segment; the rest by
// dynamic programming (no exponential backtracking on hostile patterns
// such as "**/**/**/...").
func matchSegments(pat, path []string) bool {
	tail, lead := pat, false
	if len(pat) > 1 && pat[0] == "**" {
		tail, lead = pat[1:], true
	}
	if !slices.Contains(tail, "**") {
		// A leading "**" matches zero or more segments: the tail matches
		// the path's last segments.
		if len(path) < len(tail) || (!lead && len(path) != len(tail)) {
			return false
		}
		path = path[len(path)-len(tail):]
		for i, p := range tail {
			if !wildmatch(p, path[i]) {
				return false
			}
		}
		return true
	}
	return matchSegmentsDP(pat, path)
}

// matchSegmentsDP is matchSegments for any pattern, by dynamic programming.
func matchSegmentsDP(pat, path []string) bool {
	// ok[j] reports whether pat[:i] matches path[:j] for the current i.
	ok := make([]bool, len(path)+1)
	ok[0] = true
	for i, p := range pat {
		next := make([]bool, len(path)+1)
		if p == "**" {
			trailing := i == len(pat)-1
			// zero or more segments; a trailing "**" needs at least one.
			seen := false
			for j := 0; j <= len(path); j++ {
				if trailing {
					next[j] = seen
				} else {
					next[j] = seen || ok[j]
				}
				seen = seen || ok[j]
			}
		} else {
			for j := 1; j <= len(path); j++ {
				next[j] = ok[j-1] && wildmatch(p, path[j-1])
			}
		}
		ok = next
	}
	return ok[len(path)]
}

// wildmatch matches one path segment against one pattern segment: "*",
// "?", bracket expressions and backslash escapes. A malformed bracket
// expression never matches (as in git).
func wildmatch(pat, name string) bool {
	p, n := 0, 0
	starP, starN := -1, -1
	for n < len(name) {
		if p < len(pat) {
			switch c := pat[p]; c {
			case '*':
				for p < len(pat) && pat[p] == '*' {
					p++
				}
				starP, starN = p, n
				continue
			case '?':
				p++
				n++
				continue
			case '[':
				matched, end, ok := matchBracket(pat, p, name[n])
				if !ok {
					return false
				}
				if matched {
					p = end
					n++
					continue
				}
			case '\\':
				if p+1 < len(pat) && pat[p+1] == name[n] {
					p += 2
					n++
					continue
				}
				if p+1 == len(pat) && name[n] == '\\' { // trailing lone backslash is literal
					p++
					n++
					continue
				}
			default:
				if c == name[n] {
					p++
					n++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starN++
		p, n = starP, starN
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// matchBracket matches c against the bracket expression starting at
// pat[start] == '['. It returns whether c matched, the index after the
// closing ']', and ok=false for an unterminated expression.
func matchBracket(pat string, start int, c byte) (matched bool, end int, ok bool) {
	i := start + 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		if pat[i] == '[' && i+1 < len(pat) && pat[i+1] == ':' {
			if close := strings.Index(pat[i+2:], ":]"); close >= 0 {
				if classMatch(pat[i+2:i+2+close], c) {
					matched = true
				}
				i += 2 + close + 2
				continue
			}
		}
		lo := pat[i]
		if lo == '\\' && i+1 < len(pat) {
			i++
			lo = pat[i]
		}
		i++
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi = pat[i+1]
			i += 2
			if hi == '\\' && i < len(pat) {
				hi = pat[i]
				i++
			}
		}
		if lo <= c && c <= hi {
			matched = true
		}
	}
	return false, len(pat), false
}

// classMatch implements the POSIX classes git's wildmatch knows.
func classMatch(class string, c byte) bool {
	switch class {
	case "alnum":
		return isAlpha(c) || isDigit(c)
	case "alpha":
		return isAlpha(c)
	case "digit":
		return isDigit(c)
	case "lower":
		return 'a' <= c && c <= 'z'
	case "upper":
		return 'A' <= c && c <= 'Z'
	case "space":
		return c == ' ' || ('\t' <= c && c <= '\r')
	case "blank":
		return c == ' ' || c == '\t'
	case "punct":
		return c > ' ' && c < 0x7f && !isAlpha(c) && !isDigit(c)
	case "xdigit":
		return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
	case "print":
		return c >= ' ' && c < 0x7f
	case "graph":
		return c > ' ' && c < 0x7f
	case "cntrl":
		return c < ' ' || c == 0x7f
	}
	return false
}

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ignoreFile is the parsed .gitignore of one directory, with its rules
// sorted for a walk that asks it about every entry below it: a rule that
// is one literal name at any depth ("build", ".config") is found by that
// name, one that is "*" and a literal suffix starting with a dot ("*.o",
// "*.tar.gz") by the entry's suffixes, and only the others are matched
// one by one (a walk of the Linux kernel asks its 400 .gitignore files
// some 300,000 questions).
type ignoreFile struct {
	rules []ignoreRule
	// names and suffixes give the last rule of those kinds that matches a
	// name; rest are the indexes of the other rules, in order.
	names, suffixes map[string]ruleHit
	rest            []int32
}

// ruleHit is the last of the rules of one name or suffix: dirs of all of
// them (a folder), files of those without a trailing "/"; -1 for none.
type ruleHit struct{ dirs, files int32 }

// newIgnoreFile sorts rules for decide.
func newIgnoreFile(rules []ignoreRule) *ignoreFile {
	f := &ignoreFile{rules: rules}
	add := func(m *map[string]ruleHit, key string, i int, r ignoreRule) {
		if *m == nil {
			*m = map[string]ruleHit{}
		}
		h, ok := (*m)[key]
		if !ok {
			h = ruleHit{-1, -1}
		}
		h.dirs = int32(i)
		if !r.dirOnly {
			h.files = int32(i)
		}
		(*m)[key] = h
	}
	for i, r := range rules {
		if len(r.segments) == 2 && r.segments[0] == "**" {
			seg := r.segments[1]
			if !hasWildcard(seg) {
				add(&f.names, seg, i, r)
				continue
			}
			if len(seg) > 2 && seg[0] == '*' && seg[1] == '.' && !hasWildcard(seg[1:]) {
				add(&f.suffixes, seg[1:], i, r)
				continue
			}
		}
		f.rest = append(f.rest, int32(i))
	}
	return f
}

// hasWildcard reports whether a pattern segment is more than its literal
// text for wildmatch.
func hasWildcard(seg string) bool { return strings.ContainsAny(seg, "*?[\\") }

// decide returns (ignored, true) when one of the rules matches the path
// (segments relative to the file's directory), the last matching rule
// deciding; (false, false) when none matches.
func (f *ignoreFile) decide(path []string, isDir bool) (ignored, matched bool) {
	if f == nil || len(path) == 0 {
		return false, false
	}
	best := int32(-1)
	pick := func(h ruleHit) {
		if isDir {
			best = max(best, h.dirs)
		} else {
			best = max(best, h.files)
		}
	}
	name := path[len(path)-1]
	if h, ok := f.names[name]; ok {
		pick(h)
	}
	if f.suffixes != nil {
		for i := 0; i < len(name); i++ {
			if name[i] == '.' {
				if h, ok := f.suffixes[name[i:]]; ok {
					pick(h)
				}
			}
		}
	}
	for k := len(f.rest) - 1; k >= 0 && f.rest[k] > best; k-- {
		if f.rules[f.rest[k]].match(path, isDir) {
			best = f.rest[k]
			break
		}
	}
	if best < 0 {
		return false, false
	}
	return !f.rules[best].negate, true
}
