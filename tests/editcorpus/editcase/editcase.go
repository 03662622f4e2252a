// Package editcase reads the edit corpus format (tests/testdata/editapply,
// and any held-back folder in the same format): one txtar archive per case.
// The editapply tests and tests/editcorpus both read cases through it, so
// the format has one definition.
//
// The archive comment describes the case and carries key lines: "label:
// recoverable|refuse|noop", "source: owner/repo#N" (one or more), and the
// directives "crlf: PATH" (CRLF line endings), "noeol: PATH" (no final
// newline) and "bom: PATH" (a UTF-8 BOM), which change PATH in both in/ and
// want/ ("in/PATH" or "want/PATH": in that section only). Sections:
//
//	in/PATH             the workspace before the edit
//	answer              a text answer (SEARCH/REPLACE, ```diff, whole file)
//	call/N.TOOL.json    a tool call's arguments (TOOL is its name)
//	want/PATH           the file afterwards (files not named stay unchanged)
//	deleted, renamed    "PATH" / "OLD NEW" lines
//	fail                one expected substring per failure, in order
//	already             how many edits are already applied
//	parse_error         a substring of the expected parse error
package editcase

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// Call is one tool call of a case: the tool's name and its arguments.
type Call struct {
	Tool, Arguments string
}

// Case is one parsed archive.
type Case struct {
	Name, File, Comment string
	Label               string // "" when the archive gives none
	Sources             []string
	In, Want            map[string]string
	Answer              *string
	Calls               []Call
	Deleted             []string
	Renamed             [][2]string
	HasFail             bool     // a fail section is present
	Fail                []string // its lines, trimmed
	Already             int
	ParseErr            string
	Unknown             []string // sections this format does not define
}

var directives = map[string]func(string) string{
	"crlf":  func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
	"noeol": func(s string) string { return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r") },
	"bom":   func(s string) string { return "\uFEFF" + s },
}

// Load reads the cases of every *.txtar in dir, in name order.
func Load(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.txtar cases in %s", dir)
	}
	out := make([]Case, 0, len(paths))
	for _, p := range paths {
		c, err := ParseFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseFile reads one case.
func ParseFile(path string) (Case, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return Case{}, err
	}
	c := Case{Name: strings.TrimSuffix(filepath.Base(path), ".txtar"), File: path, Comment: string(ar.Comment),
		In: map[string]string{}, Want: map[string]string{}}
	for _, f := range ar.Files {
		data := string(f.Data)
		switch {
		case strings.HasPrefix(f.Name, "in/"):
			c.In[f.Name[3:]] = data
		case strings.HasPrefix(f.Name, "want/"):
			c.Want[f.Name[5:]] = data
		case f.Name == "answer":
			c.Answer = &data
		case strings.HasPrefix(f.Name, "call/"):
			parts := strings.SplitN(strings.TrimSuffix(f.Name[5:], ".json"), ".", 2)
			if len(parts) != 2 {
				return Case{}, fmt.Errorf("%s: call section %q must be call/N.TOOL.json", path, f.Name)
			}
			c.Calls = append(c.Calls, Call{Tool: parts[1], Arguments: data})
		case f.Name == "deleted":
			c.Deleted = strings.Fields(data)
		case f.Name == "renamed":
			for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
				fs := strings.Fields(l)
				if len(fs) == 0 {
					continue
				}
				if len(fs) != 2 {
					return Case{}, fmt.Errorf("%s: renamed line %q must be OLD NEW", path, l)
				}
				c.Renamed = append(c.Renamed, [2]string{fs[0], fs[1]})
			}
		case f.Name == "fail":
			c.HasFail = true
			for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
				c.Fail = append(c.Fail, strings.TrimSpace(l))
			}
		case f.Name == "already":
			c.Already, _ = strconv.Atoi(strings.TrimSpace(data))
		case f.Name == "parse_error":
			c.ParseErr = strings.TrimSpace(data)
		default:
			c.Unknown = append(c.Unknown, f.Name)
		}
	}
	for _, l := range strings.Split(c.Comment, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "label":
			c.Label = v
		case "source":
			c.Sources = append(c.Sources, v)
		}
		if conv := directives[k]; conv != nil {
			sections := []map[string]string{c.In, c.Want}
			if p, ok := strings.CutPrefix(v, "in/"); ok {
				sections, v = sections[:1], p
			} else if p, ok := strings.CutPrefix(v, "want/"); ok {
				sections, v = sections[1:], p
			}
			for _, m := range sections {
				if s, ok := m[v]; ok {
					m[v] = conv(s)
				}
			}
		}
	}
	return c, nil
}
