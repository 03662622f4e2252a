package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// WorkspaceFileName is the workspace's configuration, relative to its root.
const WorkspaceFileName = ".aide/config.json"

// Layer is one JSON layer an editor or a command line supplies.
type Layer struct {
	Source string // "initializationOptions", "workspace/configuration", a file name
	Origin Origin
	Raw    json.RawMessage
}

// LoadOptions are the sources of one configuration, every one optional.
type LoadOptions struct {
	Getenv func(string) string // default os.Getenv
	// Root is the workspace root whose .aide/config.json is read; "" none.
	Root string
	// UserFile is the user's configuration file; "" is UserConfigPath.
	UserFile string
	// Extra are layers merged after the user file and before the workspace
	// file (bench --config, FromUser).
	Extra []Layer
	// Editor are the editor's layers (FromEditor), in precedence order.
	Editor []Layer
	// ArchitectModel and EditorModel are the command line's flags.
	ArchitectModel, EditorModel string
	// Trust is the trust store; nil is DefaultTrustStore.
	Trust *TrustStore
}

// WorkspaceFile is what became of the workspace's .aide/config.json.
type WorkspaceFile struct {
	Path    string // absolute path, "" when there is no root
	Exists  bool
	SHA256  string // of the content read
	Trusted bool
	// Wants lists, for the user, what the untrusted file asked for and did
	// not get: provider names, hosts, key variables.
	Wants []string
	Err   error // unreadable (a FIFO, a link, too large, ...): skipped
	// FolderTrusted: the user trusted the workspace folder itself
	// (FolderTrust), so verification may run its build files.
	FolderTrusted bool
}

// NeedsTrust says the file asked for trust-only keys it did not get.
func (w WorkspaceFile) NeedsTrust() bool { return w.Exists && !w.Trusted && len(w.Wants) > 0 }

// Loaded is the outcome of Load.
type Loaded struct {
	Config   Config // effective (Effective applied)
	Problems []Problem
	// FlagProblems are the command line's own: a usage error.
	FlagProblems []Problem
	Workspace    WorkspaceFile
	UserFile     string // the user file looked for ("" none)
	UserFileRead bool
}

// Load merges the sources of contract §3, lowest precedence first:
// defaults; the workspace's settings (its .aide/config.json, with the rules
// of its trust, then the editor's workspace-folder settings); the user's
// config file (and Extra); the environment; the editor's user settings;
// the flags. Everything the user sets ranks above what a repository sets,
// so a repository's model or prices never override the user's own; a model
// a workspace names is kept only when its provider is one the user
// configured (or a built-in); and review is decided across all layers by
// EffectiveReview, where a workspace's settings only make it stricter.
func Load(o LoadOptions) Loaded {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	var out Loaded
	cfg := Defaults()
	add := func(p []Problem) { out.Problems = append(out.Problems, p...) }

	// The editor's layers: their workspaceSettings are the workspace's.
	editor := make([]Layer, len(o.Editor))
	var editorWS []Layer
	for i, l := range o.Editor {
		user, ws := splitWorkspaceSettings(l.Raw)
		editor[i] = Layer{Source: l.Source, Origin: l.Origin, Raw: user}
		if ws != nil {
			editorWS = append(editorWS, Layer{Source: l.Source + " workspaceSettings", Origin: FromEditorWorkspace, Raw: ws})
		}
	}

	before := cfg
	untrustedRoot := ""
	if o.Root != "" {
		store := o.Trust
		if store == nil {
			s := DefaultTrustStore(o.Getenv)
			store = &s
		}
		var p []Problem
		out.Workspace, p = applyWorkspaceFile(&cfg, o.Root, *store)
		add(p)
		if !out.Workspace.FolderTrusted {
			untrustedRoot = o.Root
		}
	}
	for _, l := range editorWS {
		add(cfg.ApplyFrom(l.Source, l.Origin, l.Raw))
	}
	wsModels := map[string]string{}
	if cfg.ArchitectModel != before.ArchitectModel {
		wsModels["architectModel"] = cfg.ArchitectModel
	}
	if cfg.EditorModel != before.EditorModel {
		wsModels["editorModel"] = cfg.EditorModel
	}

	out.UserFile = o.UserFile
	if out.UserFile == "" {
		out.UserFile = UserConfigPath(o.Getenv)
	}
	if out.UserFile != "" {
		raw, err := workspace.ReadRegular(out.UserFile, workspace.MaxConfigBytes)
		switch {
		case err == nil:
			out.UserFileRead = true
			add(cfg.ApplyFrom(out.UserFile, FromUser, raw))
		case !os.IsNotExist(err):
			add([]Problem{{Source: out.UserFile, Key: "(file)", Msg: err.Error()}})
		}
	}
	for _, l := range o.Extra {
		add(cfg.ApplyFrom(l.Source, l.Origin, l.Raw))
	}

	add(cfg.ApplyEnv(o.Getenv))
	for _, l := range editor {
		add(cfg.ApplyFrom(l.Source, l.Origin, l.Raw))
	}
	out.FlagProblems = cfg.ApplyModels("flags", o.ArchitectModel, o.EditorModel)

	// A model the workspace chose, still in effect, must name a provider
	// the user configured: otherwise the choice is dropped (the default
	// applies).
	for key, id := range wsModels {
		cur, prev := &cfg.ArchitectModel, before.ArchitectModel
		if key == "editorModel" {
			cur, prev = &cfg.EditorModel, before.EditorModel
		}
		if *cur != id {
			continue
		}
		name, _, _ := strings.Cut(id, "/")
		if _, ok := cfg.Providers[name]; ok || builtinProviders[name] {
			continue
		}
		*cur = prev
		add([]Problem{{Source: WorkspaceFileName, Key: key,
			Msg: fmt.Sprintf("ignored: provider %q of %q is not one you configured (add it to %s, or trust this file: aide-lsp trust)", name, id, userFileHint(out.UserFile))}})
	}

	// Problems that are requests for trust are reported once through the
	// trust report, not as errors of the file.
	kept := out.Problems[:0]
	for _, p := range out.Problems {
		if p.NeedsTrust {
			out.Workspace.Wants = append(out.Workspace.Wants, p.Msg)
			continue
		}
		kept = append(kept, p)
	}
	out.Problems = kept
	out.Config = cfg.Effective()
	out.Config.UntrustedRoot = untrustedRoot
	return out
}

// splitWorkspaceSettings takes the "workspaceSettings" object out of an
// editor layer: the editor's workspace-folder settings, which rank and are
// limited as the workspace's (contract §3).
func splitWorkspaceSettings(raw json.RawMessage) (user, ws json.RawMessage) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw, nil
	}
	w, ok := fields["workspaceSettings"]
	if !ok {
		return raw, nil
	}
	delete(fields, "workspaceSettings")
	user, _ = json.Marshal(fields)
	return user, w
}

func userFileHint(p string) string {
	if p == "" {
		return "~/.config/aide-lsp/config.json"
	}
	return p
}

// applyWorkspaceFile merges <root>/.aide/config.json, read safely (a
// regular file of at most 1 MiB, no link followed, no blocking open), with
// the rules of its trust.
func applyWorkspaceFile(cfg *Config, root string, store TrustStore) (WorkspaceFile, []Problem) {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	wf := WorkspaceFile{Path: filepath.Join(root, filepath.FromSlash(WorkspaceFileName))}
	if store.Path == "" || workspace.Inside(store.Path, root) == "" {
		wf.FolderTrusted = store.Path != "" && store.Trusted(root, FolderTrust)
	}
	raw, err := workspace.ReadUnder(root, WorkspaceFileName, workspace.MaxConfigBytes)
	if err != nil {
		if os.IsNotExist(err) {
			return wf, nil
		}
		wf.Exists, wf.Err = true, err
		return wf, []Problem{{Source: WorkspaceFileName, Key: "(file)", Msg: err.Error()}}
	}
	wf.Exists = true
	wf.SHA256 = Hash(raw)
	var problems []Problem
	if store.Path != "" && workspace.Inside(store.Path, root) != "" {
		// A trust store the repository can write trusts whatever it says.
		problems = append(problems, Problem{Source: store.Path, Key: "(trust store)",
			Msg: "ignored: the trust store is inside the workspace " + root + "; set XDG_STATE_HOME to a folder outside it"})
		store = TrustStore{}
	}
	wf.Trusted = store.Path != "" && store.Trusted(wf.Path, wf.SHA256)
	origin := FromWorkspace
	if wf.Trusted {
		origin = FromTrustedWorkspace
	}
	return wf, append(problems, cfg.ApplyFrom(WorkspaceFileName, origin, raw)...)
}

// VerifyTrustMessage is the trust report of a verification that did not
// run because the workspace folder is not trusted (dir is the folder).
func VerifyTrustMessage(dir string) string {
	return fmt.Sprintf("not verified: this workspace is not trusted, and verification would run its build files (Makefile, tests, scripts). If you trust it, run: aide-lsp trust --dir %s", shellQuote(dir))
}

// TrustMessage is the one report of an untrusted file that asks for more:
// what it asks for and how to trust it (dir is the workspace folder).
func (w WorkspaceFile) TrustMessage(dir string) string {
	return fmt.Sprintf("%s is not trusted: it asks for %s, which were ignored. If you trust this content, run: aide-lsp trust --dir %s",
		WorkspaceFileName, strings.Join(w.Wants, "; "), shellQuote(dir))
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
