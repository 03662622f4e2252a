package workspace

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileWrite is one file of an all-or-nothing apply (ApplyAll).
type FileWrite struct {
	Rel     string // workspace-relative (as Resolve hands out)
	Content []byte // the new content; ignored when Delete
	Delete  bool
	Perm    os.FileMode // 0: the existing file's mode, else 0644
}

// The apply journal lives in the user's state folder, keyed by the
// workspace (JournalPath), never under the workspace: a repository could
// ship one, shown as the user's interrupted apply with paths and advice of
// its choosing. It names every temporary file before the file is created
// and says when the renames began, so the next start removes what a kill
// left and reports only an apply that may have changed files.

// JournalPath is the apply journal of the workspace whose first root is
// root, in the state folder stateDir ($XDG_STATE_HOME/aide-lsp).
func JournalPath(stateDir, root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(stateDir, "apply", hex.EncodeToString(sum[:12])+".json")
}

// SetStateDir names the user's state folder, where the apply journal is
// kept (JournalPath); a folder inside the workspace is refused. Without
// one an apply keeps no journal.
func (w *Workspace) SetStateDir(dir string) error {
	if dir == "" {
		return nil
	}
	path := JournalPath(dir, w.real[0])
	real, err := w.realPath(path)
	if err != nil {
		real = path
	}
	for _, r := range w.real {
		if within(r, real) {
			return fmt.Errorf("the state folder %s is inside the workspace %s: set XDG_STATE_HOME to a folder outside it (no apply journal is kept)", dir, r)
		}
	}
	w.journal = path
	return nil
}

type journal struct {
	Started time.Time      `json:"started"`
	Root    string         `json:"root"`              // the workspace's first root
	Renames bool           `json:"renames,omitempty"` // the renames began: files may have changed
	Files   []journalEntry `json:"files"`
}

type journalEntry struct {
	Path   string `json:"path"`
	Root   int    `json:"root,omitempty"` // the index of the workspace root Temp is under
	Temp   string `json:"temp,omitempty"`
	Delete bool   `json:"delete,omitempty"`
}

// ApplyError is the error of an ApplyAll that failed: Written lists
// exactly the files that were changed before the failure (empty when it
// failed before the first rename: nothing was changed).
type ApplyError struct {
	Written []string
	Err     error
}

func (e *ApplyError) Error() string {
	if len(e.Written) == 0 {
		return fmt.Sprintf("%v; nothing was written", e.Err)
	}
	return fmt.Sprintf("%v; written before the failure: %s", e.Err, strings.Join(e.Written, ", "))
}

func (e *ApplyError) Unwrap() error { return e.Err }

// ApplyAll writes changes all or nothing, through an os.Root of each file's
// workspace root, so a folder swapped for a symbolic link meanwhile cannot
// lead a write outside (contract §8): every path is checked again (Resolve),
// every new content goes to a temporary file beside its target first
// (fsync'ed), and only when all are written are they renamed over their
// targets. A symbolic link inside the workspace is written through to its
// target (the rename lands on the link's target, inside its root). On an
// error the temporaries are removed and the error says exactly what was
// written. A journal (JournalName, under the first root) covers the
// renames; Interrupted reports one a crash left behind.
func (w *Workspace) ApplyAll(changes []FileWrite) ([]string, error) {
	roots := make([]*os.Root, len(w.real))
	defer func() {
		for _, r := range roots {
			if r != nil {
				r.Close()
			}
		}
	}()
	openRoot := func(i int) (*os.Root, error) {
		if roots[i] == nil {
			r, err := os.OpenRoot(w.real[i])
			if err != nil {
				return nil, err
			}
			roots[i] = r
		}
		return roots[i], nil
	}
	if _, err := openRoot(0); err != nil {
		return nil, &ApplyError{Err: err}
	}
	type planned struct {
		c      FileWrite
		in     int    // the index of its root
		target string // relative to its real root
		temp   string
	}
	var plan []planned
	cleanup := func() {
		for _, p := range plan {
			if p.temp != "" {
				_ = roots[p.in].Remove(p.temp)
			}
		}
		w.removeJournal()
	}
	for _, c := range changes {
		_, _, real, err := w.resolve(c.Rel)
		if err != nil {
			return nil, &ApplyError{Err: err}
		}
		in := w.rootOf(real, w.real)
		if in < 0 {
			return nil, &ApplyError{Err: fmt.Errorf("refused: %s is outside the workspace roots", c.Rel)}
		}
		if _, err := openRoot(in); err != nil {
			return nil, &ApplyError{Err: err}
		}
		target, err := filepath.Rel(w.real[in], real)
		if err != nil || !filepath.IsLocal(target) {
			return nil, &ApplyError{Err: fmt.Errorf("refused: %s is outside the workspace roots", c.Rel)}
		}
		p := planned{c: c, in: in, target: target}
		if !c.Delete {
			p.temp = tempName(target)
		}
		plan = append(plan, p)
	}
	// Every temporary file is named in the journal before it exists.
	j := journal{Started: time.Now().UTC(), Root: w.real[0]}
	for _, p := range plan {
		j.Files = append(j.Files, journalEntry{Path: p.c.Rel, Root: p.in, Temp: p.temp, Delete: p.c.Delete})
	}
	if err := w.writeJournal(j); err != nil {
		return nil, &ApplyError{Err: fmt.Errorf("the apply journal %s: %w", w.journal, err)}
	}
	for i, p := range plan {
		if p.temp == "" {
			continue
		}
		if err := writeTemp(roots[p.in], p.target, p.temp, p.c.Content, p.c.Perm); err != nil {
			plan[i].temp = "" // not created
			cleanup()
			return nil, &ApplyError{Err: fmt.Errorf("%s: %w", p.c.Rel, err)}
		}
		if applyHook != nil {
			applyHook("temp", i+1)
		}
	}
	j.Renames = true
	if err := w.writeJournal(j); err != nil {
		cleanup()
		return nil, &ApplyError{Err: fmt.Errorf("the apply journal %s: %w", w.journal, err)}
	}
	var written []string
	for i, p := range plan {
		root := roots[p.in]
		var err error
		if p.c.Delete {
			err = root.Remove(p.target)
			if errors.Is(err, os.ErrNotExist) {
				err = nil
			}
		} else {
			err = root.Rename(p.temp, p.target)
		}
		if err != nil {
			for _, q := range plan[i:] {
				if q.temp != "" {
					_ = roots[q.in].Remove(q.temp)
				}
			}
			w.removeJournal()
			return written, &ApplyError{Written: written, Err: fmt.Errorf("%s: %w", p.c.Rel, err)}
		}
		if !p.c.Delete {
			w.ExpectWrite(filepath.Join(w.real[p.in], p.target), p.c.Content)
		}
		written = append(written, p.c.Rel)
		if applyHook != nil {
			applyHook("rename", i+1)
		}
	}
	w.removeJournal()
	return written, nil
}

// applyHook, when set (tests: SetApplyHook), runs after the n-th
// temporary file is written (stage "temp") and after the n-th rename
// ("rename"): a test stops an apply there as a kill would, or kills it.
var applyHook func(stage string, n int)

// SetApplyHook sets the hook the kill tests stop an apply with (see
// applyHook); `aide-lsp run` sets it from AIDE_TEST_KILL_APPLY only.
func SetApplyHook(f func(stage string, n int)) { applyHook = f }

// tempName is a new temporary file's name beside target.
func tempName(target string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(target), ".aide-apply-"+hex.EncodeToString(b[:])+"-"+filepath.Base(target))
}

// writeTemp writes data to the new temporary file temp beside target and
// syncs it.
func writeTemp(root *os.Root, target, temp string, data []byte, perm os.FileMode) error {
	if err := root.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if perm == 0 {
		perm = 0o644
		if st, err := root.Stat(target); err == nil {
			perm = st.Mode().Perm()
		}
	}
	f, err := root.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if err := writeSynced(f, data); err != nil {
		_ = root.Remove(temp)
		return err
	}
	return nil
}

// writeSynced writes data to f, flushes it to the disk and closes f (on an
// error too): what is renamed into place afterwards is whole even after a
// crash.
func writeSynced(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeJournal replaces the journal, whole (WriteFileAtomic). Without a state folder it does nothing.
func (w *Workspace) writeJournal(j journal) error {
	if w.journal == "" {
		return nil
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(w.journal, data, 0o600)
}

func (w *Workspace) removeJournal() {
	if w.journal != "" {
		_ = os.Remove(w.journal)
	}
}

// Interrupted reports an apply a crash or a kill left unfinished, from the
// journal in the user's state folder: it removes every temporary file the
// journal names (and the journal, so it is reported once). When the renames
// had begun, the message names the files that may or may not have been
// written; before that nothing changed and it says so. "" when none.
func (w *Workspace) Interrupted() string {
	if w.journal == "" {
		return ""
	}
	raw, err := ReadRegular(w.journal, MaxStateBytes)
	if err != nil {
		return ""
	}
	w.removeJournal()
	var j journal
	if json.Unmarshal(raw, &j) != nil {
		return "an interrupted apply left an unreadable journal " + w.journal + ": check your files with git status"
	}
	var paths []string
	for _, e := range j.Files {
		paths = append(paths, e.Path)
		if e.Temp == "" || !filepath.IsLocal(e.Temp) || !strings.HasPrefix(filepath.Base(e.Temp), ".aide-apply-") || e.Root < 0 || e.Root >= len(w.real) {
			continue
		}
		if r, err := os.OpenRoot(w.real[e.Root]); err == nil {
			_ = r.Remove(e.Temp)
			r.Close()
		}
	}
	if !j.Renames {
		return fmt.Sprintf("an apply started %s was stopped before it changed any file; its temporary files were removed",
			j.Started.Local().Format(time.DateTime))
	}
	return fmt.Sprintf("an apply started %s was interrupted: each of these files holds its old or its new content: %s (check with git diff)",
		j.Started.Local().Format(time.DateTime), strings.Join(paths, ", "))
}
