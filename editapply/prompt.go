package editapply

import (
	"fmt"
	"strings"
)

// Message renders a failure for the editor's retry prompt: which edit, why it
// failed, and the closest lines of the file with their line numbers.
func (f Failure) Message() string {
	var b strings.Builder
	what := string(f.Edit.Kind)
	switch f.Edit.Kind {
	case KindEdit:
		what = "edit_file"
	case KindWrite:
		what = "write_file"
	case KindDelete:
		what = "delete_file"
	case KindRename:
		what = "rename_file"
	}
	fmt.Fprintf(&b, "%s %s failed: %s\n", what, f.Edit.Path, f.Reason)
	if f.Closest != "" {
		b.WriteString("Closest lines in the file (line numbers are not part of the text):\n")
		b.WriteString(f.Closest)
		if !strings.HasSuffix(f.Closest, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// RetryPrompt is the user message for a retry of the failed edits: each
// failure with its reason and closest lines, the edits that were already in
// place, and what was applied. Empty when nothing failed.
func (r Result) RetryPrompt() string {
	if len(r.Failures) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of your edits could not be applied. The other edits were applied; do not repeat them. Send corrected edits only for these:\n\n", len(r.Failures))
	for n, f := range r.Failures {
		fmt.Fprintf(&b, "%d. %s\n", n+1, f.Message())
	}
	for _, e := range r.AlreadyApplied {
		fmt.Fprintf(&b, "Note: the new text of one edit to %s is already in the file; nothing to do for it.\n", e.Path)
	}
	return b.String()
}
