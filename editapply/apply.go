package editapply

import (
	"fmt"
	"sort"
	"strings"
)

// Apply applies hunks of one file (expressed against content) and returns
// the new content. KindEdit and KindWrite hunks change the text; a KindDelete
// hunk yields "" and a KindRename hunk leaves the text as it is (the caller
// removes or moves the file). It fails, changing nothing, when a hunk's
// OldText is not at its range in content or two hunks overlap.
func Apply(content string, hunks []Hunk) (string, error) {
	var text []Hunk
	deleted := false
	for _, h := range hunks {
		switch h.Kind {
		case KindDelete:
			deleted = true
		case KindRename:
		default:
			text = append(text, h)
		}
	}
	sort.SliceStable(text, func(i, j int) bool { return text[i].Start < text[j].Start })
	var b strings.Builder
	at := 0
	for n, h := range text {
		if h.Start < 0 || h.End > len(content) || h.Start > h.End {
			return "", fmt.Errorf("hunk %s (%s): range %d-%d is outside the file (%d bytes)", h.ID, h.Summary, h.Start, h.End, len(content))
		}
		if content[h.Start:h.End] != h.OldText {
			return "", fmt.Errorf("hunk %s (%s): the file changed at its range; rebase it first", h.ID, h.Summary)
		}
		if h.Start < at || n > 0 && h.Start == at && h.Start == h.End && text[n-1].End == at {
			return "", fmt.Errorf("hunk %s (%s) overlaps hunk %s", h.ID, h.Summary, text[n-1].ID)
		}
		b.WriteString(content[at:h.Start])
		b.WriteString(h.NewText)
		at = h.End
	}
	b.WriteString(content[at:])
	if deleted {
		return "", nil
	}
	return b.String(), nil
}

// Rebase re-locates a pending hunk in its document's new content. The hunk
// is unchanged when its OldText still stands at its range and nowhere else;
// moved when it stands in exactly one other place (the returned hunk has the
// new range and summary); stale when it is gone or stands in several places,
// since a hunk must never land at a guessed place. Created, renamed and
// deleted files rebase as unchanged while the file is as the hunk expects
// (an empty or missing document for a creation).
func Rebase(h Hunk, newContent string) (Hunk, RebaseStatus) {
	switch {
	case h.Kind == KindRename:
		return h, RebaseUnchanged
	case h.Kind == KindDelete:
		if newContent == h.OldText {
			return h, RebaseUnchanged
		}
		return h, RebaseStale
	case h.Created:
		if newContent == "" {
			return h, RebaseUnchanged
		}
		return h, RebaseStale
	}
	if h.OldText == "" {
		// A pure insertion has no text to find: only an unchanged document
		// around it could vouch for it, and we do not have the old document.
		if h.Start == 0 && h.End == 0 && newContent == "" {
			return h, RebaseUnchanged
		}
		return h, RebaseStale
	}
	first := strings.Index(newContent, h.OldText)
	if first < 0 {
		return h, RebaseStale
	}
	if strings.Contains(newContent[first+1:], h.OldText) {
		return h, RebaseStale
	}
	if first == h.Start && first+len(h.OldText) == h.End {
		return h, RebaseUnchanged
	}
	moved := h
	moved.Start, moved.End = first, first+len(h.OldText)
	moved.Summary = summarize(newFileText(newContent), moved)
	return moved, RebaseMoved
}
