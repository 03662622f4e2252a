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
	if f.Edit.Kind == KindInvalid {
		where := ""
		if f.Edit.Path != "" {
			where = " (for " + f.Edit.Path + ")"
		}
		fmt.Fprintf(&b, "a block of your answer%s could not be read: %s\n", where, f.Reason)
	} else {
		fmt.Fprintf(&b, "%s %s failed: %s\n", what, f.Edit.Path, f.Reason)
	}
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
// failure with its reason and closest lines, the edits held back with them
// (sent again, never said to be applied), the edits that were already in
// place, and whether anything else was applied. Empty when nothing failed.
func (r Result) RetryPrompt() string {
	if len(r.Failures) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of your edits could not be applied.", len(r.Failures))
	if len(r.HeldBack) > 0 {
		fmt.Fprintf(&b, " %s held back with them and NOT applied, because an answer's edits to one file (and a rename, delete or new file chained to it) go in together or not at all.", heldBackCount(len(r.HeldBack)))
	}
	if len(r.Hunks) > 0 {
		b.WriteString(" The edits not listed here were applied; do not repeat them.")
	}
	if len(r.HeldBack) > 0 {
		b.WriteString(" Send corrected edits for the failed ones; the held-back ones are kept and go in again with your corrections, so do not repeat them:\n\n")
	} else {
		b.WriteString(" Send corrected edits only for these:\n\n")
	}
	for n, f := range r.Failures {
		fmt.Fprintf(&b, "%d. %s\n", n+1, f.Message())
	}
	if len(r.HeldBack) > 0 {
		b.WriteString("Held back (NOT applied; kept for your corrections):\n")
		for _, h := range r.HeldBack {
			fmt.Fprintf(&b, "- %s\n", describe(h.Edit))
		}
	}
	for _, e := range r.AlreadyApplied {
		fmt.Fprintf(&b, "Note: the new text of one edit to %s is already in the file; nothing to do for it.\n", e.Path)
	}
	return b.String()
}

// describe names an edit in one line for the retry prompt.
func describe(e Edit) string {
	switch e.Kind {
	case KindWrite:
		return "write_file " + e.Path
	case KindDelete:
		return "delete_file " + e.Path
	case KindRename:
		return fmt.Sprintf("rename_file %s to %s", e.Path, e.NewPath)
	}
	first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(e.OldText), "\n", 2)[0])
	if len(first) > 60 {
		first = first[:60] + "…"
	}
	if first == "" {
		return "edit_file " + e.Path
	}
	return fmt.Sprintf("edit_file %s (old_text starting %q)", e.Path, first)
}

func heldBackCount(n int) string {
	if n == 1 {
		return "1 other edit was"
	}
	return fmt.Sprintf("%d other edits were", n)
}
