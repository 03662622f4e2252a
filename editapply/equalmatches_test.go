package editapply

import (
	"strings"
	"testing"
)

// Several equal matches (equalMatches): the answer's other edits of the
// file may say which copy an edit means; nothing else does.

func TestEqualMatchesNarratedCallIsNoSecondBlock(t *testing.T) {
	// A tool call and the text that narrates it are one edit, not one
	// block per copy: with the text read beside the call the copy is
	// still a guess, so the answer is refused.
	files := mapFiles{"w.py": "retries = 3\nx = 1\nretries = 3\n"}
	call := Edit{Kind: KindEdit, Path: "w.py", OldText: "retries = 3\n", NewText: "retries = 5\n", Source: "tool"}
	text := AlsoInText([]Edit{{Kind: KindEdit, Path: "w.py", OldText: "retries = 3\n", NewText: "retries = 5\n", Source: "search_replace"}})
	res := Resolve(append([]Edit{call}, text...), files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) == 0 || !strings.Contains(res.Failures[0].Reason, "matches 2 places") {
		t.Fatalf("a call and its narration took both copies: %+v", res)
	}
	// The same two edits as two blocks of one text answer: one per copy.
	blocks := []Edit{{Kind: KindEdit, Path: "w.py", OldText: "retries = 3\n", NewText: "retries = 5\n"}, {Kind: KindEdit, Path: "w.py", OldText: "retries = 3\n", NewText: "retries = 5\n"}}
	res = Resolve(blocks, files, Options{})
	if len(res.Failures) != 0 || len(res.Hunks) != 2 {
		t.Fatalf("two blocks for two copies: %+v", res)
	}
}

func TestEqualMatchesClaimNeedsALaterEdit(t *testing.T) {
	// An earlier edit's old text does not claim a copy: it has been
	// applied already, and the copy it covered is the text it left.
	files := mapFiles{"c.txt": "a\nb\nhead\na\nb\n"}
	edits := []Edit{
		{Kind: KindEdit, Path: "c.txt", OldText: "head\na\nb\n", NewText: "head\na\nb\nc\n"},
		{Kind: KindEdit, Path: "c.txt", OldText: "a\nb\n", NewText: "A\nB\n"},
	}
	res := Resolve(edits, files, Options{})
	if len(res.Hunks) != 0 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "matches 2 places") {
		t.Fatalf("an earlier edit chose the copy: %+v", res)
	}
}
