package editapply

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

var (
	searchMarker  = regexp.MustCompile(`^\s*<{5,9}\s*(SEARCH|search|Search)\b.*$`)
	dividerMarker = regexp.MustCompile(`^\s*={5,9}\s*$`)
	replaceMarker = regexp.MustCompile(`^\s*>{5,9}\s*(REPLACE|replace|Replace)\b.*$`)
	fenceLine     = regexp.MustCompile("^\\s*(`{3,}|~{3,})(.*)$")
	pathLike      = regexp.MustCompile(`^[\p{L}\p{N}_@~+\-./\\][\p{L}\p{N}_@~+\-./\\ ]*$`)
)

// ParseText finds the edits written in a text answer: SEARCH/REPLACE blocks,
// unified diffs in ```diff fences and, when nothing else is there,
// whole-file blocks (a line naming the file directly above a fence).
//
// The edits that parsed are returned even when some blocks did not; the
// error then says which blocks were skipped and why, for the retry prompt.
func ParseText(text string) ([]Edit, error) {
	text = normalizeEOL(text)
	lines := strings.Split(text, "\n")
	var edits []Edit
	var errs []error
	sr, srErrs := parseSearchReplace(lines)
	edits = append(edits, sr...)
	errs = append(errs, srErrs...)
	df, dfErrs := parseDiffFences(lines)
	edits = append(edits, df...)
	errs = append(errs, dfErrs...)
	if len(sr) == 0 && len(df) == 0 && len(srErrs) == 0 && len(dfErrs) == 0 {
		edits = append(edits, parseWholeFiles(lines)...)
	}
	return edits, errors.Join(errs...)
}

// cleanPathLine extracts a file path from a line that names one: "path",
// "`path`", "### path", "**path**", "File: path", "path:", "```go path".
func cleanPathLine(l string) string {
	s := strings.TrimSpace(l)
	if m := fenceLine.FindStringSubmatch(s); m != nil {
		info := strings.TrimSpace(m[2])
		// "```go:path/file.go", "```go path/file.go" or "```path/file.go"
		if i := strings.IndexAny(info, ": "); i >= 0 {
			info = strings.TrimSpace(info[i+1:])
		}
		if looksLikePath(info) && (strings.ContainsAny(info, "./")) {
			return strings.Trim(info, "`")
		}
		return ""
	}
	s = strings.TrimLeft(s, "#>-* ")
	s = strings.TrimSpace(s)
	for _, p := range []string{"File:", "file:", "FILE:", "Path:", "path:", "Filename:", "filename:"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	s = strings.Trim(s, "*_")
	s = strings.TrimSuffix(s, ":")
	s = strings.Trim(s, "`'\"")
	s = strings.TrimSuffix(s, ":")
	s = strings.TrimSpace(s)
	if !looksLikePath(s) {
		return ""
	}
	return s
}

func looksLikePath(s string) bool {
	if s == "" || len(s) > 255 || !pathLike.MatchString(s) {
		return false
	}
	if strings.Contains(s, " ") && !strings.ContainsAny(s, "./") {
		return false // prose, not a path
	}
	if strings.Count(s, " ") > 2 {
		return false
	}
	return strings.ContainsAny(s, "./") || !strings.Contains(s, " ")
}

// parseSearchReplace reads every <<<<<<< SEARCH / ======= / >>>>>>> REPLACE
// block. The file is named on the nearest line above the block that is not
// blank or a fence opening; a block without one continues the previous
// block's file.
func parseSearchReplace(lines []string) ([]Edit, []error) {
	var edits []Edit
	var errs []error
	lastPath := ""
	for i := 0; i < len(lines); i++ {
		if !searchMarker.MatchString(lines[i]) {
			continue
		}
		start := i
		path := ""
		prevIsBlockEnd := false
		for k := i - 1; k >= 0 && k >= i-4; k-- {
			l := strings.TrimSpace(lines[k])
			if l == "" {
				continue
			}
			if replaceMarker.MatchString(l) {
				prevIsBlockEnd = true
				break
			}
			if m := fenceLine.FindStringSubmatch(l); m != nil {
				if p := cleanPathLine(l); p != "" {
					path = p
					break
				}
				continue
			}
			path = cleanPathLine(l)
			break
		}
		if path == "" {
			path = lastPath
		}
		_ = prevIsBlockEnd
		div, end := -1, -1
		for k := i + 1; k < len(lines); k++ {
			if div < 0 && dividerMarker.MatchString(lines[k]) {
				div = k
				continue
			}
			if div >= 0 && replaceMarker.MatchString(lines[k]) {
				end = k
				break
			}
			if searchMarker.MatchString(lines[k]) {
				break
			}
		}
		if div < 0 || end < 0 {
			errs = append(errs, fmt.Errorf("the SEARCH/REPLACE block at line %d of your answer is not closed: it needs a ======= line and then a >>>>>>> REPLACE line", start+1))
			continue
		}
		i = end
		if path == "" {
			errs = append(errs, fmt.Errorf("the SEARCH/REPLACE block at line %d of your answer does not say which file it edits: put the file path alone on the line before <<<<<<< SEARCH", start+1))
			continue
		}
		lastPath = path
		old := joinLines(lines[start+1 : div])
		new := joinLines(lines[div+1 : end])
		e := Edit{Kind: KindEdit, Path: path, OldText: old, NewText: new, Source: "search_replace"}
		if strings.TrimSpace(old) == "" {
			// An empty SEARCH creates the file (or fills an empty one).
			e.OldText = ""
		}
		edits = append(edits, e)
	}
	return edits, errs
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// parseWholeFiles reads blocks clearly marked as a whole file: a line that
// is a path and nothing else (bare or in backticks) directly above a fence.
// Their edits have Source "whole_file".
func parseWholeFiles(lines []string) []Edit {
	var edits []Edit
	for i := 1; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence := m[1]
		info := strings.TrimSpace(m[2])
		if info == "diff" || info == "patch" {
			continue
		}
		name := strings.TrimSpace(lines[i-1])
		path := cleanPathLine(name)
		quoted := strings.HasPrefix(name, "`") && strings.HasSuffix(name, "`")
		if path == "" || !quoted && !strings.ContainsAny(path, "./") {
			continue // a bare word ("Output") is not a file name unless quoted
		}
		if strings.Contains(name, " ") || strings.HasPrefix(name, "#") {
			// "Here is main.go" is prose and "### main.go" a heading over
			// an example (plans have them): only a bare path marks a file.
			continue
		}
		end := -1
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == fence {
				end = k
				break
			}
		}
		if end < 0 {
			continue
		}
		edits = append(edits, Edit{Kind: KindWrite, Path: path, NewText: joinLines(lines[i+1 : end]), Source: "whole_file"})
		i = end
	}
	return edits
}
