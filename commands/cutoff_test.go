package commands_test

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// An editor answer that stopped at the output limit (finish_reason
// "length") may stop between two blocks: what came reads as whole and
// passes every check, and the rest of the change is missing. Nothing of
// such an answer is applied, and the reason names the limit.
func TestEditorAnswerCutOffAtTheLimitIsNotApplied(t *testing.T) {
	cut := modeltest.Reply{Text: "main.go\n<<<<<<< SEARCH\n\tfmt.Println(\"hello\")\n=======\n\tfmt.Println(\"hello, world\")\n>>>>>>> REPLACE\n\nmain.go\n", StopReason: "length"}
	e := newEnv(t, envOpts{files: map[string]string{"main.go": mainGo},
		archReplies: []modeltest.Reply{{Text: plan("1. In `main.go`, print \"hello, world\".")}, cut, cut, cut, cut, cut}})
	res, err := e.headless(commands.HeadlessOptions{Task: "greet the world", Files: []string{"main.go"}, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.read("main.go"); got != mainGo {
		t.Fatalf("main.go changed by a cut-off answer:\n%s", got)
	}
	if len(res.Applied) != 0 || !strings.Contains(res.Problem+" "+res.Reason, "output limit") {
		t.Fatalf("applied %v, problem %q, reason %q: want nothing applied and the output limit named", res.Applied, res.Problem, res.Reason)
	}
}
