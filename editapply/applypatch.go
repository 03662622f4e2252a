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
		if used[i] {
			continue
		}
		if patchOp(lines[i]) != "" && strings.TrimSpace(lines[i]) != "*** End Patch" {
			// A bare body: operations without the Begin/End lines (Codex
			// reads them too). It runs to "*** End Patch" or to the first
			// line no patch has; an unreadable line refuses it whole, as
			// in an envelope.
			end := i + 1
			for end < len(lines) && !used[end] && isPatchLine(lines[end]) && strings.TrimSpace(lines[end]) != "*** End Patch" {
				end++
			}
			stop := end
			if end < len(lines) && strings.TrimSpace(lines[end]) == "*** End Patch" {
				stop = end + 1
			}
			markUsed(used, i, stop)
			es, bad := readEnvelope(lines[i:end], i, false)
			if bad != nil {
				edits = append(edits, *bad)
			} else {
				edits = append(edits, es...)
			}
			i = stop - 1
			continue
		}
		if strings.TrimSpace(lines[i]) != "*** Begin Patch" {
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
		es, bad := readEnvelope(lines[i+1:end], i+1, true)
		if bad != nil {
			edits = append(edits, *bad)
		} else {
			if i > 0 {
				underDir(es, heredocDir(lines[i-1]))
			}
			edits = append(edits, es...)
		}
		i = end
	}
	return edits
}

// patchOps are the operation lines of an envelope.
var patchOps = []string{"*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:", "*** End of File", "*** End Patch"}

// patchOp returns the operation a line starts (padded with white space,
// as models write them), or "".
func patchOp(l string) string {
	t := strings.TrimSpace(l)
	for _, op := range patchOps {
		if strings.HasPrefix(t, op) {
			return op
		}
	}
	return ""
}

// isPatchLine: a line an envelope's body can hold.
func isPatchLine(l string) bool {
	return l == "" || patchOp(l) != "" || l[0] == ' ' || l[0] == '+' || l[0] == '-' || strings.HasPrefix(l, "@@")
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
// the answer line of body[0]. inEnvelope: Begin and End Patch enclose body,
// so every line of a chunk is the patch's (a bare body ends at the first
// line no patch holds).
func readEnvelope(body []string, first int, inEnvelope bool) ([]Edit, *Edit) {
	var edits []Edit
	fail := func(k int, path, format string, a ...any) ([]Edit, *Edit) {
		e := invalid(first+k, path, fmt.Sprintf("line %d of your answer, in the apply_patch envelope: ", first+k+1)+fmt.Sprintf(format, a...))
		return nil, &e
	}
	for k := 0; k < len(body); {
		l := strings.TrimRight(body[k], " \t")
		if patchOp(l) != "" {
			l = strings.TrimSpace(l)
		}
		switch {
		case strings.TrimSpace(l) == "":
			k++
		case opWithoutPath(l):
			return fail(k, "", "%q names no file: give its path after the colon", strings.TrimSpace(l))
		case strings.HasPrefix(l, "*** Add File:"):
			path := strings.TrimSpace(l[len("*** Add File:"):])
			var content []string
			k++
			for k < len(body) && patchOp(body[k]) == "" {
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
		case strings.HasPrefix(l, "*** Delete File:"):
			edits = append(edits, Edit{Kind: KindDelete, Path: strings.TrimSpace(l[len("*** Delete File:"):]), Source: "apply_patch", line: first + k})
			k++
		case strings.HasPrefix(l, "*** Update File:"):
			path := strings.TrimSpace(l[len("*** Update File:"):])
			k++
			moveTo := ""
			if k < len(body) && patchOp(body[k]) == "*** Move to:" {
				mv := strings.TrimSpace(body[k])
				if opWithoutPath(mv) {
					return fail(k, path, "%q names no file: give the new path after the colon", mv)
				}
				moveTo = strings.TrimSpace(mv[len("*** Move to:"):])
				k++
			}
			var chunks []Edit
			var old, neu []string
			changed := false
			flush := func() *Edit {
				if !changed && len(old) == 0 {
					old, neu = nil, nil
					return nil
				}
				e := Edit{Kind: KindEdit, Path: path, OldText: joinLines(old), NewText: joinLines(neu), Source: "apply_patch", line: first + k, wholeLines: true}
				if len(trimBlankEnds(old)) == 0 {
					// Only added lines: they go at the end of the file,
					// with "*** End of File" or without (as Codex reads
					// such a chunk).
					e.OldText, e.atEOF = "", true
				}
				if changed {
					chunks = append(chunks, e)
				}
				old, neu, changed = nil, nil, false
				return nil
			}
			for k < len(body) {
				x := body[k]
				if patchOp(x) == "*** End of File" {
					k++
					// Nothing follows the end of the file: blank lines
					// after the marker are the answer's, not the file's.
					for k < len(body) && strings.TrimSpace(body[k]) == "" {
						k++
					}
					continue
				}
				if patchOp(x) != "" {
					break
				}
				if strings.HasPrefix(x, "@@") {
					if bad := flush(); bad != nil {
						return nil, bad
					}
					k++
					continue
				}
				text, inOld, inNew, ok := diffLine(x)
				if !ok && inEnvelope {
					// A context line that lost its leading space (Cline
					// reads it so): as context it must match the file, so
					// a stray line is refused there, not here.
					text, inOld, inNew, ok = x, true, true, true
				}
				if !ok {
					return fail(k, path, "%q is not a patch line: lines of an update start with \" \", \"-\", \"+\" or \"@@\"", x)
				}
				if inOld {
					old = append(old, text)
				}
				if inNew {
					neu = append(neu, text)
				}
				changed = changed || inOld != inNew
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
