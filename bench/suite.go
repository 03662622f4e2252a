// Package bench is the harness of `aide-lsp bench` (docs/bench.md): it loads a
// task suite, runs every task through the same engine as `aide-lsp run
// --apply` on a fresh copy of its files, decides success with the task's
// check command, and reports pass rates, edit quality, tokens, cost and time
// per mode and model pair — counted from the session events the engine
// writes, never from what the harness believes happened.
//
// A suite is a folder of task folders. Each task folder holds task.json, the
// starting files under start/, and a reference solution, solution.txtar (an
// overlay: every file in it replaces or adds that file). The reference
// solution is a txtar file rather than a folder so that Go tooling in the
// repository never compiles half a task module.
package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/tools/txtar"
)

// Task is one task of the suite, as task.json describes it.
type Task struct {
	Name        string   `json:"name"`
	Language    string   `json:"language"`    // go, python or typescript
	Kind        string   `json:"kind"`        // fix, rename, extract, add-param, new-file
	Instruction string   `json:"instruction"` // the task as a user would type it
	Files       []string `json:"files"`       // focus files, relative to start/
	Check       []string `json:"check"`       // argv run in the copy; exit 0 is success
	Timeout     int      `json:"timeout"`     // seconds the check may take; 0: DefaultCheckTimeout
	// Tests are the files that hold the check's tests. They are put back as
	// they were before the check runs, so an edit to a test cannot pass it.
	Tests []string `json:"tests,omitempty"`
	// Requires names programs the check needs besides Check[0] (tsc, node);
	// a run refuses to start when one is missing rather than count it failed.
	Requires []string `json:"requires,omitempty"`

	Dir  string `json:"-"` // the task folder
	Hash string `json:"-"` // content hash of the task folder (task.json, start/, solution.txtar)
}

// DefaultCheckTimeout is the check time limit when task.json sets none: a
// first `go test` on a cold build cache on a busy two-core machine takes
// tens of seconds; two minutes leaves room without letting a hang stall a
// whole suite.
const DefaultCheckTimeout = 120

// maxCheckTimeout bounds task.json's timeout: a typo of 36000 must not park
// a bench for ten hours.
const maxCheckTimeout = 1800

// Suite is a loaded suite.
type Suite struct {
	Dir     string
	Version string // hash of every task (and the suite's package files), 12 hex digits
	Tasks   []Task // sorted by name
}

var taskNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

var languages = map[string]bool{"go": true, "python": true, "typescript": true}

var kinds = map[string]bool{"fix": true, "rename": true, "extract": true, "add-param": true, "new-file": true}

// ParseTask reads a task.json. dirName is the task folder's name, which the
// task's name must equal (so --task NAME and the folder agree).
func ParseTask(data []byte, dirName string) (Task, error) {
	var t Task
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Task{}, fmt.Errorf("task.json: %v", err)
	}
	if dec.More() {
		return Task{}, errors.New("task.json: more than one JSON value")
	}
	switch {
	case !taskNamePattern.MatchString(t.Name):
		return Task{}, fmt.Errorf("task.json: name %q must be lower-case letters, digits, '.', '_' or '-'", t.Name)
	case dirName != "" && t.Name != dirName:
		return Task{}, fmt.Errorf("task.json: name %q differs from its folder %q", t.Name, dirName)
	case !languages[t.Language]:
		return Task{}, fmt.Errorf("task.json: language %q is not go, python or typescript", t.Language)
	case !kinds[t.Kind]:
		return Task{}, fmt.Errorf("task.json: kind %q is not fix, rename, extract, add-param or new-file", t.Kind)
	case strings.TrimSpace(t.Instruction) == "":
		return Task{}, errors.New("task.json: instruction is empty")
	case len(t.Check) == 0 || t.Check[0] == "":
		return Task{}, errors.New("task.json: check is empty (an argv list such as [\"go\", \"test\", \"./...\"])")
	case t.Timeout < 0 || t.Timeout > maxCheckTimeout:
		return Task{}, fmt.Errorf("task.json: timeout %d is not between 0 and %d seconds", t.Timeout, maxCheckTimeout)
	}
	for _, list := range [][]string{t.Files, t.Tests} {
		for _, f := range list {
			if !localPath(f) {
				return Task{}, fmt.Errorf("task.json: %q is not a relative path inside the task", f)
			}
		}
	}
	for _, r := range t.Requires {
		if r == "" || strings.ContainsAny(r, "/\\") {
			return Task{}, fmt.Errorf("task.json: requires %q is not a program name", r)
		}
	}
	if t.Timeout == 0 {
		t.Timeout = DefaultCheckTimeout
	}
	return t, nil
}

// localPath is a slash path that stays inside the folder it is relative to.
func localPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p)) && !strings.Contains(p, "\\") && path.Clean(p) == p
}

// LoadSuite reads every task folder of dir (a folder holding task.json).
// names, when given, picks tasks; an unknown name is an error.
func LoadSuite(dir string, names []string) (*Suite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %v (pass the suite folder with --suite)", dir, err)
	}
	s := &Suite{Dir: abs}
	all := sha256.New()
	for _, e := range entries {
		full := filepath.Join(abs, e.Name())
		if !e.IsDir() {
			// The suite's own files (package.json for the TypeScript
			// toolchain) are part of its version.
			if e.Type().IsRegular() {
				data, err := os.ReadFile(full)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(all, "file %s %d\n", e.Name(), len(data))
				all.Write(data)
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(full, "task.json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // node_modules and other helpers
		}
		if err != nil {
			return nil, err
		}
		t, err := ParseTask(data, e.Name())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", full, err)
		}
		t.Dir = full
		if st, err := os.Stat(filepath.Join(full, "start")); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: no start/ folder with the task's starting files", full)
		}
		if t.Hash, err = hashTree(full); err != nil {
			return nil, err
		}
		fmt.Fprintf(all, "task %s %s\n", t.Name, t.Hash)
		s.Tasks = append(s.Tasks, t)
	}
	if len(s.Tasks) == 0 {
		return nil, fmt.Errorf("suite %s has no task folders (folders with a task.json)", dir)
	}
	sort.Slice(s.Tasks, func(i, j int) bool { return s.Tasks[i].Name < s.Tasks[j].Name })
	s.Version = hex.EncodeToString(all.Sum(nil))[:12]
	if len(names) > 0 {
		byName := map[string]Task{}
		for _, t := range s.Tasks {
			byName[t.Name] = t
		}
		var picked []Task
		seen := map[string]bool{}
		for _, n := range names {
			t, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("no task %q in %s; the tasks are %s", n, dir, strings.Join(s.names(), ", "))
			}
			if !seen[n] {
				seen[n] = true
				picked = append(picked, t)
			}
		}
		sort.Slice(picked, func(i, j int) bool { return picked[i].Name < picked[j].Name })
		s.Tasks = picked
	}
	return s, nil
}

func (s *Suite) names() []string {
	var out []string
	for _, t := range s.Tasks {
		out = append(out, t.Name)
	}
	return out
}

// hashTree hashes the relative paths and contents of every regular file
// under dir, in a stable order.
func hashTree(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// CopyStart copies the task's starting files into dst (which must not exist
// or be empty) and returns dst with symlinks resolved.
func (t Task) CopyStart(dst string) error {
	return copyTree(filepath.Join(t.Dir, "start"), dst)
}

// Solution reads the reference solution overlay.
func (t Task) Solution() (map[string][]byte, error) {
	data, err := os.ReadFile(filepath.Join(t.Dir, "solution.txtar"))
	if err != nil {
		return nil, fmt.Errorf("%s: no reference solution: %v", t.Name, err)
	}
	return ParseOverlay(data)
}

// ParseOverlay reads a txtar overlay: file name → new content. Names must be
// relative paths inside the task.
func ParseOverlay(data []byte) (map[string][]byte, error) {
	a := txtar.Parse(data)
	if len(a.Files) == 0 {
		return nil, errors.New("solution.txtar holds no files")
	}
	out := map[string][]byte{}
	for _, f := range a.Files {
		if !localPath(f.Name) {
			return nil, fmt.Errorf("solution.txtar: %q is not a relative path inside the task", f.Name)
		}
		if _, dup := out[f.Name]; dup {
			return nil, fmt.Errorf("solution.txtar: %s appears twice", f.Name)
		}
		out[f.Name] = f.Data
	}
	return out, nil
}

// ApplySolution writes the reference solution over a copy of the starting files.
func (t Task) ApplySolution(dir string) error {
	files, err := t.Solution()
	if err != nil {
		return err
	}
	return writeOverlay(dir, files)
}

func writeOverlay(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// restoreTests puts the task's test files back as they are in start/.
func (t Task) restoreTests(dir string) error {
	for _, name := range t.Tests {
		data, err := os.ReadFile(filepath.Join(t.Dir, "start", filepath.FromSlash(name)))
		if err != nil {
			return fmt.Errorf("%s: test file %s: %v", t.Name, name, err)
		}
		if err := writeOverlay(dir, map[string][]byte{name: data}); err != nil {
			return err
		}
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil // symlinks and devices are not task material
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
}
