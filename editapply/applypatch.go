package editapply

import (
	"fmt"
	"strings"
)

// parseApplyPatch reads Codex's apply_patch envelope:
//
//	*** Begin Patch
//	*** Update File: path        (optionally *** Move to: new/path)
//	@@ optional context
//	 context line
//	-removed line
//	+added line
//	*** Add File: path           (every line starts with +)
//	*** Delete File: path
//	*** End Patch
//
// Each @@ chunk of an Update becomes an edit (its context and "-" lines the
// old text, context and "+" lines the new) located by the matching ladder;
// a chunk of only "+" lines before "*** End of File" appends to the file.
// A line the envelope cannot hold makes the whole envelope a KindInvalid
// edit: half a patch is never applied.
func parseApplyPatch(lines []string, used []bool) []Edit {
	var edits []Edit
	for i := 0; i < len(lines); i++ {
		if used[i] || strings.TrimSpace(lines[i]) != "*** Begin Patch" {
			continue
		}
		end := -1
		for k := i + 1; k < len(lines); k++ {
			if strings.TrimSpace(lines[k]) == "*** End Patch" {
				end = k
				break
			}
		}
		if end < 0 {
			edits = append(edits, invalid(i, "", fmt.Sprintf("the patch at line %d of your answer has no \"*** End Patch\" line: it is cut off; send the whole patch again", i+1)))
			markUsed(used, i, len(lines))
			break
		}
		markUsed(used, i, end+1)
		es, bad := readEnvelope(lines[i+1:end], i+1)
		if bad != nil {
			edits = append(edits, *bad)
		} else {
			edits = append(edits, es...)
		}
		i = end
	}
	return edits
}

// opWithoutPath reports an operation line whose path is blank (only
// spaces or other white space after the colon).
func opWithoutPath(l string) bool {
	for _, op := range []string{"*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:"} {
		if strings.HasPrefix(l, op) && strings.TrimSpace(l[len(op):]) == "" {
			return true
		}
	}
	return false
}

// readEnvelope parses the operations between Begin and End Patch; first is
// the answer line of body[0].
func readEnvelope(body []string, first int) ([]Edit, *Edit) {
	var edits []Edit
	fail := func(k int, path, format string, a ...any) ([]Edit, *Edit) {
		e := invalid(first+k, path, fmt.Sprintf("line %d of your answer, in the apply_patch envelope: ", first+k+1)+fmt.Sprintf(format, a...))
		return nil, &e
	}
	for k := 0; k < len(body); {
		l := strings.TrimRight(body[k], " \t")
		switch {
		case strings.TrimSpace(l) == "":
			k++
		case opWithoutPath(l):
			return fail(k, "", "%q names no file: give its path after the colon", strings.TrimSpace(l))
		case strings.HasPrefix(l, "*** Add File: "):
			path := strings.TrimSpace(l[len("*** Add File: "):])
			var content []string
			k++
			for k < len(body) && !strings.HasPrefix(body[k], "*** ") {
				if !strings.HasPrefix(body[k], "+") {
					if strings.TrimSpace(body[k]) == "" {
						content = append(content, "")
						k++
						continue
					}
					return fail(k, path, "every line of an added file starts with \"+\"; this one does not")
				}
				content = append(content, body[k][1:])
				k++
			}
			for len(content) > 0 && content[len(content)-1] == "" && !strings.HasPrefix(body[k-1], "+") {
				content = content[:len(content)-1]
			}
			edits = append(edits, Edit{Kind: KindWrite, Path: path, NewText: joinLines(content), Source: "apply_patch", mustCreate: true, line: first + k})
		case strings.HasPrefix(l, "*** Delete File: "):
			edits = append(edits, Edit{Kind: KindDelete, Path: strings.TrimSpace(l[len("*** Delete File: "):]), Source: "apply_patch", line: first + k})
			k++
		case strings.HasPrefix(l, "*** Update File: "):
			path := strings.TrimSpace(l[len("*** Update File: "):])
			k++
			moveTo := ""
			if k < len(body) && strings.HasPrefix(body[k], "*** Move to: ") {
				if opWithoutPath(body[k]) {
					return fail(k, path, "%q names no file: give the new path after the colon", strings.TrimSpace(body[k]))
				}
				moveTo = strings.TrimSpace(body[k][len("*** Move to: "):])
				k++
			}
			var chunks []Edit
			var old, neu []string
			changed, eof := false, false
			flush := func() *Edit {
				if !changed && len(old) == 0 {
					old, neu = nil, nil
					return nil
				}
				if len(trimBlankEnds(old)) == 0 && !eof {
					e := invalid(first+k, path, fmt.Sprintf("line %d of your answer, in the apply_patch envelope: a chunk of %s has only added lines and no context, so it says nowhere where they go; include a context line or two around them", first+k+1, path))
					return &e
				}
				e := Edit{Kind: KindEdit, Path: path, OldText: joinLines(old), NewText: joinLines(neu), Source: "apply_patch", line: first + k}
				if len(trimBlankEnds(old)) == 0 {
					e.OldText, e.atEOF = "", true
				}
				if changed {
					chunks = append(chunks, e)
				}
				old, neu, changed, eof = nil, nil, false, false
				return nil
			}
			for k < len(body) {
				x := body[k]
				if strings.HasPrefix(x, "*** End of File") {
					eof = true
					k++
					continue
				}
				if strings.HasPrefix(x, "*** ") {
					break
				}
				if strings.HasPrefix(x, "@@") {
					if bad := flush(); bad != nil {
						return nil, bad
					}
					k++
					continue
				}
				switch {
				case x == "":
					old, neu = append(old, ""), append(neu, "")
				case x[0] == ' ':
					old, neu = append(old, x[1:]), append(neu, x[1:])
				case x[0] == '-':
					old, changed = append(old, x[1:]), true
				case x[0] == '+':
					neu, changed = append(neu, x[1:]), true
				default:
					return fail(k, path, "%q is not a patch line: lines of an update start with \" \", \"-\", \"+\" or \"@@\"", x)
				}
				k++
			}
			if bad := flush(); bad != nil {
				return nil, bad
			}
			if len(chunks) == 0 && moveTo == "" {
				return fail(k-1, path, "the update of %s changes no line", path)
			}
			edits = append(edits, chunks...)
			if moveTo != "" && moveTo != path {
				edits = append(edits, Edit{Kind: KindRename, Path: path, NewPath: moveTo, Source: "apply_patch", line: first + k})
			}
		default:
			return fail(k, "", "%q is not an apply_patch operation (*** Add File:, *** Update File:, *** Delete File:)", l)
		}
	}
	if len(edits) == 0 {
		e := invalid(first, "", "the apply_patch envelope is empty")
		return nil, &e
	}
	return edits, nil
}
