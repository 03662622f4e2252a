package bench

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A history bench reads the user's repository and never writes to it
// (docs/bench.md "Your own history"): every git command here is a reader
// (log, diff-tree, cat-file, archive), run with optional locks off so that
// not even a refreshed index is written, with no pager, no external diff,
// no textconv, no prompt. The scratch copies are `git archive` output
// unpacked outside the tree: measured against a private `git worktree`
// (docs/bench.md), the archive is as fast or faster and writes nothing
// into the user's .git, where a worktree adds an index and an entry under
// .git/worktrees that a killed bench would leave behind.

// gitRepo runs read-only git commands in one repository.
type gitRepo struct {
	dir string
}

// maxGitOutput bounds what one git command may print into memory: the
// bench reads logs and small blobs, never a whole history's diffs.
const maxGitOutput = 64 << 20

func (g gitRepo) cmd(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "diff.external=", "-C", g.dir}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	return cmd
}

// run runs a git command and returns its standard output.
func (g gitRepo) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.cmd(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, n: maxGitOutput}
	cmd.Stderr = &limitWriter{w: &errb, n: 4 << 10}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// blob is the content of path at rev; nil when the path is not there.
func (g gitRepo) blob(ctx context.Context, rev, path string) []byte {
	out, err := g.run(ctx, "cat-file", "blob", rev+":"+path)
	if err != nil {
		return nil
	}
	return out
}

// archive unpacks the tracked files of rev into dst: regular files only
// (links and submodules are not copied), paths checked to stay inside dst.
func (g gitRepo) archive(ctx context.Context, rev, dst string) error {
	cmd := g.cmd(ctx, "archive", "--format=tar", rev)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	cmd.Stderr = &limitWriter{w: &errb, n: 4 << 10}
	if err := cmd.Start(); err != nil {
		return err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	defer root.Close()
	untarErr := untar(pipe, root)
	if untarErr != nil {
		_, _ = io.Copy(io.Discard, pipe)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive: %s", strings.TrimSpace(errb.String()+" "+err.Error()))
	}
	return untarErr
}

// untar writes a tar stream's folders and regular files under root.
func untar(r io.Reader, root *os.Root) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name == "" || name == "pax_global_header" || !filepath.IsLocal(filepath.FromSlash(name)) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if dir := filepath.Dir(filepath.FromSlash(name)); dir != "." {
				if err := root.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, os.FileMode(h.Mode&0o755)|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// limitWriter keeps the first n bytes and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	keep := p
	if len(keep) > l.n {
		keep = keep[:l.n]
	}
	l.n -= len(keep)
	if len(keep) > 0 {
		if _, err := l.w.Write(keep); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
