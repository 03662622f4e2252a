package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// A workspace's .aide/config.json arrives with `git clone`: it is
// untrusted until the user trusts its exact content (contract §8), the way
// direnv's `allow` and Neovim's vim.secure.trust do. The trust store maps
// the file's absolute path to the SHA-256 of the content the user trusted;
// a changed file is untrusted again. It lives in the user's XDG state
// folder, never under a workspace.

// FolderTrust is the SHA256 field of an entry that trusts a workspace
// folder rather than a file: verification runs the folder's build files
// (Makefile, tests, package.json scripts) only there (contract §2).
const FolderTrust = "folder"

// TrustStore is the user's trust database, a JSON file.
type TrustStore struct {
	Path string // "" when no state folder is known: nothing is trusted
}

// TrustEntry is one trusted file.
type TrustEntry struct {
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trustedAt"`
}

type trustFile struct {
	Version int          `json:"version"`
	Files   []TrustEntry `json:"files"`
}

// StateDir is aide-lsp's folder in the user's XDG state folder:
// $XDG_STATE_HOME/aide-lsp, else ~/.local/state/aide-lsp; "" when neither
// variable is set.
func StateDir(getenv func(string) string) string {
	return userDir(getenv, "XDG_STATE_HOME", ".local", "state")
}

// CacheDir is aide-lsp's folder in the user's XDG cache folder:
// $XDG_CACHE_HOME/aide-lsp, else ~/.cache/aide-lsp; "" when neither
// variable is set. It holds what can be rebuilt (the tag cache and graph
// file of each workspace, treesitter.UserCacheDir), never a workspace's.
func CacheDir(getenv func(string) string) string {
	return userDir(getenv, "XDG_CACHE_HOME", ".cache")
}

// userDir is aide-lsp's folder in the XDG base folder named by the
// variable xdg (an absolute path), else in $HOME/<fallback...>.
func userDir(getenv func(string) string, xdg string, fallback ...string) string {
	if d := getenv(xdg); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "aide-lsp")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(append(append([]string{h}, fallback...), "aide-lsp")...)
	}
	return ""
}

// UserConfigPath is the user-level configuration file:
// $XDG_CONFIG_HOME/aide-lsp/config.json, else
// ~/.config/aide-lsp/config.json; "" when neither variable is set.
func UserConfigPath(getenv func(string) string) string {
	if d := userDir(getenv, "XDG_CONFIG_HOME", ".config"); d != "" {
		return filepath.Join(d, "config.json")
	}
	return ""
}

// DefaultTrustStore is the store at StateDir/trusted.json.
func DefaultTrustStore(getenv func(string) string) TrustStore {
	d := StateDir(getenv)
	if d == "" {
		return TrustStore{}
	}
	return TrustStore{Path: filepath.Join(d, "trusted.json")}
}

// Hash is the content hash the store keys on.
func Hash(content []byte) string {
	s := sha256.Sum256(content)
	return hex.EncodeToString(s[:])
}

// List returns the trusted files, sorted by path. A missing store is empty.
func (s TrustStore) List() ([]TrustEntry, error) {
	if s.Path == "" {
		return nil, nil
	}
	raw, err := workspace.ReadRegular(s.Path, workspace.MaxConfigBytes)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("the trust store %s cannot be read: %w", s.Path, err)
	}
	var f trustFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("the trust store %s is not valid JSON (%v): fix or delete it, then trust again", s.Path, err)
	}
	sort.Slice(f.Files, func(i, j int) bool { return f.Files[i].Path < f.Files[j].Path })
	return f.Files, nil
}

// Trusted reports whether the file at path with this content hash is
// trusted. An unreadable store trusts nothing.
func (s TrustStore) Trusted(path, sum string) bool {
	list, err := s.List()
	if err != nil {
		return false
	}
	for _, e := range list {
		if e.Path == path && e.SHA256 == sum {
			return true
		}
	}
	return false
}

// Trust records path with this content hash, replacing an older entry.
func (s TrustStore) Trust(path, sum string, now time.Time) error {
	if s.Path == "" {
		return errors.New("no state folder to keep the trust in: set XDG_STATE_HOME or HOME")
	}
	list, err := s.List()
	if err != nil {
		return err
	}
	out := []TrustEntry{{Path: path, SHA256: sum, TrustedAt: now.UTC()}}
	for _, e := range list {
		if e.Path != path {
			out = append(out, e)
		}
	}
	return s.write(out)
}

// Revoke forgets path; found says whether it was trusted.
func (s TrustStore) Revoke(path string) (found bool, err error) {
	list, err := s.List()
	if err != nil {
		return false, err
	}
	var out []TrustEntry
	for _, e := range list {
		if e.Path == path {
			found = true
			continue
		}
		out = append(out, e)
	}
	if !found {
		return false, nil
	}
	return true, s.write(out)
}

// write replaces the store atomically (temporary file, fsync, rename), as
// owner-only: it is the user's own security decision.
func (s TrustStore) write(list []TrustEntry) error {
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	if list == nil {
		list = []TrustEntry{}
	}
	data, err := json.MarshalIndent(trustFile{Version: 1, Files: list}, "", "  ")
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(s.Path, append(data, '\n'), 0o600)
}
