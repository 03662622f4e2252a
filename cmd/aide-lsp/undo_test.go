package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// undoFolder is a workspace whose run --apply edits, creates, renames and
// deletes files (CRLF and bytes that are not UTF-8 included), with extra
// files edited too (n of them) so an apply has many renames.
func undoFolder(t *testing.T, n int) (string, []modeltest.Reply) {
	t.Helper()
	dir, _ := runFolder(t)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "first line\r\nsecond line\r\n")
	write("old.txt", "to be moved\n")
	write("gone.bin", "\xff\xfe\x00 raw bytes\n")
	var calls []model.ToolCall
	call := func(name string, args map[string]string) {
		b, _ := json.Marshal(args)
		calls = append(calls, model.ToolCall{ID: fmt.Sprintf("c%d", len(calls)+1), Name: name, Arguments: string(b)})
	}
	plan := "## Plan\n1. In main.go, greet the world.\n2. In notes.txt, change the second line.\n3. Create new.go.\n4. Rename old.txt to moved.txt.\n5. Delete gone.bin.\n"
	call("edit_file", map[string]string{"path": "main.go", "old_text": "fmt.Println(\"hello\")", "new_text": "fmt.Println(\"hello, world\")"})
	call("edit_file", map[string]string{"path": "notes.txt", "old_text": "second line", "new_text": "second line, changed"})
	call("write_file", map[string]string{"path": "new.go", "content": "package main\n\nfunc helper() {}\n"})
	call("rename_file", map[string]string{"path": "old.txt", "new_path": "moved.txt"})
	call("delete_file", map[string]string{"path": "gone.bin"})
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%02d.txt", i)
		write(name, fmt.Sprintf("file %d\nline two\n", i))
		plan += fmt.Sprintf("%d. In %s, change line two.\n", 6+i, name)
		call("edit_file", map[string]string{"path": name, "old_text": "line two", "new_text": "line 2"})
	}
	return dir, []modeltest.Reply{{Text: plan + "## End Plan\n"}, {ToolCalls: calls}}
}

// tree reads every file of dir but .aide/, by relative path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".aide" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func applyRunFor(t *testing.T, dir string, replies []modeltest.Reply) {
	t.Helper()
	srv := modeltest.NewOpenAI(t, replies...)
	withProviders(t, srv.BaseURL())
	var out, errb bytes.Buffer
	if code := runRun([]string{"--dir", dir, "--apply", "greet the world and tidy up"}, &out, &errb); code != exitOK {
		t.Fatalf("run --apply: exit %d\n%s", code, errb.String())
	}
	// run records its hunks before it writes them; the engine's record of
	// the accept adds nothing to it, and says nothing.
	if strings.Contains(errb.String(), "cannot be undone") {
		t.Fatalf("run --apply says its change cannot be undone:\n%s", errb.String())
	}
}

// withProviders points the user's config at a model fake, keeping the
// state folder the test already set.
func withProviders(t *testing.T, baseURL string) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{
		"architectModel": "fake/big", "editorModel": "fake/small",
		"providers": map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": baseURL}},
	})
	p := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "aide-lsp", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
}

func undoCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runUndo(args, &out, &errb)
	return code, out.String(), errb.String()
}

var undoIDRe = regexp.MustCompile(`'aide-lsp undo ([0-9a-f-]+)' brings it back`)

func TestUndoRestoresWhatRunApplyWroteByteForByte(t *testing.T) {
	dir, replies := undoFolder(t, 2)
	before := tree(t, dir)
	applyRunFor(t, dir, replies)
	after := tree(t, dir)
	if after["new.go"] == "" || after["moved.txt"] != "to be moved\n" || after["notes.txt"] != "first line\r\nsecond line, changed\r\n" {
		t.Fatalf("run --apply wrote %v", after)
	}
	if _, ok := after["gone.bin"]; ok {
		t.Fatal("gone.bin was not deleted")
	}
	// Nothing of the record is under the workspace.
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_STATE_HOME"), "aide-lsp", "undo")); err != nil {
		t.Fatalf("no undo record in the state folder: %v", err)
	}

	code, _, errs := undoCmd("--dir", dir)
	if code != exitOK {
		t.Fatalf("undo: exit %d\n%s", code, errs)
	}
	if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after undo:\n%q\nwant\n%q", got, before)
	}
	// Nothing left to undo: a clear refusal, nothing written.
	if code, _, errs2 := undoCmd("--dir", dir); code != exitFailed || !strings.Contains(errs2, "no 'aide-lsp run --apply' to undo") {
		t.Fatalf("second undo: exit %d\n%s", code, errs2)
	}
	// The undo is undoable: undoing it brings back what run --apply wrote.
	if code, out, _ := undoCmd("--dir", dir, "--list"); code != exitOK || !strings.Contains(out, " run ") || !strings.Contains(out, " undo ") || !strings.Contains(out, "0/") {
		t.Fatalf("undo --list: exit %d\n%s", code, out)
	}
	m := undoIDRe.FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("no id of the undo in:\n%s", errs)
	}
	if code, _, errs := undoCmd("--dir", dir, m[1]); code != exitOK {
		t.Fatalf("undo of the undo: exit %d\n%s", code, errs)
	}
	if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(after) {
		t.Fatalf("after undoing the undo:\n%q\nwant\n%q", got, after)
	}
	// And the apply can be undone again.
	if code, _, errs := undoCmd("--dir", dir); code != exitOK {
		t.Fatalf("undo after redo: exit %d\n%s", code, errs)
	}
	if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after the second undo:\n%q", got)
	}
}

func TestUndoRefusesWhenAFileChangedSince(t *testing.T) {
	dir, replies := undoFolder(t, 0)
	before := tree(t, dir)
	applyRunFor(t, dir, replies)
	mine := strings.Replace(tree(t, dir)["main.go"], "package main", "package main // mine", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := tree(t, dir)
	code, _, errs := undoCmd("--dir", dir)
	if code != exitFailed || !strings.Contains(errs, "main.go: changed since") || !strings.Contains(errs, "nothing was written") || !strings.Contains(errs, "--force") {
		t.Fatalf("undo over a changed file: exit %d\n%s", code, errs)
	}
	if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(changed) {
		t.Fatalf("a refused undo wrote files:\n%q", got)
	}
	code, _, errs = undoCmd("--dir", dir, "--force")
	if code != exitOK {
		t.Fatalf("undo --force: exit %d\n%s", code, errs)
	}
	if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after undo --force:\n%q\nwant\n%q", got, before)
	}
}

func TestUndoUsage(t *testing.T) {
	withUserConfig(t, nil)
	dir := t.TempDir()
	if code, out, _ := undoCmd("-h"); code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--force") {
		t.Fatalf("-h: exit %d\n%s", code, out)
	}
	if code, _, errs := undoCmd("--dir", dir, "20260101-000000-abcdef"); code != exitUsage || !strings.Contains(errs, "--list") {
		t.Fatalf("unknown session: exit %d\n%s", code, errs)
	}
	if code, _, errs := undoCmd("--dir", dir); code != exitFailed || !strings.Contains(errs, "no 'aide-lsp run --apply' to undo") {
		t.Fatalf("nothing to undo: exit %d\n%s", code, errs)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	if code, _, errs := undoCmd("--dir", dir); code != exitUsage || !strings.Contains(errs, "inside the workspace") {
		t.Fatalf("state folder in the workspace: exit %d\n%s", code, errs)
	}
}

// A kill at any moment of an undo leaves every file as it was before the
// undo or as the undo writes it (the writer's journal), and running the
// undo again finishes it. The kill comes at varied moments; whatever the
// moment, the same must hold, so the test does not depend on timing.
func TestUndoKilledLeavesEveryFileBeforeOrAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir, replies := undoFolder(t, 30)
	before := tree(t, dir)
	applyRunFor(t, dir, replies)
	after := tree(t, dir)
	state := os.Getenv("XDG_STATE_HOME")
	saved := t.TempDir()
	copyTree(t, state, saved)
	for i := 0; i < 8; i++ {
		// Back to the apply's result, with its record as it was.
		resetTree(t, dir, after)
		os.RemoveAll(state)
		copyTree(t, saved, state)

		argJSON, _ := json.Marshal([]string{"undo", "--dir", dir})
		cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelperProcess$") // it runs dispatch on the arguments
		cmd.Env = append(os.Environ(), serveHelperEnv+"="+string(argJSON))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i*i) * 5 * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		got := tree(t, dir)
		for p, c := range got {
			if strings.Contains(p, ".aide-apply-") {
				continue // a temporary file; the next start removes it
			}
			if c != before[p] && c != after[p] {
				t.Fatalf("kill %d: %s is neither before nor after the undo: %q", i, p, c)
			}
			if _, b := before[p]; !b {
				if _, a := after[p]; !a {
					t.Fatalf("kill %d: %s is new", i, p)
				}
			}
		}
		// Running it again finishes the undo.
		if code, _, errs := undoCmd("--dir", dir); code != exitOK && !strings.Contains(errs, "no 'aide-lsp run --apply' to undo") {
			t.Fatalf("kill %d: undo again: exit %d\n%s", i, code, errs)
		}
		if got := tree(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("kill %d: after the second undo:\n%q", i, got)
		}
	}
}

func resetTree(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for p := range tree(t, dir) {
		if _, ok := want[p]; !ok {
			os.Remove(filepath.Join(dir, p))
		}
	}
	for p, c := range want {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
