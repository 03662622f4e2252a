package main

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// applyPolicy is what `run --apply` may write (contract §8): a repository can
// steer a model into writing files nobody asked for (a Makefile with
// `curl … | sh`), so only files the plan, the task, the focus or the AI
// comment name are written unless --allow-unplanned, and sensitive files
// need --allow-sensitive.
type applyPolicy struct {
	named          string   // the plan, the task: text that names files
	focus          []string // --file, root-relative
	allowUnplanned bool
	allowSensitive bool
}

// refusal is one file run --apply will not write, with the flag that
// would allow it.
type refusal struct {
	path, why, flag string
}

// plannedFile reports whether text names rel as a path (whole, or as
// ./rel), not merely as part of a longer name.
func namesPath(text, rel string) bool {
	for _, p := range []string{rel, "./" + rel} {
		for i := 0; ; {
			j := strings.Index(text[i:], p)
			if j < 0 {
				break
			}
			at := i + j
			end := at + len(p)
			if (at == 0 || !pathChar(text[at-1])) && (end == len(text) || !pathChar(text[end]) || (text[end] == '.' && (end+1 == len(text) || !pathChar(text[end+1])))) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

func pathChar(b byte) bool {
	return b == '/' || b == '.' || b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// fileChanges turns the pending hunks into whole-file writes and deletes
// (commands.FileChanges), and lists the files the policy refuses. Nothing
// is written here.
func fileChanges(ws *workspace.Workspace, hunks []editapply.Hunk, pol applyPolicy) ([]workspace.FileWrite, []refusal, error) {
	changes, err := commands.FileChanges(ws, hunks)
	if err != nil {
		return nil, nil, err
	}
	var refused []refusal
	for _, c := range changes {
		var old, new []byte
		if content, exists, _ := ws.Read(c.Rel); exists {
			old = []byte(content)
		}
		if !c.Delete {
			new = c.Content
		}
		if !pol.allowUnplanned && !pol.planned(c.Rel) {
			refused = append(refused, refusal{c.Rel, "not named by the plan, the task or --file", "--allow-unplanned"})
			continue
		}
		// Decided on the resolved, case-folded path, by kind (contract §2):
		// only ordinary source, text or data is written without the flag.
		if why := ws.Sensitive(c.Rel, old, new); why != "" && !pol.allowSensitive {
			refused = append(refused, refusal{c.Rel, "sensitive, it runs code: " + why, "--allow-sensitive"})
		}
	}
	sort.SliceStable(refused, func(i, j int) bool { return refused[i].path < refused[j].path })
	return changes, refused, nil
}

func (p applyPolicy) planned(rel string) bool {
	for _, f := range p.focus {
		if path.Clean(f) == rel {
			return true
		}
	}
	return namesPath(p.named, rel)
}

// refusalLines is the report of refused files, one per line with its flag.
func refusalLines(rs []refusal) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %s: %s (allow with %s)\n", r.path, r.why, r.flag)
	}
	return b.String()
}
