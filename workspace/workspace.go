// Package workspace knows the workspace: its roots, the .gitignore and deny
// rules, path safety, the current content of files (open buffers first), the
// fsnotify watcher, snapshots and drift.
//
// CONTRACT NOTE: the exported declarations in this file are what commands/,
// lsp/ and treesitter users code against while the package is built. Add
// freely; do not change or remove these signatures.
package workspace

import (
	"context"
	"errors"
	"time"
)

// BuiltinDeny is the deny list of contract §8: never read into a prompt,
// never edited.
var BuiltinDeny = []string{
	".git/**", ".aide/**", "**/.env", "**/.env.*", "**/*.pem", "**/*.key",
	"**/id_rsa*", "**/id_ed25519*", "**/.ssh/**", "**/.netrc", "**/.npmrc",
	"**/.pypirc", "**/credentials*", "**/secrets.*",
}

// Buffers gives the editor's open buffers (implemented by lsp's document store).
type Buffers interface {
	// Buffer returns the open buffer of an absolute path.
	Buffer(abs string) (text string, version int32, ok bool)
}

// Workspace is one or more roots with their rules. Relative paths are
// relative to the first root.
type Workspace struct {
	roots []string
}

// Open makes a Workspace over roots (absolute folders) with extra deny globs.
func Open(roots []string, deny []string) (*Workspace, error) {
	return nil, errors.New("workspace: not implemented yet")
}

// Roots returns the absolute roots.
func (w *Workspace) Roots() []string { return w.roots }

// SetBuffers makes Read see open buffers.
func (w *Workspace) SetBuffers(b Buffers) {}

// Resolve vets a path written by a model or a client (relative or absolute):
// it must stay inside a root after resolving symlinks and must not be denied.
// It returns the absolute path and the clean root-relative path (slash
// separated), or an error that says why it was refused.
func (w *Workspace) Resolve(path string) (abs, rel string, err error) {
	return "", "", errors.New("workspace: not implemented yet")
}

// Denied reports whether a root-relative path matches the deny list.
func (w *Workspace) Denied(rel string) bool { return true }

// Ignored reports whether a root-relative path is ignored by .gitignore rules.
func (w *Workspace) Ignored(rel string) bool { return false }

// Read returns the current content of a path: the open buffer when there is
// one, else the file on disk. exists is false for a missing file (err nil).
// It refuses paths Resolve refuses. (It implements editapply.Files.)
func (w *Workspace) Read(path string) (content string, exists bool, err error) {
	return "", false, errors.New("workspace: not implemented yet")
}

// Files lists the root-relative paths of all files that are neither ignored
// nor denied, sorted.
func (w *Workspace) Files(ctx context.Context) ([]string, error) { return nil, nil }

// FileState is what a snapshot knows of one file.
type FileState struct {
	Exists  bool
	Hash    string // sha256 hex of the content
	Version *int32 // buffer version when the file was open
}

// Snapshot is the state of the files that went into a prompt, keyed by
// root-relative path.
type Snapshot struct {
	Taken time.Time
	Files map[string]FileState
}

// Snapshot records the current state of the given root-relative paths.
func (w *Workspace) Snapshot(paths []string) Snapshot { return Snapshot{Files: map[string]FileState{}} }

// Change is one drifted file.
type Change struct {
	Path    string
	Kind    string // "modified", "deleted", "created", "renamed"
	NewPath string // for renamed, when known
	Summary string // short, e.g. "+3 -1 lines" or "deleted"
}

// Drift compares a snapshot with the current state, sorted by path.
func (w *Workspace) Drift(s Snapshot) []Change { return nil }

// Event is a change seen in the workspace, from disk or from the editor.
type Event struct {
	Path   string // root-relative
	Op     string // "write", "create", "remove", "rename"
	Source string // "disk" or "buffer"
}

// Watcher watches the roots recursively and sends debounced batches.
type Watcher struct {
	events chan []Event
}

// Watch starts watching. It falls back to polling, with a log line, when
// inotify watches run out.
func (w *Workspace) Watch(ctx context.Context) (*Watcher, error) {
	return nil, errors.New("workspace: not implemented yet")
}

// Events delivers debounced batches of changes; closed when the watcher stops.
func (wt *Watcher) Events() <-chan []Event { return wt.events }

// Close stops the watcher.
func (wt *Watcher) Close() error { return nil }

// BufferChanged tells the workspace an open buffer changed (didChange,
// didSave); it is merged into the watcher's stream.
func (w *Workspace) BufferChanged(abs string, version int32) {}

// ExpectWrite tells the workspace we are about to write content to abs
// ourselves, so the write is not reported as drift.
func (w *Workspace) ExpectWrite(abs string, content []byte) {}
