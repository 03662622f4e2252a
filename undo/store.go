package undo

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
	"time"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// Bounds of the store: the last Keep sessions of each workspace, and
// MaxBytes in all (the oldest records, of any workspace, go first).
const (
	Keep     = 50
	MaxBytes = 100 << 20
)

// DirName is the store's folder in the user's state folder.
const DirName = "undo"

// ErrNoRecord: the store has no such record (or none at all).
var ErrNoRecord = errors.New("no undo record")

// Store is the undo records of one workspace. Several processes (servers,
// `aide-lsp run` and `undo`) may use it at once: each record is one file
// replaced atomically, so at worst a concurrent update is lost, never a
// record.
type Store struct {
	dir  string // <state>/undo
	ws   string // dir/<key of the workspace>
	root string // the workspace's first root, as records name it
	now  func() time.Time
}

// Open returns the store of the workspace roots[0] in stateDir, the
// user's state folder (config.StateDir: "" when there is none). It refuses
// a state folder inside any of the roots: a repository controls its
// workspace, and what is kept here is written back on undo.
func Open(stateDir string, roots ...string) (*Store, error) {
	if stateDir == "" {
		return nil, errors.New("no state folder for undo records: set XDG_STATE_HOME or HOME")
	}
	if !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("undo records: state folder %q is not absolute", stateDir)
	}
	if len(roots) == 0 || !filepath.IsAbs(roots[0]) {
		return nil, errors.New("undo records: no workspace")
	}
	if r := workspace.Inside(stateDir, roots...); r != "" {
		return nil, fmt.Errorf("the state folder %s is inside the workspace %s, so undo records are not kept; set XDG_STATE_HOME to a folder outside it", stateDir, r)
	}
	root := filepath.Clean(roots[0])
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	dir := filepath.Join(stateDir, DirName)
	return &Store{dir: dir, ws: filepath.Join(dir, Key(root)), root: root, now: time.Now}, nil
}

// Key names a workspace's folder in the store.
func Key(root string) string {
	s := sha256.Sum256([]byte(root))
	return hex.EncodeToString(s[:12])
}

// Root is the workspace the store keeps records of.
func (s *Store) Root() string { return s.root }

// Dir is the folder of this workspace's records.
func (s *Store) Dir() string { return s.ws }

// New starts the record of a session.
func (s *Store) New(session, task, source string) *Record {
	return &Record{Version: 1, Workspace: s.root, Session: session, Task: task, Source: source,
		Created: s.now().UTC().Truncate(time.Millisecond)}
}

// Save writes r atomically (a synced temporary file renamed over the
// record), then drops the oldest records past the bounds.
func (s *Store) Save(r *Record) error {
	if r.Workspace != s.root {
		return fmt.Errorf("undo record of %s saved in the store of %s", r.Workspace, s.root)
	}
	if err := r.check(); err != nil {
		return fmt.Errorf("undo record %s: %w", r.Session, err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("undo record %s is larger than %d MiB: not kept", r.Session, MaxRecordBytes>>20)
	}
	if err := workspace.WriteFileAtomic(s.path(r.Session), data, 0o600); err != nil {
		return fmt.Errorf("undo records: %w", err)
	}
	s.prune(r.Session)
	return nil
}

// Remove drops the record of session (an apply that wrote nothing).
func (s *Store) Remove(session string) error {
	if !ValidSessionID(session) {
		return fmt.Errorf("%q is not a session id", session)
	}
	return os.Remove(s.path(session))
}

func (s *Store) path(session string) string { return filepath.Join(s.ws, session+".json") }

// Load reads the record of session; ErrNoRecord when there is none.
func (s *Store) Load(session string) (*Record, error) {
	if !ValidSessionID(session) {
		return nil, fmt.Errorf("%q is not a session id", session)
	}
	r, err := readRecord(s.path(session))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w of session %s in this workspace (%s)", ErrNoRecord, session, s.root)
	}
	if err != nil {
		return nil, err
	}
	if r.Session != session || r.Workspace != s.root {
		return nil, fmt.Errorf("the undo record %s is not this workspace's session %s", s.path(session), session)
	}
	return r, nil
}

func readRecord(p string) (*Record, error) {
	data, err := workspace.ReadRegular(p, MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return r, nil
}

// List returns the workspace's readable records, newest first. Records
// that cannot be read are skipped (an undo names them when asked for).
func (s *Store) List() ([]*Record, error) {
	ents, err := os.ReadDir(s.ws)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("undo records: %w", err)
	}
	var out []*Record
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		r, err := readRecord(filepath.Join(s.ws, name))
		if err != nil || r.Workspace != s.root || r.Session+".json" != name {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].Session > out[j].Session
	})
	return out, nil
}

// Last returns the newest record of source with hunks still standing.
func (s *Store) Last(source string) (*Record, error) {
	rs, err := s.List()
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.Source == source && len(r.Standing()) > 0 {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w in this workspace (%s)", ErrNoRecord, s.root)
}

// prune drops this workspace's records past Keep, then the oldest records
// of every workspace while the store holds more than MaxBytes; never the
// record just saved, nor a file that is not a record.
func (s *Store) prune(saved string) {
	type rec struct {
		path string
		size int64
		mod  time.Time
	}
	list := func(dir string) []rec {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		var out []rec
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
				continue
			}
			if info, err := e.Info(); err == nil {
				out = append(out, rec{filepath.Join(dir, e.Name()), info.Size(), info.ModTime()})
			}
		}
		return out
	}
	keep := filepath.Join(s.ws, saved+".json")
	oldestFirst := func(rs []rec) {
		sort.Slice(rs, func(i, j int) bool { return rs[i].mod.Before(rs[j].mod) })
	}
	mine := list(s.ws)
	oldestFirst(mine)
	for i := 0; len(mine)-i > Keep; i++ {
		if mine[i].path != keep {
			os.Remove(mine[i].path)
		}
	}
	var all []rec
	var total int64
	ents, _ := os.ReadDir(s.dir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			for _, r := range list(filepath.Join(s.dir, e.Name())) {
				all = append(all, r)
				total += r.size
			}
		}
	}
	oldestFirst(all)
	for _, r := range all {
		if total <= MaxBytes {
			break
		}
		if r.path == keep {
			continue
		}
		if os.Remove(r.path) == nil {
			total -= r.size
		}
	}
}
