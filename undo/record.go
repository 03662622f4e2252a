// Package undo keeps the record of what each session changed in a
// workspace — the before and after of every accepted hunk, and of every
// file it created, renamed or deleted — and turns a record back into
// reverting hunks located in the current text (docs/contract.md §2 `undo`,
// §4 `aide.undo`).
//
// Records live in the user's state folder ($XDG_STATE_HOME/aide-lsp/undo/,
// never under the workspace, which a repository controls), one file per
// session under a folder keyed by the workspace, written atomically and
// bounded (Keep sessions per workspace, MaxBytes in all, oldest out).
package undo

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"
)

// Where a record comes from.
const (
	SourceRun    = "run"    // aide-lsp run --apply
	SourceServer = "server" // hunks accepted in an editor
	SourceUndo   = "undo"   // an undo, itself undoable
)

// Content is a file's content at one moment: Exists false is "no file".
type Content struct {
	Exists bool   `json:"exists"`
	Data   []byte `json:"data,omitempty"`
}

// File is a file a session changed, as it was before the session's first
// change of it and after its last. Before is nil when it was not kept (a
// file past MaxFileBytes): then nothing ever writes the file whole, and an
// undo goes hunk by hunk.
type File struct {
	Path   string   `json:"path"`
	Before *Content `json:"before,omitempty"`
	After  *Content `json:"after,omitempty"`
}

// Hunk is one accepted hunk. For an edit, After is a stretch of whole
// lines of the file after the hunk landed (the hunk's own lines, widened by
// context lines until it stands once in that file) starting at byte Start,
// and Before is what the same stretch held before. A write keeps the whole
// file in Before (absent when Created) and After; a delete keeps the file
// in Before; a rename moves Path to NewPath.
type Hunk struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Kind    string `json:"kind"` // edit, write, delete, rename (editapply's kinds)
	NewPath string `json:"newPath,omitempty"`
	Created bool   `json:"created,omitempty"`
	Start   int    `json:"start,omitempty"`
	Line    int    `json:"line,omitempty"` // 1-based line of After in the file after the hunk landed
	Before  []byte `json:"before,omitempty"`
	After   []byte `json:"after,omitempty"`
	// Group: hunks accepted together whose stretches touch share it, and
	// are undone together (one cannot be located without the other).
	Group string `json:"group,omitempty"`
	// UndoneBy is the undo that reverted this hunk, "" while it stands.
	UndoneBy string `json:"undoneBy,omitempty"`
}

// Record is what one session changed in one workspace.
type Record struct {
	Version   int       `json:"version"`
	Workspace string    `json:"workspace"` // the workspace's first root, absolute
	Session   string    `json:"session"`
	Task      string    `json:"task,omitempty"`
	Source    string    `json:"source"`
	UndoOf    string    `json:"undoOf,omitempty"` // SourceUndo: the session it undid
	Created   time.Time `json:"created"`
	Files     []File    `json:"files"`
	Hunks     []Hunk    `json:"hunks"`
}

// Limits of a record. A record is the user's, but a damaged or foreign
// file must not exhaust the process that reads it.
const (
	MaxFileBytes   = 8 << 20  // larger contents are not kept whole (Before, After nil)
	MaxRecordBytes = 64 << 20 // a larger record file is not read
	maxHunks       = 10000
	maxIDLen       = 128
)

// ValidSessionID reports whether id can name a record file: letters,
// digits, '-', '_' and '.', not starting with '.', at most 128 bytes.
func ValidSessionID(id string) bool {
	if id == "" || len(id) > maxIDLen || id[0] == '.' {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// validPath reports whether p is a clean, slash-separated, workspace-relative
// path (what editapply and workspace.Resolve hand out).
func validPath(p string) bool {
	return p != "" && p != "." && utf8.ValidString(p) && !strings.ContainsRune(p, 0) &&
		!strings.Contains(p, `\`) && path.Clean(p) == p && !path.IsAbs(p) &&
		p != ".." && !strings.HasPrefix(p, "../")
}

// Parse reads a record file and checks that it makes sense: every path is
// a clean workspace-relative path, every hunk has an id, a known kind and
// a range inside what it keeps. It refuses rather than repairs: a record
// that does not make sense is never undone.
func Parse(data []byte) (*Record, error) {
	if len(data) > MaxRecordBytes {
		return nil, fmt.Errorf("undo record of %d bytes is larger than %d", len(data), MaxRecordBytes)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("undo record: %w", err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("undo record %q: %w", r.Session, err)
	}
	return &r, nil
}

func (r *Record) check() error {
	switch {
	case r.Version != 1:
		return fmt.Errorf("version %d is not 1", r.Version)
	case !ValidSessionID(r.Session):
		return errors.New("the session id is not one aide-lsp writes")
	case !strings.HasPrefix(r.Workspace, "/") && !(len(r.Workspace) > 2 && r.Workspace[1] == ':'):
		return errors.New("the workspace is not an absolute path")
	case r.Source != SourceRun && r.Source != SourceServer && r.Source != SourceUndo:
		return fmt.Errorf("unknown source %q", r.Source)
	case r.UndoOf != "" && !ValidSessionID(r.UndoOf):
		return errors.New("undoOf is not a session id")
	case len(r.Hunks) > maxHunks || len(r.Files) > maxHunks:
		return errors.New("too many hunks")
	}
	seen := map[string]bool{}
	for _, f := range r.Files {
		if !validPath(f.Path) {
			return fmt.Errorf("file path %q is not workspace-relative", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("file %s is listed twice", f.Path)
		}
		seen[f.Path] = true
		for _, c := range []*Content{f.Before, f.After} {
			if c != nil && !c.Exists && len(c.Data) > 0 {
				return fmt.Errorf("file %s: content for a file that does not exist", f.Path)
			}
		}
	}
	ids := map[string]bool{}
	for _, h := range r.Hunks {
		if h.ID == "" || len(h.ID) > maxIDLen || !utf8.ValidString(h.ID) {
			return errors.New("a hunk without a usable id")
		}
		if ids[h.ID] {
			return fmt.Errorf("hunk id %s is used twice", h.ID)
		}
		ids[h.ID] = true
		if !validPath(h.Path) {
			return fmt.Errorf("hunk %s: path %q is not workspace-relative", h.ID, h.Path)
		}
		if h.UndoneBy != "" && !ValidSessionID(h.UndoneBy) {
			return fmt.Errorf("hunk %s: undoneBy is not a session id", h.ID)
		}
		if h.Start < 0 || h.Line < 0 {
			return fmt.Errorf("hunk %s: negative position", h.ID)
		}
		switch h.Kind {
		case "edit":
			if len(h.After) == 0 && len(h.Before) == 0 {
				return fmt.Errorf("hunk %s: an edit that keeps no text", h.ID)
			}
		case "write", "delete":
		case "rename":
			if !validPath(h.NewPath) || h.NewPath == h.Path {
				return fmt.Errorf("hunk %s: a rename without a new path", h.ID)
			}
		default:
			return fmt.Errorf("hunk %s: unknown kind %q", h.ID, h.Kind)
		}
		if h.Kind != "rename" && h.NewPath != "" {
			return fmt.Errorf("hunk %s: a new path on a %s", h.ID, h.Kind)
		}
	}
	return nil
}

// Standing returns the ids of the record's hunks not undone yet, in order.
func (r *Record) Standing() []string {
	var out []string
	for _, h := range r.Hunks {
		if h.UndoneBy == "" {
			out = append(out, h.ID)
		}
	}
	return out
}

// file returns the record's entry for p, adding it when add is set.
func (r *Record) file(p string, add bool) *File {
	for i := range r.Files {
		if r.Files[i].Path == p {
			return &r.Files[i]
		}
	}
	if !add {
		return nil
	}
	r.Files = append(r.Files, File{Path: p})
	return &r.Files[len(r.Files)-1]
}

// File returns the record's entry for p, or nil.
func (r *Record) File(p string) *File { return r.file(p, false) }

// MarkUndone records that the undo by reverted the hunks ids.
func (r *Record) MarkUndone(ids []string, by string) {
	for _, id := range ids {
		if h := r.hunk(id); h != nil {
			h.UndoneBy = by
		}
	}
}

// Restore clears the marks of the undo by: that undo was itself undone,
// so its hunks stand again.
func (r *Record) Restore(by string) {
	for i := range r.Hunks {
		if r.Hunks[i].UndoneBy == by {
			r.Hunks[i].UndoneBy = ""
		}
	}
}

// RestoreIDs clears the marks of the undo by on the hunks ids only.
func (r *Record) RestoreIDs(ids []string, by string) {
	for _, id := range ids {
		if h := r.hunk(id); h != nil && h.UndoneBy == by {
			h.UndoneBy = ""
		}
	}
}

// NewID makes a session id in the engine's form (time, then 6 random hex
// digits), for an undo run outside a server.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
