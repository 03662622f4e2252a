package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/clienttext"
)

// BenchmarkBorderOnCodeActionReply is the client border's cost on the
// reply users wait for most (contract §8, "The border"): a codeAction
// answer with a 60-line hunk's edit, its diagnostic and six actions. The
// yardstick in the same run is encoding the same reply, which every
// message pays anyway.
func BenchmarkBorderOnCodeActionReply(b *testing.B) {
	var body strings.Builder
	for i := range 60 {
		fmt.Fprintf(&body, "\tif err := step%d(ctx, req); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	doc := "file:///work/shop/cart/cart.go"
	diag := map[string]any{"message": "AIDE: step 2 of the plan — accept or reject (h3)", "source": "aide", "severity": 3,
		"range": map[string]any{"start": map[string]int{"line": 40, "character": 0}, "end": map[string]int{"line": 100, "character": 0}}}
	edit := map[string]any{"changes": map[string]any{doc: []any{map[string]any{"newText": body.String(), "range": diag["range"]}}}}
	var actions []any
	for _, title := range []string{TitleArchitect, TitleEdit, "AIDE: Accept h3", "AIDE: Reject h3", "AIDE: Accept all in cart.go", "AIDE: Undo refactor checkout"} {
		a := map[string]any{"title": title, "kind": "quickfix", "diagnostics": []any{diag}}
		if strings.Contains(title, "Accept h3") {
			a["edit"] = edit
		}
		actions = append(actions, a)
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": 7, "result": actions}
	data, err := json.Marshal(reply)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := json.Marshal(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("border", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := clienttext.JSON(data, lspKind); err != nil {
				b.Fatal(err)
			}
		}
	})
}
