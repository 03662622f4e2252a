// Package estimate prices the next editor call before the user approves a
// plan (docs/contract.md §5): the prompt tokens counted from the request the
// editor would get, and the completion tokens and time expected from the
// model's past calls, which are kept per model in the user's state folder
// ($XDG_STATE_HOME/aide-lsp/, never under a workspace: a history is the
// user's, not the repository's, and must not be committed with it).
package estimate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// HistoryFile is the name of the history in the state folder.
const HistoryFile = "history.json"

// Keep is how many past calls are kept per model: enough for a stable
// median, few enough that an old habit of a model is forgotten.
const Keep = 20

// maxModels bounds the file: the models least recently used go first.
const maxModels = 64

// maxFileBytes is the largest history read; a bigger file is not ours
// (or is damaged) and is ignored rather than loaded into memory.
const maxFileBytes = 1 << 20

// Call is one finished editor call of a model.
type Call struct {
	PromptTokens     int   `json:"prompt"`
	CompletionTokens int   `json:"completion"`
	MS               int64 `json:"ms"`
	// Estimated is true when the provider sent no usage (the tokens are ours).
	Estimated bool `json:"estimated,omitempty"`
}

type fileModel struct {
	Calls []Call    `json:"calls"`
	Used  time.Time `json:"used"`
}

type file struct {
	Version int                   `json:"version"`
	Models  map[string]*fileModel `json:"models"`
}

// Store is the per-model history in one file. It is safe for concurrent use;
// several servers may share the file: each write re-reads it first and
// replaces it atomically, so at worst a concurrent record is lost, never the
// file.
type Store struct {
	path string
	mu   sync.Mutex
	data file // guarded by mu
	now  func() time.Time
}

// Open returns the history at path (the file need not exist yet). It refuses
// a path inside any of roots: the history never goes under a workspace.
func Open(path string, roots ...string) (*Store, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("history path %q is not absolute", path)
	}
	if r := workspace.Inside(path, roots...); r != "" {
		return nil, fmt.Errorf("history path %s is inside the workspace %s; set XDG_STATE_HOME to a folder outside it", path, r)
	}
	s := &Store{path: path, now: time.Now}
	s.data, _ = load(path) // a damaged file starts a new history; it is replaced on the next record
	return s, nil
}

// OpenDefault opens HistoryFile in the user's state folder
// (config.StateDir, beside the trust store).
func OpenDefault(getenv func(string) string, roots ...string) (*Store, error) {
	dir := config.StateDir(getenv)
	if dir == "" {
		return nil, errors.New("no state folder for the history of model calls: set XDG_STATE_HOME or HOME")
	}
	return Open(filepath.Join(dir, HistoryFile), roots...)
}

// Path is the history file.
func (s *Store) Path() string { return s.path }

// load reads a history file; a missing file is an empty history.
func load(path string) (file, error) {
	f := file{Version: 1, Models: map[string]*fileModel{}}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return f, nil
		}
		return f, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxFileBytes {
		return f, fmt.Errorf("%s is not a history file", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	return parse(b)
}

// parse decodes a history, dropping what does not make sense (negative
// counts, empty model ids) so one bad entry cannot skew an estimate.
func parse(b []byte) (file, error) {
	f := file{Version: 1, Models: map[string]*fileModel{}}
	var in file
	if err := json.Unmarshal(b, &in); err != nil {
		return f, err
	}
	for id, m := range in.Models {
		if id == "" || m == nil {
			continue
		}
		var calls []Call
		for _, c := range m.Calls {
			if c.PromptTokens >= 0 && c.CompletionTokens >= 0 && c.MS >= 0 {
				calls = append(calls, c)
			}
		}
		if len(calls) > Keep {
			calls = calls[len(calls)-Keep:]
		}
		if len(calls) > 0 {
			f.Models[id] = &fileModel{Calls: calls, Used: m.Used}
		}
	}
	return f, nil
}

// Record adds a finished call of model and saves the history.
func (s *Store) Record(model string, c Call) error {
	if model == "" {
		return errors.New("history: a call without a model")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, err := load(s.path); err == nil {
		s.data = f // another server may have written since
	}
	m := s.data.Models[model]
	if m == nil {
		m = &fileModel{}
		s.data.Models[model] = m
	}
	m.Calls = append(m.Calls, c)
	if len(m.Calls) > Keep {
		m.Calls = append([]Call(nil), m.Calls[len(m.Calls)-Keep:]...)
	}
	m.Used = s.now().UTC()
	s.trim()
	return s.save()
}

// trim drops the least recently used models past maxModels.
func (s *Store) trim() {
	if len(s.data.Models) <= maxModels {
		return
	}
	ids := make([]string, 0, len(s.data.Models))
	for id := range s.data.Models {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return s.data.Models[ids[i]].Used.After(s.data.Models[ids[j]].Used) })
	for _, id := range ids[maxModels:] {
		delete(s.data.Models, id)
	}
}

// save writes the file atomically (temporary file + rename), private to the user.
func (s *Store) save() error {
	b, err := json.MarshalIndent(s.data, "", " ")
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Calls returns the kept calls of model, oldest first.
// A nil Store has no calls.
func (s *Store) Calls(model string) []Call {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.data.Models[model]; m != nil {
		return append([]Call(nil), m.Calls...)
	}
	return nil
}

// Expect is what the history says of the next call of model: the median
// completion tokens and time of its kept calls, and how many there are
// (0: no history yet, and the other values are zero). The median, not the
// mean, so one runaway answer does not double every estimate after it.
func (s *Store) Expect(model string) (completion int, d time.Duration, n int) {
	calls := s.Calls(model)
	if len(calls) == 0 {
		return 0, 0, 0
	}
	tok := make([]int64, len(calls))
	ms := make([]int64, len(calls))
	for i, c := range calls {
		tok[i], ms[i] = int64(c.CompletionTokens), c.MS
	}
	return int(median(tok)), time.Duration(median(ms)) * time.Millisecond, len(calls)
}

func median(v []int64) int64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
