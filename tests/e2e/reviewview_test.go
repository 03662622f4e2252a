package e2e

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// codeActionProfiles review proposals as diagnostics and code actions.
var codeActionProfiles = []string{"neovim-0.7", "neovim-0.10", "neovim-0.12", "helix-25.1", "helix-25.07"}

// TestProposalShowsItsChange: each proposal diagnostic says what its hunk
// changes to, and hover on it shows the hunk's diff in a ```diff block, so
// Helix and Neovim users review a change where it is.
func TestProposalShowsItsChange(t *testing.T) {
	for _, profile := range codeActionProfiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(greetEdit)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			diags := e.diagnostics(2)
			var greet fakeeditor.Diagnostic
			for _, d := range diags {
				if strings.Contains(d.Message, "remove the AI comment") {
					if !strings.Contains(d.Message, "(lines removed)") {
						t.Errorf("the AI comment's diagnostic does not say it removes lines: %q", d.Message)
					}
					continue
				}
				greet = d
			}
			if !strings.Contains(greet.Message, `→ return "hello"`) {
				t.Fatalf("the change's diagnostic does not show its new line: %q", greet.Message)
			}
			var hover struct {
				Contents struct {
					Kind  string `json:"kind"`
					Value string `json:"value"`
				} `json:"contents"`
			}
			params := map[string]any{"textDocument": map[string]any{"uri": e.ed.URI("main.go")}, "position": greet.Range.Start}
			if err := e.ed.Call("textDocument/hover", params, &hover); err != nil {
				t.Fatal(err)
			}
			v := hover.Contents.Value
			if hover.Contents.Kind != "markdown" || !strings.Contains(v, "```diff\n") ||
				!strings.Contains(v, "-\treturn \"hi\"\n") || !strings.Contains(v, "+\treturn \"hello\"\n") || !strings.Contains(v, hunkOf(greet)) {
				t.Errorf("hover on the pending hunk:\n%s", v)
			}
			// Nowhere near a hunk: no hover of ours.
			var none any
			params["position"] = map[string]any{"line": 0, "character": 0}
			if err := e.ed.Call("textDocument/hover", params, &none); err != nil || none != nil {
				t.Errorf("hover away from the hunks: %v, %v; want null", none, err)
			}
		})
	}
}

// TestAcceptAllWithTheCommentRightAbove: the AI comment's removal sits
// right above an edited line; accept-all lands both and none is judged
// stale, whether the editor reports the edit as the whole text (Helix) or
// change by change (Neovim's incremental didChange).
func TestAcceptAllWithTheCommentRightAbove(t *testing.T) {
	sig := editCall("main.go", "func greet() string {\n", "func greet() (greeting string) {\n")
	for _, profile := range codeActionProfiles {
		t.Run(profile, func(t *testing.T) {
			e := start(t, profile, envOptions{replies: replies(sig)})
			session := e.toPlan(profile)
			e.approveInPlanFile(session, nil)
			diags := e.diagnostics(2)
			e.pickOn(diags[0], "AIDE: Accept all 2 changes") // fails the test if aide.accept answers an error
			e.waitEvent(session, "done")
			want := strings.Replace(strings.Replace(mainGo, "// AI: make greet say hello\n// and keep it short\n", "", 1),
				"func greet() string {", "func greet() (greeting string) {", 1)
			if got := e.ed.Text("main.go"); got != want {
				t.Errorf("main.go:\n%s\nwant:\n%s", got, want)
			}
			if acc, stale := e.hunksOf(session, "accepted"), e.hunksOf(session, "stale"); len(acc) != 2 || len(stale) != 0 {
				t.Errorf("accepted %v, stale %v; want both accepted", acc, stale)
			}
		})
	}
}
