// Package editcorpus drives every case of the edit corpus
// (tests/testdata/editapply, and AIDE_EDIT_CORPUS=DIR when set) end to end
// through the binary: `aide-lsp run --one-call --apply --allow-unplanned`
// in a temporary workspace, against the wire-level OpenAI fake answering
// with the case's reply (its text, or its tool calls as native calls). It
// prints three figures: recoverable (and no-op) answers that ended right,
// dangerous answers refused with a reason, and wrong applies; it fails on
// any wrong apply.
//
// The fake gives the same answer to every retry (a model that repeats
// itself), so an answer that stays broken is what --apply sees to the end.
package editcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/editcorpus/editcase"
)

const corpusDir = "../testdata/editapply"

type corpusCase struct {
	name, file string
	label      string
	in, want   map[string]string
	answer     *string
	calls      []model.ToolCall
	deleted    map[string]bool
	renamed    map[string]string
}

func load(t *testing.T) []corpusCase {
	t.Helper()
	cases, err := editcase.Load(corpusDir)
	if err != nil {
		t.Fatalf("the corpus in %s: %v", corpusDir, err)
	}
	if extra := os.Getenv("AIDE_EDIT_CORPUS"); extra != "" {
		more, err := editcase.Load(extra)
		if err != nil {
			t.Fatalf("AIDE_EDIT_CORPUS=%s: %v", extra, err)
		}
		cases = append(cases, more...)
	}
	var out []corpusCase
	for _, k := range cases {
		out = append(out, convert(k))
	}
	return out
}

// convert turns a parsed archive into a case to run.
func convert(k editcase.Case) corpusCase {
	// A held-back set may carry sections of its own: they are ignored.
	c := corpusCase{name: k.Name, file: k.File, label: k.Label, in: k.In, want: k.Want, answer: k.Answer,
		deleted: map[string]bool{}, renamed: map[string]string{}}
	for _, call := range k.Calls {
		c.calls = append(c.calls, model.ToolCall{ID: fmt.Sprintf("call_%d", len(c.calls)+1), Name: call.Tool, Arguments: strings.TrimSpace(call.Arguments)})
	}
	for _, d := range k.Deleted {
		c.deleted[d] = true
	}
	for _, r := range k.Renamed {
		c.renamed[r[0]] = r[1]
	}
	if c.label == "" { // a held-back set may leave it implicit
		switch {
		case k.HasFail:
			c.label = "refuse"
		case len(c.want) == 0 && len(c.deleted) == 0 && len(c.renamed) == 0:
			c.label = "noop"
		default:
			c.label = "recoverable"
		}
	}
	return c
}

var build struct {
	sync.Once
	bin, dir string
	err      error
	out      []byte
}

func binary(t *testing.T) string {
	t.Helper()
	build.Do(func() {
		touchSources()
		build.dir, build.err = os.MkdirTemp("", "aide-editcorpus")
		if build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "aide-lsp")
		build.out, build.err = exec.Command("go", "build", "-o", build.bin, "github.com/aide-lsp/aide-lsp/cmd/aide-lsp").CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("go build ./cmd/aide-lsp: %v\n%s", build.err, build.out)
	}
	return build.bin
}

// touchSources opens every Go file of the module: go test's cache keys a
// result on the files a test opens, and the binary is built from these, so
// a change to editapply reruns the corpus instead of replaying a result.
func touchSources() {
	_ = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != "../..") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") && !strings.HasSuffix(p, "_test.go") {
			if f, err := os.Open(p); err == nil {
				f.Close()
			}
		}
		return nil
	})
}

// runFlags are the flags every case runs with. --allow-unplanned: a one-call
// run has no plan to name its files. --allow-sensitive: several cases edit a
// Makefile, a CI workflow or package.json, which --apply otherwise refuses
// whatever the edit (that rule has its own tests in tests/abuse); the corpus
// measures how an answer's edits are read and matched.
func runFlags(*testing.T) []string {
	return []string{"run", "--one-call", "--apply", "--allow-unplanned", "--allow-sensitive"}
}

type outcome int

const (
	right   outcome = iota // recoverable or noop: the files are exactly as expected
	refused                // refuse: unchanged, and the run said why (exit 1)
	missed                 // unchanged where a change was recoverable, or refused without a reason
	wrong                  // a changed file that is not an expected result
)

func TestCorpusThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary for every case")
	}
	cases := load(t)
	bin := binary(t)
	var mu sync.Mutex
	results := map[string]outcome{}
	labels := map[string]string{}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				o, why := runCase(t, bin, c)
				mu.Lock()
				results[c.name], labels[c.name] = o, c.label
				mu.Unlock()
				switch o {
				case wrong:
					t.Errorf("WRONG APPLY (%s, %s): %s", c.label, c.file, why)
				case missed:
					t.Logf("not right (%s): %s", c.label, why)
				}
			})
		}
	})
	var okRec, nRec, okRef, nRef, nWrong int
	var notRight []string
	for name, o := range results {
		switch labels[name] {
		case "refuse":
			nRef++
			if o == refused {
				okRef++
			}
		default:
			nRec++
			if o == right {
				okRec++
			}
		}
		if o == wrong {
			nWrong++
		}
		if o == missed {
			notRight = append(notRight, name)
		}
	}
	sort.Strings(notRight)
	t.Logf("edit corpus through `aide-lsp %s`: %d cases", strings.Join(runFlags(t), " "), len(results))
	t.Logf("recoverable or no-op answers right: %d of %d (%.1f%%)", okRec, nRec, pct(okRec, nRec))
	t.Logf("dangerous answers refused with a reason: %d of %d (%.1f%%)", okRef, nRef, pct(okRef, nRef))
	t.Logf("wrong applies: %d", nWrong)
	if len(notRight) > 0 {
		t.Logf("not right: %s", strings.Join(notRight, ", "))
	}
	fmt.Printf("editcorpus: recoverable right %d/%d, dangerous refused %d/%d, wrong applies %d\n", okRec, nRec, okRef, nRef, nWrong)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// runCase runs one case through the binary and judges the files afterwards.
func runCase(t *testing.T, bin string, c corpusCase) (outcome, string) {
	got, code, stderr := runBinary(t, bin, c)
	return judge(c, got, code, stderr)
}

// runBinary runs the binary on the case's workspace with its answer and
// returns the workspace afterwards, the exit code and stderr.
func runBinary(t *testing.T, bin string, c corpusCase) (map[string]string, int, string) {
	reply := modeltest.Reply{}
	if c.answer != nil {
		reply.Text = *c.answer
	}
	reply.ToolCalls = c.calls
	if reply.Text == "" && len(reply.ToolCalls) == 0 {
		reply.Text = "Nothing to change."
	}
	// The same answer to the first call and every retry.
	srv := modeltest.NewOpenAI(t, reply, reply, reply, reply, reply)
	root := t.TempDir()
	for p, content := range c.in {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ := json.Marshal(map[string]any{
		"architectModel": "fake/big", "editorModel": "fake/small",
		"providers": map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": srv.BaseURL()}},
	})
	home := t.TempDir()
	xdgConfig, xdgState := filepath.Join(home, "config"), filepath.Join(home, "state")
	for _, d := range []string{filepath.Join(root, ".aide"), filepath.Join(xdgConfig, "aide-lsp"), xdgState} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The workspace file works today; the user-level file is where
	// provider definitions live once workspace files may not define them.
	for _, f := range []string{filepath.Join(root, ".aide", "config.json"), filepath.Join(xdgConfig, "aide-lsp", "config.json")} {
		if err := os.WriteFile(f, cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIDE_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+xdgConfig, "XDG_STATE_HOME="+xdgState)
	args := append(runFlags(t), "--dir", root, "carry out the change the answer describes")
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	got := readTree(t, root)
	if code == 2 {
		t.Fatalf("usage or configuration error (exit 2): %s", stderr.String())
	}
	return got, code, stderr.String()
}

// judge says how a case ended from the workspace afterwards.
func judge(c corpusCase, got map[string]string, code int, stderr string) (outcome, string) {
	diffs := changes(c.in, got)
	expected := expect(c)
	switch c.label {
	case "refuse", "noop":
		if len(diffs) > 0 {
			return wrong, fmt.Sprintf("files changed: %s (exit %d)\n%s", strings.Join(diffs, ", "), code, tail(stderr))
		}
		if c.label == "noop" {
			return right, ""
		}
		if code == 0 {
			return missed, "unchanged but the run exited 0 without saying why"
		}
		return refused, ""
	}
	if sameTree(got, expected) {
		return right, ""
	}
	if len(diffs) == 0 {
		return missed, fmt.Sprintf("files unchanged (exit %d): %s", code, tail(stderr))
	}
	var bad []string
	for _, p := range diffs {
		if w, ok := expected[p]; !ok || got[p] != w {
			if !(ok || !exists(got, p)) || ok && got[p] != w {
				bad = append(bad, p)
			} else if !ok {
				bad = append(bad, p)
			}
		}
	}
	if len(bad) == 0 {
		// Some expected changes are missing but nothing is wrong.
		return missed, fmt.Sprintf("only part of the expected change (exit %d)", code)
	}
	return wrong, fmt.Sprintf("%s differ from the expected result (exit %d)\n%s", strings.Join(bad, ", "), code, tail(stderr))
}

func exists(m map[string]string, p string) bool { _, ok := m[p]; return ok }

// expect is the workspace a recoverable case must end with.
func expect(c corpusCase) map[string]string {
	out := map[string]string{}
	for p, s := range c.in {
		out[p] = s
	}
	for p, s := range c.want {
		out[p] = s
	}
	for p := range c.deleted {
		delete(out, p)
	}
	for from, to := range c.renamed {
		if s, ok := out[from]; ok {
			out[to] = s
			delete(out, from)
		}
	}
	return out
}

// changes lists the paths whose content or presence differs from before.
func changes(before, after map[string]string) []string {
	var out []string
	for p, s := range after {
		if b, ok := before[p]; !ok || b != s {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for p, s := range a {
		if t, ok := b[p]; !ok || t != s {
			return false
		}
	}
	return true
}

// readTree reads every file of the workspace but aide's own .aide folder.
func readTree(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".aide" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return strings.Join(lines, "\n")
}

// An answer with a good edit of one file and a failed edit of another (two
// units) that the editor never fixes: the good unit is proposed, but
// run --apply writes nothing and exits 1, so no part of the answer is
// applied alone. (The package corpus test cannot hold this case: Resolve
// alone rightly proposes the good unit.)
func TestApplyNeverWritesPartOfAnAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	ts := "export const VERSION = \"1.0\";\n"
	py := "def f():\n    return 1\n"
	c := corpusCase{name: "partial", label: "refuse",
		in: map[string]string{"src/api.ts": ts, "svc/f.py": py}, want: map[string]string{},
		deleted: map[string]bool{}, renamed: map[string]string{},
		calls: []model.ToolCall{
			{ID: "c1", Name: "edit_file", Arguments: `{"path": "src/api.ts", "old_text": "export const VERSION = \"1.0\";", "new_text": "export const VERSION = \"1.1\";"}`},
			{ID: "c2", Name: "edit_file", Arguments: `{"path": "svc/f.py", "old_text": "def g():\n    return 2\n", "new_text": "def g():\n    return 3\n"}`},
		}}
	if o, why := runCase(t, binary(t), c); o != refused {
		t.Fatalf("outcome %d, want the answer refused whole: %s", o, why)
	}
}
