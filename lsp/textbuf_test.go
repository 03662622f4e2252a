package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// pieces are what the random edits insert: line breaks of every kind
// (a lone '\r' too, and halves of "\r\n"), multi-byte and astral runes.
var pieces = []string{"a", "bc", "\n", "\r", "\r\n", "漢", "😀", "x\ny", "", "\n\n", "é"}

// TestTextBufferMatchesStringEdits replays random edits on a textBuffer and
// on a plain string (what the store did before), checking after each that
// the text, the line index and every position conversion agree with
// editapply on the whole text.
func TestTextBufferMatchesStringEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		var sb strings.Builder
		for range rng.IntN(30) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		want := sb.String()
		b := newTextBuffer(want)
		for step := range 150 {
			enc := []editapply.Encoding{editapply.UTF16, editapply.UTF8, editapply.UTF32}[rng.IntN(3)]
			lines := strings.Count(want, "\n") + strings.Count(want, "\r") + 2
			p1 := editapply.Pos{Line: rng.IntN(lines+1) - 1, Char: rng.IntN(8) - 1}
			p2 := editapply.Pos{Line: p1.Line + rng.IntN(3), Char: rng.IntN(8)}
			for _, p := range []editapply.Pos{p1, p2} {
				if got, exp := b.offset(p, enc), editapply.PosToOffset(want, p, enc); got != exp {
					t.Fatalf("round %d step %d: offset(%v, %s) of %q = %d, want %d", round, step, p, enc, want, got, exp)
				}
			}
			from, to := editapply.PosToOffset(want, p1, enc), editapply.PosToOffset(want, p2, enc)
			if to < from {
				from, to = to, from
			}
			ins := pieces[rng.IntN(len(pieces))]
			want = want[:from] + ins + want[to:]
			b.replace(from, to, ins)
			if rng.IntN(4) == 0 { // read sometimes (the cache must follow)
				if got := b.String(); got != want {
					t.Fatalf("round %d step %d: text %q, want %q", round, step, got, want)
				}
			}
			checkIndex(t, b, want)
		}
		if got := b.String(); got != want {
			t.Fatalf("round %d: text %q, want %q", round, got, want)
		}
	}
}

func checkIndex(t *testing.T, b *textBuffer, want string) {
	t.Helper()
	if b.Len() != len(want) {
		t.Fatalf("Len %d, want %d", b.Len(), len(want))
	}
	starts := appendLineStarts([]int{0}, want, 0)
	if fmt.Sprint(b.lines) != fmt.Sprint(starts) {
		t.Fatalf("line starts %v, want %v (text %q)", b.lines, starts, want)
	}
	if lone := countLoneCR(want, len(want)); b.loneCR != lone {
		t.Fatalf("lone CRs %d, want %d (text %q)", b.loneCR, lone, want)
	}
	for lo := 0; lo <= len(starts); lo++ {
		from, to := b.lineSpan(lo, lo+2)
		exp := ""
		if lo < len(starts) {
			end := len(want)
			if lo+2 < len(starts) {
				end = starts[lo+2]
			}
			exp = want[starts[lo]:end]
		}
		if got := b.slice(from, to); got != exp {
			t.Fatalf("lines [%d,%d) %q, want %q", lo, lo+2, got, exp)
		}
	}
}

// TestTextBufferGrowsAndMovesGap types far more than the first gap holds,
// at places that move the gap both ways.
func TestTextBufferGrowsAndMovesGap(t *testing.T) {
	want := strings.Repeat("line\n", 3000)
	b := newTextBuffer(want)
	for i := range 2000 {
		at := (i * 7919) % (len(want) + 1)
		ins := strings.Repeat("z", i%300)
		if i%5 == 0 {
			ins += "\n"
		}
		want = want[:at] + ins + want[at:]
		b.replace(at, at, ins)
	}
	if got := b.String(); got != want {
		t.Fatal("text differs after 2,000 insertions")
	}
	checkIndex(t, b, want)
}

// TestFindAICommentWindowMatchesWholeText: the AI comment a codeAction
// finds from the lines around the cursor is the one commands.FindAIComment
// finds in the whole text, on blocks longer than any bound it applies.
func TestFindAICommentWindowMatchesWholeText(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "big.go")
	var sb strings.Builder
	for block := range 12 {
		fmt.Fprintf(&sb, "func f%d() {}\n", block)
		fmt.Fprintf(&sb, "// AI: task number %d\n", block)
		for i := range block * 12 {
			fmt.Fprintf(&sb, "// more of task %d, line %d\n", block, i)
		}
		sb.WriteString("\n")
	}
	sb.WriteString("// AI: the last line, no newline")
	text := sb.String()
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	if _, err := s.docs.Open(string(uri.File(abs)), "go", 1, text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(text, "\n") + 1
	for line := -2; line < lines+aiCommentReach+3; line++ {
		want, wantOK := commands.FindAIComment(abs, text, line)
		got, gotOK := s.findAIComment(abs, line)
		if got != want || gotOK != wantOK {
			t.Fatalf("line %d: window found %+v %v, whole text %+v %v", line, got, gotOK, want, wantOK)
		}
	}
}
