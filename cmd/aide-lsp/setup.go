package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/aide-lsp/aide-lsp/editors/helix"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const setupUsage = `Usage: aide-lsp setup helix [--write] [--config-dir DIR]

Prints what Helix needs for aide-lsp: the languages.toml lines (aide-lsp as a
language server beside your usual ones) and the config.toml key binding
(space A: the plan beside the code). With --write, adds what is missing to
DIR/languages.toml and DIR/config.toml (DIR: Helix's config folder,
~/.config/helix), printing the diff of each file first. It never changes a key
you set: a key already there stays as it is, and a [[language]] you already
list is left for you to add "aide" to (it says so).

Examples:
  aide-lsp setup helix
  aide-lsp setup helix --write

Flags:
`

func runSetup(args []string, stdout, stderr io.Writer) int {
	fail := failer("setup", stderr)
	if len(args) == 0 || args[0] != "helix" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, setupUsage)
			return exitOK
		}
		return fail(exitUsage, "name the editor: aide-lsp setup helix (VS Code, Neovim and Emacs install from their package managers: docs/editors.md)")
	}
	fl := newFlags("setup", setupUsage)
	write := fl.Bool("write", false, "add what is missing to Helix's files (never changes a key you set)")
	dir := fl.String("config-dir", helixConfigDir(), "Helix's config folder")
	if code, done := parseFlags(fl, args[1:], stdout, stderr); done {
		return code
	}
	if !*write {
		for _, f := range helix.Files() {
			fmt.Fprintf(stdout, "# ── %s ──\n%s\n", filepath.Join(*dir, f.Name), f.Snippet)
		}
		fmt.Fprintln(stdout, "# `aide-lsp setup helix --write` adds what is missing to those files; it never changes a key you set.")
		return exitOK
	}
	if *dir == "" {
		return fail(exitUsage, "no Helix config folder (HOME is not set): pass --config-dir")
	}
	code := exitOK
	for _, f := range helix.Files() {
		path := filepath.Join(*dir, f.Name)
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			code = fail(exitFailed, "%s: %v", path, err)
			continue
		}
		res, err := helix.Merge(string(old), f.Snippet)
		if err != nil {
			code = fail(exitFailed, "%s: %v", path, err)
			continue
		}
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "note  %s: %s\n", path, n)
		}
		if res.Text == string(old) {
			fmt.Fprintf(stdout, "ok    %s: nothing to add\n", path)
			continue
		}
		fmt.Fprint(stdout, helix.Diff(path, string(old), res.Text))
		mode := fs.FileMode(0o644) // Helix's files are not secret; an existing file keeps its mode
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := workspace.WriteFileAtomic(path, []byte(res.Text), mode); err != nil {
			code = fail(exitFailed, "%s: %v", path, err)
			continue
		}
		fmt.Fprintf(stdout, "ok    %s: added %d (%v)\n", path, len(res.Added), res.Added)
	}
	return code
}

// helixConfigDir is where Helix reads its config: %AppData%\helix on
// Windows, else $XDG_CONFIG_HOME/helix or ~/.config/helix (macOS too).
func helixConfigDir() string {
	if runtime.GOOS == "windows" {
		if d := os.Getenv("AppData"); d != "" {
			return filepath.Join(d, "helix")
		}
		return ""
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "helix")
	}
	if h := os.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "helix")
	}
	return ""
}
