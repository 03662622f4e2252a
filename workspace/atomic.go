package workspace

import (
	"crypto/rand"
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

// JournalName is the apply journal under the first root: written before
// the first rename of an apply and removed after the last, so a start that
// finds it knows an apply was interrupted.
const JournalName = ".aide/apply-journal.json"

type journal struct {
	Started time.Time      `json:"started"`
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
// lead a write outside (issue 16): every path is checked again (Resolve),
// every new content goes to a temporary file beside its target first
// (fsync'ed), and only when all are written are they renamed over their
// targets. A symbolic link inside the workspace is written through to its
// target (the rename lands on the link's target, inside its root). On an
// error the temporaries are removed and the error says exactly what was
// written. A journal (JournalName, under the first root), written before
// the first temporary file, covers the temporaries and the renames;
// Interrupted reports one a crash left behind and removes its temporaries.
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
	first, err := openRoot(0)
	if err != nil {
		return nil, &ApplyError{Err: err}
	}
	type planned struct {
		c      FileWrite
		in     int    // the index of its root
		target string // relative to its real root
		temp   string
	}
	var plan []planned
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
	// The journal comes before the first temporary file, so a process
	// killed at any point leaves nothing that the next start (Interrupted)
	// does not know of and remove.
	j := journal{Started: time.Now().UTC()}
	for _, p := range plan {
		j.Files = append(j.Files, journalEntry{Path: p.c.Rel, Root: p.in, Temp: p.temp, Delete: p.c.Delete})
	}
	if err := writeJournal(first, j); err != nil {
		return nil, &ApplyError{Err: fmt.Errorf("the apply journal %s: %w", JournalName, err)}
	}
	for i, p := range plan {
		if p.c.Delete {
			continue
		}
		if err := writeTemp(roots[p.in], p.temp, p.target, p.c.Content, p.c.Perm); err != nil {
			for _, q := range plan[:i] {
				if q.temp != "" {
					_ = roots[q.in].Remove(q.temp)
				}
			}
			_ = first.Remove(filepath.FromSlash(JournalName))
			return nil, &ApplyError{Err: fmt.Errorf("%s: %w", p.c.Rel, err)}
		}
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
			_ = first.Remove(filepath.FromSlash(JournalName))
			return written, &ApplyError{Written: written, Err: fmt.Errorf("%s: %w", p.c.Rel, err)}
		}
		if !p.c.Delete {
			w.ExpectWrite(filepath.Join(w.real[p.in], p.target), p.c.Content)
		}
		written = append(written, p.c.Rel)
	}
	_ = first.Remove(filepath.FromSlash(JournalName))
	return written, nil
}

// tempName is a new temporary file's name beside target.
func tempName(target string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(target), ".aide-apply-"+hex.EncodeToString(b[:])+"-"+filepath.Base(target))
}

// writeTemp writes data to the new temporary file temp beside target and
// syncs it.
func writeTemp(root *os.Root, temp, target string, data []byte, perm os.FileMode) error {
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
	if err := WriteSynced(f, data); err != nil {
		_ = root.Remove(temp)
		return err
	}
	return nil
}

// WriteSynced writes data to f, flushes it to the disk and closes f (on an
// error too): what is renamed into place afterwards is whole even after a
// crash.
func WriteSynced(f *os.File, data []byte) error {
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

func writeJournal(root *os.Root, j journal) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.FromSlash(JournalName)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if st, err := root.Lstat(filepath.Dir(name)); err != nil || !st.IsDir() {
		return errors.New(".aide is not a folder")
	}
	f, err := root.OpenFile(name+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, 0o600)
	if err != nil {
		return err
	}
	if err := WriteSynced(f, data); err != nil {
		return err
	}
	return root.Rename(name+".tmp", name)
}

// Interrupted reports an apply a crash left unfinished: the message names
// the files that may or may not have been written. It removes the journal
// and any temporary file it lists, so it is reported once. "" when none.
func (w *Workspace) Interrupted() string {
	raw, err := ReadUnder(w.real[0], JournalName, MaxStateBytes)
	if err != nil {
		return ""
	}
	root, err := os.OpenRoot(w.real[0])
	if err != nil {
		return ""
	}
	defer root.Close()
	_ = root.Remove(filepath.FromSlash(JournalName))
	var j journal
	if json.Unmarshal(raw, &j) != nil {
		return "an interrupted apply left " + JournalName + " (unreadable): check your files with git status"
	}
	var paths []string
	for _, e := range j.Files {
		paths = append(paths, e.Path)
		if e.Temp == "" || !filepath.IsLocal(e.Temp) || !strings.HasPrefix(filepath.Base(e.Temp), ".aide-apply-") {
			continue
		}
		if e.Root == 0 {
			_ = root.Remove(e.Temp)
		} else if e.Root > 0 && e.Root < len(w.real) {
			if other, err := os.OpenRoot(w.real[e.Root]); err == nil {
				_ = other.Remove(e.Temp)
				other.Close()
			}
		}
	}
	return fmt.Sprintf("an apply started %s was interrupted: each of these files holds its old or its new content: %s (check with git diff)",
		j.Started.Local().Format(time.DateTime), strings.Join(paths, ", "))
}
