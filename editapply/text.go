package editapply

import (
	"strings"
)

const bom = "\uFEFF"

// fileText is a file's content split into lines that keep their offsets, so
// matching can compare line contents while hunks keep exact byte ranges
// (CRLF, a BOM and a missing final newline survive untouched).
type fileText struct {
	content string
	base    int    // 3 when the content starts with a BOM, else 0
	eol     string // "\r\n" when the file's first line break is CRLF, else "\n"
	lines   []line
}

// line is one line of a fileText: [start, end) is its content without the
// line break; next is the offset of the following line.
type line struct {
	start, end, next int
}

// detectEOL is the file's line ending: that of its first line break.
func detectEOL(content string) string {
	if i := strings.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func bomLen(content string) int {
	if strings.HasPrefix(content, bom) {
		return len(bom)
	}
	return 0
}

func newFileText(content string) *fileText {
	ft := &fileText{content: content, eol: detectEOL(content), base: bomLen(content)}
	ft.lines = make([]line, 0, strings.Count(content, "\n")+1)
	for start := ft.base; start < len(content); {
		end := start
		for end < len(content) && content[end] != '\n' && content[end] != '\r' {
			end++
		}
		next := end
		if next < len(content) {
			if content[next] == '\r' && next+1 < len(content) && content[next+1] == '\n' {
				next += 2
			} else {
				next++
			}
		}
		ft.lines = append(ft.lines, line{start, end, next})
		start = next
	}
	return ft
}

func (ft *fileText) text(i int) string { l := ft.lines[i]; return ft.content[l.start:l.end] }

// span returns the byte range covering lines [i, j), line breaks included.
func (ft *fileText) span(i, j int) (int, int) {
	if i >= len(ft.lines) {
		return len(ft.content), len(ft.content)
	}
	if j <= i {
		return ft.lines[i].start, ft.lines[i].start
	}
	return ft.lines[i].start, ft.lines[j-1].next
}

// lineAt returns the zero-based line holding byte offset off.
func (ft *fileText) lineAt(off int) int {
	lo, hi := 0, len(ft.lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if ft.lines[mid].next <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// modelLines normalises text a model wrote (any line endings, maybe a BOM)
// into lines without breaks. A final line break does not make an extra line.
func modelLines(s string) []string {
	s = strings.TrimPrefix(s, bom)
	s = normalizeEOL(s)
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

func normalizeEOL(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// toEOL converts model text to the file's line endings.
func toEOL(s, eol string) string {
	s = normalizeEOL(strings.TrimPrefix(s, bom))
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func leadingWS(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

func trimRightWS(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\f' || s[i-1] == '\v') {
		i--
	}
	return s[:i]
}
