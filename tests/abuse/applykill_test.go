package abuse_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// TestKill9DuringApply: the real `aide-lsp run --apply` is killed with
// SIGKILL after its first, middle and last temporary file and after its
// first rename (AIDE_TEST_KILL_APPLY: the process kills itself there, so no
// timing picks the moment). After each kill every file is wholly as before
// or wholly as after, and the next run removes every .aide-apply-* file
// the kill left (the journal in the user's state folder names them before
// they exist) and applies the change whole.
func TestKill9DuringApply(t *testing.T) {
	const n = 8
	var calls []model.ToolCall
	var planLines []string
	old := func(i int) string {
		return fmt.Sprintf("package m\n\n// F%d is old.\nfunc F%d() int { return %d }\n", i, i, i)
	}
	want := func(i int) string {
		return fmt.Sprintf("package m\n\n// F%d is new.\nfunc F%d() int { return %d }\n", i, i, i*10)
	}
	for i := range n {
		calls = append(calls, writeCall(fmt.Sprintf("c%d", i), fmt.Sprintf("f%d.go", i), want(i)))
		planLines = append(planLines, fmt.Sprintf("%d. Rewrite f%d.go so that F%d returns %d.", i+1, i, i, i*10))
	}
	plan := strings.Join(planLines, "\n")
	for _, at := range []string{"temp:1", fmt.Sprintf("temp:%d", n/2), fmt.Sprintf("temp:%d", n), "rename:1"} {
		t.Run(at, func(t *testing.T) {
			root, xdg := t.TempDir(), t.TempDir()
			for i := range n {
				writeFile(t, root, fmt.Sprintf("f%d.go", i), old(i))
			}
			stderr, err := runApplyKilled(t, xdg, root, plan, calls, at)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
				t.Fatalf("the run was not killed at %s (%v):\n%s", at, err, stderr)
			}
			newFiles := 0
			for i := range n {
				switch string(mustRead(t, filepath.Join(root, fmt.Sprintf("f%d.go", i)))) {
				case want(i):
					newFiles++
				case old(i):
				default:
					t.Errorf("f%d.go is neither before nor after the apply", i)
				}
			}
			if strings.HasPrefix(at, "temp:") && newFiles != 0 || at == "rename:1" && newFiles != 1 {
				t.Errorf("killed at %s, %d files changed", at, newFiles)
			}
			if len(applyTemps(t, root)) == 0 && strings.HasPrefix(at, "temp:") {
				t.Errorf("killed at %s, no temporary file was left: the kill did not land in the temporary-file phase", at)
			}
			// The next run: what the kill left is removed, the apply is whole.
			stderr, code := runApplyIn(t, xdg, root, plan, calls, "--allow-sensitive")
			if code != 0 || !strings.Contains(stderr, "apply") {
				t.Fatalf("the run after the kill: exit %d\n%s", code, stderr)
			}
			if left := applyTemps(t, root); len(left) > 0 {
				t.Errorf("temporary files left after the next run: %v\n%s", left, stderr)
			}
			for i := range n {
				if got := string(mustRead(t, filepath.Join(root, fmt.Sprintf("f%d.go", i)))); got != want(i) {
					t.Errorf("f%d.go after the next run: %q", i, got)
				}
			}
		})
	}
}

// runApplyKilled is runApplyIn with AIDE_TEST_KILL_APPLY=at: the run kills
// itself with SIGKILL there.
func runApplyKilled(t *testing.T, xdg, root, plan string, calls []model.ToolCall, at string) (string, error) {
	t.Helper()
	fake := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n" + plan + "\n## End Plan\n"}, modeltest.Reply{ToolCalls: calls})
	writeFile(t, xdg, "config/aide-lsp/config.json", `{"providers":{"fake":{"kind":"openai","baseURL":"`+fake.BaseURL()+`"}},"architectModel":"fake/m"}`)
	cmd := exec.Command(binary(t), "run", "--dir", root, "--apply", "--allow-sensitive", "make A return 10")
	cmd.Env = baseEnv("XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "AIDE_TEST_KILL_APPLY="+at)
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	return errb.String(), err
}

// applyTemps lists the .aide-apply-* files anywhere under root.
func applyTemps(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".aide-apply-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}
