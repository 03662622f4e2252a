package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The scratch copy (docs/design.md "Verification"): a private temporary
// folder holding a copy of the workspace's files, in which the candidate
// is written and the commands run. A copy of the files the workspace sees
// was measured against a `git worktree` (docs/performance.md
// "Verification"): the worktree checks out every file too, so it costs the
// same writes plus git's own work and a record in the user's .git, it
// misses uncommitted changes and open buffers (they must be copied over
// anyway), and it needs a repository. The copy needs none of that.

// scratchPrefix names every scratch folder in the temporary folder, so
// Sweep can find the ones a killed process left behind.
const scratchPrefix = "aide-verify-"

// ownerFile, beside the copy, holds the pid of the process that made it.
const ownerFile = "owner"

// copyWorkers copy files at once: the copy is system calls, not CPU, so a
// few more than the cores keep the disk busy (measured in
// BenchmarkScratch).
const copyWorkers = 8

// CopyStats is what a scratch copy cost.
type CopyStats struct {
	Files int
	Bytes int64
	Took  time.Duration
}

// Change is one file of a candidate: its new content, or its deletion.
type Change struct {
	Path    string // root-relative, slash-separated
	Content []byte
	Delete  bool
}

// Scratch is one scratch copy. Dir is the copy's root, where commands run.
type Scratch struct {
	Dir   string
	Stats CopyStats

	base   string // the temporary folder holding Dir and the owner file
	once   sync.Once
	remove error
}

// NewScratch copies files (root-relative, slash-separated) from the disk
// under root (through os.Root, so that no link leads out of it) into a new
// private temporary folder. Files that are not regular (a FIFO, a folder, a
// link out of the root) or gone are skipped. What differs from the disk
// (open buffers, the candidate) is written over it with Apply. On error
// nothing is left behind.
func NewScratch(ctx context.Context, root string, files []string) (s *Scratch, err error) {
	start := time.Now()
	base, err := os.MkdirTemp("", scratchPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("verify: cannot make a scratch folder: %w", err)
	}
	s = &Scratch{Dir: filepath.Join(base, "w"), base: base}
	defer func() {
		if err != nil {
			s.Remove()
			s = nil
		}
	}()
	if err := os.WriteFile(filepath.Join(base, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return s, err
	}
	if err := os.Mkdir(s.Dir, 0o700); err != nil {
		return s, err
	}
	src, err := os.OpenRoot(root)
	if err != nil {
		return s, fmt.Errorf("verify: cannot read the workspace: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenRoot(s.Dir)
	if err != nil {
		return s, err
	}
	defer dst.Close()

	// Folders first, in one goroutine (MkdirAll of siblings would race on
	// their parents), then the files in parallel.
	made := map[string]bool{".": true}
	var todo []string
	for _, f := range files {
		rel, ok := cleanRel(f)
		if !ok {
			continue
		}
		if dir := path.Dir(rel); !made[dir] {
			if err := dst.MkdirAll(dir, 0o700); err != nil {
				return s, fmt.Errorf("verify: scratch copy: %w", err)
			}
			for d := dir; !made[d]; d = path.Dir(d) {
				made[d] = true
			}
		}
		todo = append(todo, rel)
	}

	var (
		mu    sync.Mutex
		first error
		next  = make(chan string)
		wg    sync.WaitGroup
	)
	for range min(copyWorkers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range next {
				n, err := copyOne(src, dst, rel)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("verify: scratch copy of %s: %w", rel, err)
				}
				if n >= 0 {
					s.Stats.Files++
					s.Stats.Bytes += n
				}
				mu.Unlock()
			}
		}()
	}
	for _, rel := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- rel
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return s, err
	}
	if first != nil {
		return s, first
	}
	s.Stats.Took = time.Since(start)
	return s, nil
}

// copyOne copies one file; it returns -1 for a file skipped (gone, not
// regular), the bytes copied otherwise.
func copyOne(src, dst *os.Root, rel string) (int64, error) {
	st, err := src.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil || !st.Mode().IsRegular() {
		return -1, nil // a link out of the root, a FIFO, a device: not copied
	}
	in, err := src.OpenFile(rel, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return -1, nil
	}
	defer in.Close()
	// The executable bit is kept (a script the command runs); the rest of
	// the mode is the scratch copy's own: private to the user.
	mode := fs.FileMode(0o600)
	if st.Mode()&0o100 != 0 {
		mode = 0o700
	}
	out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return -1, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// cleanRel accepts a root-relative path that stays inside the root.
func cleanRel(p string) (string, bool) {
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", false
	}
	return p, true
}

// Apply writes the changes into the copy: new content, or the file's
// removal. A path that would leave the copy is refused.
func (s *Scratch) Apply(changes []Change) error {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, c := range changes {
		rel, ok := cleanRel(c.Path)
		if !ok {
			return fmt.Errorf("verify: %q is not a path inside the workspace", c.Path)
		}
		if c.Delete {
			if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("verify: removing %s in the scratch copy: %w", rel, err)
			}
			continue
		}
		if dir := path.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("verify: writing %s in the scratch copy: %w", rel, err)
			}
		}
		mode := fs.FileMode(0o600)
		if st, err := root.Stat(rel); err == nil && st.Mode()&0o100 != 0 {
			mode = 0o700
		}
		// Remove first: a file the copy made read-only, or a link a
		// command left, is replaced rather than written through.
		_ = root.Remove(rel)
		if err := root.WriteFile(rel, c.Content, mode); err != nil {
			return fmt.Errorf("verify: writing %s in the scratch copy: %w", rel, err)
		}
	}
	return nil
}

// Remove deletes the scratch copy; later calls return the first outcome.
// Folders a command made read-only are made writable first (Go's module
// cache is written read-only, for one).
func (s *Scratch) Remove() error {
	s.once.Do(func() { s.remove = removeAll(s.base) })
	return s.remove
}

func removeAll(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Sweep removes the scratch copies whose process is gone: a server killed
// with SIGKILL cannot remove its own, so the next start does. Only folders
// with an owner file naming a process that no longer runs are removed.
func Sweep() (removed int) {
	tmp := os.TempDir()
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if removeAll(dir) == nil {
			removed++
		}
	}
	return removed
}
