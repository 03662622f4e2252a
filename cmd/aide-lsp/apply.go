package main

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// applyPolicy is what `run --apply` may write (issue 16): a repository can
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

// fileChanges turns the pending hunks into whole-file writes and deletes,
// and lists the files the policy refuses. Nothing is written here.
func fileChanges(ws *workspace.Workspace, hunks []editapply.Hunk, pol applyPolicy) ([]workspace.FileWrite, []refusal, error) {
	type op struct {
		rel      string
		hunks    []editapply.Hunk
		remove   bool
		renameTo string
	}
	var order []string
	ops := map[string]*op{}
	for _, h := range hunks {
		o := ops[h.Path]
		if o == nil {
			o = &op{rel: h.Path}
			ops[h.Path] = o
			order = append(order, h.Path)
		}
		o.hunks = append(o.hunks, h)
	}
	var out []workspace.FileWrite
	var refused []refusal
	check := func(rel string, old, new []byte) {
		if !pol.allowUnplanned && !pol.planned(rel) {
			refused = append(refused, refusal{rel, "not named by the plan, the task or --file", "--allow-unplanned"})
			return
		}
		if why := workspace.Sensitive(rel, old, new); why != "" && !pol.allowSensitive {
			refused = append(refused, refusal{rel, "sensitive: " + why, "--allow-sensitive"})
		}
	}
	for _, rel := range order {
		o := ops[rel]
		content, exists, err := ws.Read(rel)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", rel, err)
		}
		var old []byte
		if exists {
			old = []byte(content)
		}
		var edits []editapply.Hunk
		newContent, haveNew := content, false
		for _, h := range o.hunks {
			switch h.Kind {
			case editapply.KindDelete:
				o.remove = true
			case editapply.KindRename:
				if _, _, err := ws.Resolve(h.NewPath); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", h.NewPath, err)
				}
				if _, ok, _ := ws.Read(h.NewPath); ok {
					return nil, nil, fmt.Errorf("cannot rename %s: %s already exists", rel, h.NewPath)
				}
				o.renameTo = h.NewPath
			case editapply.KindWrite:
				if len(o.hunks) == 1 {
					newContent, haveNew = h.NewText, true
					continue
				}
				edits = append(edits, h)
			default:
				edits = append(edits, h)
			}
		}
		if len(edits) > 0 {
			if !exists {
				return nil, nil, fmt.Errorf("%s no longer exists", rel)
			}
			s, err := editapply.Apply(content, edits)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", rel, err)
			}
			newContent, haveNew = s, true
		}
		switch {
		case o.remove:
			check(rel, old, nil)
			out = append(out, workspace.FileWrite{Rel: rel, Delete: true})
		case o.renameTo != "":
			check(rel, old, nil)
			check(o.renameTo, nil, []byte(newContent))
			out = append(out, workspace.FileWrite{Rel: o.renameTo, Content: []byte(newContent), Perm: modeOf(ws, rel)},
				workspace.FileWrite{Rel: rel, Delete: true})
		case haveNew:
			check(rel, old, []byte(newContent))
			out = append(out, workspace.FileWrite{Rel: rel, Content: []byte(newContent)})
		}
	}
	sort.SliceStable(refused, func(i, j int) bool { return refused[i].path < refused[j].path })
	return out, refused, nil
}

func (p applyPolicy) planned(rel string) bool {
	for _, f := range p.focus {
		if path.Clean(f) == rel {
			return true
		}
	}
	return namesPath(p.named, rel)
}

func modeOf(ws *workspace.Workspace, rel string) os.FileMode {
	abs, _, err := ws.Resolve(rel)
	if err != nil {
		return 0
	}
	if st, err := os.Stat(abs); err == nil {
		return st.Mode().Perm()
	}
	return 0
}

// refusalLines is the report of refused files, one per line with its flag.
func refusalLines(rs []refusal) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %s: %s (allow with %s)\n", r.path, r.why, r.flag)
	}
	return b.String()
}
