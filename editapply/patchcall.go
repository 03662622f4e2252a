package editapply

import (
	"path"
	"regexp"
	"strings"
)

// Codex's shell tool carries an apply_patch envelope in a heredoc, and may
// run it from a folder: `cd web && apply_patch <<'PATCH'`. Codex then reads
// the patch's paths under that folder (codex-rs/apply-patch, the heredoc
// forms), and so do we: the same answer must change the same files.
var heredocCd = regexp.MustCompile(`^\s*cd\s+('[^']+'|"[^"]+"|[^\s'"&;|]+)\s*&&\s*(?:apply_patch|applypatch)\s*<<`)

// heredocDir is the folder a `cd DIR && apply_patch <<` line names, or "".
func heredocDir(l string) string {
	m := heredocCd.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	return strings.Trim(m[1], `'"`)
}

// underDir reads the relative paths of edits under dir; an absolute path
// stays as written (Codex resolves it the same way).
func underDir(edits []Edit, dir string) {
	if dir == "" || dir == "." {
		return
	}
	join := func(p string) string {
		if p == "" || path.IsAbs(p) || strings.HasPrefix(p, "/") {
			return p
		}
		return path.Join(dir, p)
	}
	for k := range edits {
		if edits[k].Kind == KindInvalid {
			continue
		}
		edits[k].Path = join(edits[k].Path)
		edits[k].NewPath = join(edits[k].NewPath)
	}
}

// patchCallEdits reads Codex's apply_patch tool call: its arguments are the
// envelope itself (a freeform tool), or a JSON object whose string argument
// ("input", "patch", ...) holds it. ok is false for a call of another tool.
func patchCallEdits(name, arguments string) (edits []Edit, ok bool) {
	short := name
	if i := strings.LastIndexAny(short, ".:/"); i >= 0 {
		short = short[i+1:]
	}
	if normKey(short) != "applypatch" {
		return nil, false
	}
	text := arguments
	if args, err := parseArgs(arguments); err == nil {
		text = ""
		for _, k := range []string{"input", "patch", "diff", "content", "text"} {
			for key, v := range args {
				if s, isStr := v.(string); isStr && normKey(key) == k && text == "" {
					text = s
				}
			}
		}
	}
	lines := strings.Split(normalizeEOL(text), "\n")
	edits = parseApplyPatch(lines, make([]bool, len(lines)))
	if len(edits) == 0 {
		edits = []Edit{invalid(0, "", `the apply_patch call holds no "*** Begin Patch" envelope; put the whole patch in its "input" argument`)}
	}
	return edits, true
}
