package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const trustUsage = `Usage: aide-lsp trust [--dir DIR] | --list | --revoke [--dir DIR]

A workspace's .aide/config.json comes with the repository, so it is untrusted:
it may set models (among your providers), limits and extra deny globs, but not
providers, base URLs, key variables or kinds. Trusting it records the SHA-256
of its current content in your state folder
($XDG_STATE_HOME/aide-lsp/trusted.json, else ~/.local/state/aide-lsp/trusted.json);
once the file changes it is untrusted again. Read the file before you trust it.

Trusting also records the folder itself: only in a trusted folder does
verification (the "verify" commands) run the folder's build files, its
Makefile, tests and scripts, and then only inside the sandbox.

Examples:
  aide-lsp trust --dir ~/src/app      trust ~/src/app and its .aide/config.json as it is now
  aide-lsp trust --list               the trusted files
  aide-lsp trust --revoke --dir ~/src/app

Flags:
`

// runTrust is `aide-lsp trust` (contract §8).
func runTrust(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("trust", trustUsage)
	dir := fs.String("dir", ".", "workspace root whose .aide/config.json to trust")
	list := fs.Bool("list", false, "list the trusted files")
	revoke := fs.Bool("revoke", false, "forget the trust of DIR/.aide/config.json")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := failer("trust", stderr)
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q: name the folder with --dir", fs.Arg(0))
	}
	if *list && *revoke {
		return fail(exitUsage, "--list and --revoke: pick one")
	}
	store := config.DefaultTrustStore(os.Getenv)
	if store.Path == "" {
		return fail(exitUsage, "no state folder: set XDG_STATE_HOME or HOME")
	}
	if *list {
		entries, err := store.List()
		if err != nil {
			return fail(exitFailed, "%v", err)
		}
		if len(entries) == 0 {
			fmt.Fprintf(stdout, "no trusted files (%s)\n", store.Path)
			return exitOK
		}
		for _, e := range entries {
			if e.SHA256 == config.FolderTrust {
				fmt.Fprintf(stdout, "%s  folder  %s  trusted: verification runs its build files\n", e.Path, e.TrustedAt.Format(time.DateOnly))
				continue
			}
			state := "trusted"
			if raw, err := workspace.ReadRegular(e.Path, workspace.MaxConfigBytes); err != nil {
				state = "missing"
			} else if config.Hash(raw) != e.SHA256 {
				state = "changed since (untrusted)"
			}
			fmt.Fprintf(stdout, "%s  sha256 %s…  %s  %s\n", e.Path, e.SHA256[:min(12, len(e.SHA256))], e.TrustedAt.Format(time.DateOnly), state)
		}
		return exitOK
	}
	root, err := workspaceDir(*dir)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	l := config.Load(config.LoadOptions{Getenv: os.Getenv, Root: root, Trust: &config.TrustStore{}})
	wf := l.Workspace
	if *revoke {
		foundDir, err := store.Revoke(root)
		if err != nil {
			return fail(exitFailed, "%v", err)
		}
		if foundDir {
			fmt.Fprintf(stdout, "%s is no longer trusted: verification will not run there\n", root)
		}
		found, err := store.Revoke(wf.Path)
		if err != nil {
			return fail(exitFailed, "%v", err)
		}
		if !found && foundDir {
			return exitOK
		}
		if !found {
			fmt.Fprintf(stdout, "%s was not trusted\n", wf.Path)
			return exitOK
		}
		fmt.Fprintf(stdout, "%s is no longer trusted\n", wf.Path)
		return exitOK
	}
	if wf.Err != nil {
		return fail(exitUsage, "%v: not trusted", wf.Err)
	}
	// The folder: verification may run its build files (contract §2).
	if err := store.Trust(root, config.FolderTrust, time.Now()); err != nil {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintf(stdout, "trusted the folder %s in %s: verification may run its build files\n", root, store.Path)
	if !wf.Exists {
		return exitOK
	}
	if err := store.Trust(wf.Path, wf.SHA256, time.Now()); err != nil {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintf(stdout, "trusted %s (sha256 %s…) in %s\n", wf.Path, wf.SHA256[:12], store.Path)
	if len(wf.Wants) > 0 {
		fmt.Fprintf(stdout, "it may now route: %s\n", model.Redact(joinSemi(wf.Wants)))
	}
	return exitOK
}

func joinSemi(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += "; "
		}
		out += v
	}
	return out
}
