// Package written keeps what the server wrote, per document, in the
// user's state folder (contract §5): the text of each plan document it
// last wrote, so that after a restart a plan document it wrote is still
// known as its own, and the user's edits are what differs from it. A file
// under the workspace never says who wrote it: a repository can ship
// .aide/plans/<session>.md and .aide/sessions, never a record here.
package written

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// DirName is the store's folder in the user's state folder.
const DirName = "written"

// Bounds: the documents of the newest Keep writes of a workspace are
// remembered, each at most MaxBytes (a bigger one is not remembered: after
// a restart it is not taken as the server's, and its session's plan is
// derived again).
const (
	Keep     = 256
	MaxBytes = workspace.MaxStateBytes
)

// Store is what the server wrote in one workspace. Several servers may
// share it: each document's record is one file replaced atomically.
type Store struct {
	ws string // <state>/written/<key of the workspace>
}

// record is one document's file.
type record struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// Open returns the store of the workspace root in stateDir, the user's
// state folder (config.StateDir). A state folder inside the workspace is
// refused: the workspace could then say who wrote its files.
func Open(stateDir, root string) (*Store, error) {
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return nil, errors.New("no state folder to remember the plan documents written in: set XDG_STATE_HOME or HOME")
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("plan documents written: the workspace %q is not absolute", root)
	}
	if r := workspace.Inside(stateDir, root); r != "" {
		return nil, fmt.Errorf("the state folder %s is inside the workspace %s, so the plan documents written are not remembered across restarts; set XDG_STATE_HOME to a folder outside it", stateDir, r)
	}
	root = realPath(root)
	sum := sha256.Sum256([]byte(root))
	return &Store{ws: filepath.Join(stateDir, DirName, hex.EncodeToString(sum[:12]))}, nil
}

func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	// A file not yet written: its folder resolved.
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(d, filepath.Base(p))
	}
	return p
}

// file is the record of the document at path.
func (s *Store) file(path string) (string, string) {
	path = realPath(path)
	sum := sha256.Sum256([]byte(path))
	return path, filepath.Join(s.ws, hex.EncodeToString(sum[:16])+".json")
}

// Record remembers text as what the server last wrote at path.
func (s *Store) Record(path, text string) error {
	if s == nil {
		return nil
	}
	path, file := s.file(path)
	if len(text) > MaxBytes {
		os.Remove(file) // an older text is no longer what the file holds
		return fmt.Errorf("%s is larger than %d MiB: not remembered across restarts", path, MaxBytes>>20)
	}
	data, err := json.Marshal(record{Path: path, Text: text})
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(file, data, 0o600); err != nil {
		return err
	}
	s.prune()
	return nil
}

// Text is what the server last wrote at path, and whether it wrote there.
func (s *Store) Text(path string) (string, bool) {
	if s == nil {
		return "", false
	}
	path, file := s.file(path)
	data, err := workspace.ReadRegular(file, MaxBytes*2)
	if err != nil {
		return "", false
	}
	var r record
	if json.Unmarshal(data, &r) != nil || r.Path != path {
		return "", false
	}
	return r.Text, true
}

// Wrote reports whether text is what the server last wrote at path.
func (s *Store) Wrote(path, text string) bool {
	t, ok := s.Text(path)
	return ok && t == text
}

// prune drops the oldest records past Keep (a quarter more first, so
// that it runs once in many writes).
func (s *Store) prune() {
	entries, err := os.ReadDir(s.ws)
	if err != nil || len(entries) <= Keep+Keep/4 {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".json") {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod > all[j].mod })
	for _, a := range all[min(Keep, len(all)):] {
		os.Remove(filepath.Join(s.ws, a.name))
	}
}
