package main

import (
	"fmt"
	"io"
	"os"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// loadConfig is the configuration every subcommand uses (config.Load): the
// user's file, DIR/.aide/config.json by its trust, the environment, the
// flags. Problems are printed as warnings; an untrusted file that asks for
// trust-only keys is told once, with the command that trusts it.
func loadConfig(name, root, archFlag, edFlag string, extra []config.Layer, stderr io.Writer) config.Loaded {
	l := config.Load(config.LoadOptions{Getenv: os.Getenv, Root: root, Extra: extra,
		ArchitectModel: archFlag, EditorModel: edFlag})
	for _, p := range l.Problems {
		fmt.Fprintf(stderr, "aide-lsp %s: warning: %s\n", name, model.Redact(p.String()))
	}
	if l.Workspace.NeedsTrust() {
		fmt.Fprintf(stderr, "aide-lsp %s: warning: %s\n", name, model.Redact(l.Workspace.TrustMessage(root)))
	}
	return l
}

// indexCacheDir is the folder of root's tag cache in the user's cache
// folder (treesitter.UserCacheDir), "" with a warning when there is none:
// the index then works without a cache.
func indexCacheDir(name, root string, stderr io.Writer) string {
	dir, err := treesitter.UserCacheDir(config.CacheDir(os.Getenv), root)
	if err != nil {
		fmt.Fprintf(stderr, "aide-lsp %s: warning: no tag cache, the workspace is indexed cold: %v\n", name, err)
	}
	return dir
}

// routerOptions are the model.Options a configuration implies.
func routerOptions(cfg config.Config) model.Options {
	return model.Options{HTTPAllowed: cfg.HTTPAllowed}
}
