package editapply

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ToolSchema describes one editor tool of contract §9 (JSON Schema parameters).
type ToolSchema struct {
	Name        string
	Description string
	Parameters  map[string]any
}

func stringProp(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

func object(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// Tools returns edit_file, write_file, delete_file and rename_file.
func Tools() []ToolSchema {
	path := stringProp("File path relative to the workspace root, e.g. \"internal/server/main.go\".")
	return []ToolSchema{
		{
			Name: "edit_file",
			Description: "Replace old_text with new_text in an existing file. old_text must be copied exactly from the file " +
				"(whole lines, same indentation) and must match exactly one place: include a few surrounding lines when the " +
				"text occurs more than once. Write new_text in full; never use \"...\" or \"// existing code\" to stand for lines. " +
				"Make several small edit_file calls rather than one huge one.",
			Parameters: object(map[string]any{
				"path":     path,
				"old_text": stringProp("The exact current text to replace (whole lines, copied from the file)."),
				"new_text": stringProp("The complete replacement text. Empty to delete old_text."),
			}, "path", "old_text", "new_text"),
		},
		{
			Name:        "write_file",
			Description: "Create a new file, or replace an existing file as a whole, with content. Give the complete content; never elide parts with \"...\".",
			Parameters: object(map[string]any{
				"path":    path,
				"content": stringProp("The complete content of the file."),
			}, "path", "content"),
		},
		{
			Name:        "delete_file",
			Description: "Delete a file.",
			Parameters:  object(map[string]any{"path": path}, "path"),
		},
		{
			Name:        "rename_file",
			Description: "Rename or move a file. Make any edits to its content before renaming it.",
			Parameters: object(map[string]any{
				"path":     path,
				"new_path": stringProp("The new path relative to the workspace root."),
			}, "path", "new_path"),
		},
	}
}

// Argument-name variants models write instead of the declared ones, keyed by
// the name lower-cased without "_" and "-".
var (
	pathKeys    = []string{"path", "file", "filepath", "filename", "targetfile", "file_path", "uri", "name"}
	oldKeys     = []string{"oldtext", "old", "oldstr", "oldstring", "search", "find", "original", "oldcontent", "from"}
	newKeys     = []string{"newtext", "new", "newstr", "newstring", "replace", "replacement", "newcontent", "to", "with"}
	contentKeys = []string{"content", "contents", "text", "filetext", "code", "body", "newtext", "data"}
	// Anthropic's text editor tool: one tool, the operation in "command".
	commandTools = map[string]string{"strreplace": "edit_file", "create": "write_file"}
	newPathKeys  = []string{"newpath", "to", "destination", "dest", "target", "newname", "newfile", "newfilepath", "targetpath"}
)

var toolAliases = map[string]string{
	"editfile": "edit_file", "edit": "edit_file", "replaceinfile": "edit_file", "strreplace": "edit_file",
	"searchreplace": "edit_file", "replace": "edit_file", "applyedit": "edit_file", "modifyfile": "edit_file",
	"writefile": "write_file", "write": "write_file", "createfile": "write_file", "writetofile": "write_file",
	"create": "write_file", "newfile": "write_file", "overwritefile": "write_file",
	"deletefile": "delete_file", "delete": "delete_file", "removefile": "delete_file", "remove": "delete_file", "rm": "delete_file",
	"renamefile": "rename_file", "rename": "rename_file", "movefile": "rename_file", "move": "rename_file", "mv": "rename_file",
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(k)
}

// ToolName maps a tool name a model used ("functions.edit_file",
// "str_replace", "createFile") to one of contract §9's, or "".
func ToolName(name string) string {
	if i := strings.LastIndexAny(name, ".:/"); i >= 0 {
		name = name[i+1:]
	}
	return toolAliases[normKey(name)]
}

// maxMultiEdits bounds the edits of one MultiEdit call.
const maxMultiEdits = 200

// FromToolCalls parses one tool call into its edits: one, or for Claude
// Code's MultiEdit ({"file_path", "edits": [{"old_string", "new_string",
// "replace_all"}]}) one per element. Claude Code applies a MultiEdit's
// edits in turn, and so does Resolve with the edits of one answer to one
// file; an unreadable element makes the whole call unreadable, as a
// MultiEdit is all or nothing.
func FromToolCalls(name, arguments string) ([]Edit, error) {
	short := name
	if i := strings.LastIndexAny(short, ".:/"); i >= 0 {
		short = short[i+1:]
	}
	if edits, ok := patchCallEdits(name, arguments); ok {
		// A call is read whole or not at all (as every tool call is): a
		// part of the patch that cannot be read refuses the call with
		// that part's reason.
		for _, e := range edits {
			if e.Kind == KindInvalid {
				return nil, errors.New(e.Reason)
			}
		}
		return edits, nil
	}
	if normKey(short) != "multiedit" {
		e, err := FromToolCall(name, arguments)
		if err != nil {
			return nil, err
		}
		return []Edit{e}, nil
	}
	const how = `call edit_file once per change, or MultiEdit with {"file_path", "edits": [{"old_string", "new_string"}]}`
	args, err := parseArgs(arguments)
	if err != nil {
		return nil, fmt.Errorf("MultiEdit: the arguments are not a JSON object (%v); %s", err, how)
	}
	var path any
	var list []any
	for k, v := range args {
		switch {
		case slices.Contains(pathKeys, normKey(k)) || normKey(k) == "filepath":
			path = v
		case normKey(k) == "edits":
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("MultiEdit: \"edits\" must be a list, not %T; %s", v, how)
			}
			list = l
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("MultiEdit: no \"edits\" (got %s); %s", argNames(args), how)
	}
	if len(list) > maxMultiEdits {
		return nil, fmt.Errorf("MultiEdit: %d edits in one call, more than %d; split them over several calls", len(list), maxMultiEdits)
	}
	out := make([]Edit, 0, len(list))
	for i, item := range list {
		one, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("MultiEdit: edits[%d] is not an object; %s", i, how)
		}
		if path != nil {
			one["file_path"] = path
		}
		raw, _ := json.Marshal(one)
		e, err := FromToolCall("edit_file", string(raw))
		if err != nil {
			return nil, fmt.Errorf("MultiEdit: edits[%d]: %v", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// FromToolCall parses one tool call of contract §9 into an Edit. Common
// variants of tool and argument names are accepted; the error says what is
// missing or wrong in words the model can act on.
func FromToolCall(name, arguments string) (Edit, error) {
	tool := ToolName(name)
	if tool == "" {
		tool = commandTool(arguments)
	}
	if tool == "" {
		return Edit{}, fmt.Errorf("unknown tool %q; the tools are edit_file, write_file, delete_file and rename_file", name)
	}
	args, err := parseArgs(arguments)
	if err != nil {
		return Edit{}, fmt.Errorf("%s: the arguments are not a JSON object (%v); send {\"path\": ...} as JSON", tool, err)
	}
	get := func(keys []string, taken map[string]bool) (string, bool, error) {
		for _, want := range keys {
			for k, v := range args {
				if normKey(k) != normKey(want) || taken[k] {
					continue
				}
				switch x := v.(type) {
				case string:
					taken[k] = true
					return x, true, nil
				case nil:
					taken[k] = true
					return "", true, nil
				case []any: // a list of lines
					lines := make([]string, 0, len(x))
					for _, l := range x {
						s, ok := l.(string)
						if !ok {
							return "", false, fmt.Errorf("argument %q must be a string", k)
						}
						lines = append(lines, s)
					}
					taken[k] = true
					return strings.Join(lines, "\n"), true, nil
				default:
					return "", false, fmt.Errorf("argument %q must be a string, not %T", k, v)
				}
			}
		}
		return "", false, nil
	}
	taken := map[string]bool{"command": true}
	e := Edit{Source: "tool"}
	need := func(field string, keys []string) (string, error) {
		v, ok, err := get(keys, taken)
		if err != nil {
			return "", fmt.Errorf("%s: %v", tool, err)
		}
		if !ok {
			return "", fmt.Errorf("%s: missing argument %q (got %s); %s", tool, field, argNames(args), usage(tool))
		}
		return v, nil
	}
	if e.Path, err = need("path", pathKeys); err != nil {
		return Edit{}, err
	}
	e.Path = strings.TrimSpace(e.Path)
	if e.Path == "" {
		return Edit{}, fmt.Errorf("%s: \"path\" is empty; %s", tool, usage(tool))
	}
	switch tool {
	case "edit_file":
		e.Kind = KindEdit
		if e.OldText, err = need("old_text", oldKeys); err != nil {
			return Edit{}, err
		}
		if e.NewText, err = need("new_text", newKeys); err != nil {
			return Edit{}, err
		}
		// Claude Code's Edit tool: "replace_all": true replaces every
		// occurrence, which the answer then means.
		for k, v := range args {
			if b, ok := v.(bool); ok && b && normKey(k) == "replaceall" {
				e.ReplaceAll = true
			}
		}
	case "write_file":
		e.Kind = KindWrite
		if e.NewText, err = need("content", contentKeys); err != nil {
			return Edit{}, err
		}
	case "delete_file":
		e.Kind = KindDelete
	case "rename_file":
		e.Kind = KindRename
		if e.NewPath, err = need("new_path", newPathKeys); err != nil {
			return Edit{}, err
		}
		e.NewPath = strings.TrimSpace(e.NewPath)
		if e.NewPath == "" {
			return Edit{}, fmt.Errorf("rename_file: \"new_path\" is empty; %s", usage(tool))
		}
	}
	return e, nil
}

func usage(tool string) string {
	switch tool {
	case "edit_file":
		return `call edit_file with {"path", "old_text", "new_text"}`
	case "write_file":
		return `call write_file with {"path", "content"}`
	case "delete_file":
		return `call delete_file with {"path"}`
	}
	return `call rename_file with {"path", "new_path"}`
}

func argNames(args map[string]any) string {
	if len(args) == 0 {
		return "no arguments"
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, fmt.Sprintf("%q", k))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// parseArgs decodes the arguments object, tolerating a JSON string that
// holds the object (double encoding) and a fenced ```json block.
func parseArgs(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(s, "json")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if s == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	if inner, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(inner), &v); err != nil {
			return nil, err
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("got a JSON %T", v)
	}
	return m, nil
}

// commandTool recognises a text-editor style call whose operation is in a
// "command" argument (str_replace, create), or returns "".
func commandTool(arguments string) string {
	args, err := parseArgs(arguments)
	if err != nil {
		return ""
	}
	c, _ := args["command"].(string)
	return commandTools[normKey(c)]
}
