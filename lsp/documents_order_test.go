package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// insertAt is a content change inserting text at line 0, char.
func insertAt(char uint32, text string) []contentChange {
	at := protocol.Position{Line: 0, Character: char}
	return []contentChange{{Range: &protocol.Range{Start: at, End: at}, Text: text}}
}

// TestChangeConsecutiveOrder: changes that arrive before their predecessor
// are applied in version order; a version that never arrives holds the
// text back for a few changes only, then the rest applies in order.
func TestChangeConsecutiveOrder(t *testing.T) {
	d := newDocuments()
	const u = "file:///w/a.txt"
	d.Open(u, "plaintext", 0, "abc")
	text := func() string { doc, _ := d.Get(u); return doc.Text }

	if _, _, applied, err := d.ChangeConsecutive(u, 2, insertAt(2, "Y"), editapply.UTF16); err != nil || applied {
		t.Fatalf("version 2 before 1: applied %v, err %v; want held", applied, err)
	}
	if _, now, applied, _ := d.ChangeConsecutive(u, 1, insertAt(1, "X"), editapply.UTF16); !applied || now != 2 || text() != "aXYbc" {
		t.Fatalf("after version 1: %q at version %d, want \"aXYbc\" at 2", text(), now)
	}

	// Version 3 never comes: after maxHeldChanges held ones, they apply.
	for v := int32(4); v < 4+maxHeldChanges; v++ {
		d.ChangeConsecutive(u, v, insertAt(0, "-"), editapply.UTF16)
	}
	if text() != "aXYbc" {
		t.Fatalf("held changes applied early: %q", text())
	}
	if _, now, applied, _ := d.ChangeConsecutive(u, 4+maxHeldChanges, insertAt(0, "-"), editapply.UTF16); !applied ||
		now != 4+maxHeldChanges || text() != strings.Repeat("-", maxHeldChanges+1)+"aXYbc" {
		t.Fatalf("a gap that does not fill: %q at version %d (applied %v)", text(), now, applied)
	}
}
