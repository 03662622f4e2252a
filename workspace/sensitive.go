package workspace

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
)

// Sensitive paths (issue 16): files that run commands on the user's or
// CI's machine when a tool, an editor or git acts on them. An edit to one
// needs --allow-sensitive in `run --apply`, and the editor's review marks
// it. The patterns match the slash path relative to the root; a pattern
// without "/" matches the base name at any depth.
var sensitivePatterns = []string{
	".github/workflows/*", ".gitlab-ci.yml", ".circleci/*", ".travis.yml", "azure-pipelines.yml",
	".buildkite/*", "Jenkinsfile", "bitbucket-pipelines.yml",
	".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json", ".idea/*",
	"Makefile", "makefile", "GNUmakefile", "*.mk", "*.sh", "*.bash", "*.zsh", ".envrc",
	".gitattributes", ".gitmodules", ".gitconfig", ".husky/*", ".githooks/*", "lefthook.yml", ".lefthook.yml",
	".pre-commit-config.yaml", ".pre-commit-hooks.yaml",
}

// Sensitive says why an edit of rel (from old to new content; old is nil
// for a new file, new nil for a delete) is sensitive, or "" when it is not.
// package.json is sensitive only when its "scripts" change.
func Sensitive(rel string, old, new []byte) string {
	rel = strings.TrimPrefix(path.Clean(strings.ReplaceAll(rel, "\\", "/")), "./")
	base := path.Base(rel)
	if base == "package.json" {
		if !bytes.Equal(scripts(old), scripts(new)) {
			return "it changes the package.json scripts (run by npm)"
		}
		return ""
	}
	for _, p := range sensitivePatterns {
		if strings.Contains(p, "/") {
			dir, glob, _ := strings.Cut(p, "/")
			// "dir/*" matches anything under dir at the root or below.
			for i := 0; i+len(dir) <= len(rel); {
				j := strings.Index(rel[i:], dir+"/")
				if j < 0 {
					break
				}
				at := i + j
				if at == 0 || rel[at-1] == '/' {
					if glob == "*" {
						return "it configures a tool that runs commands (" + p + ")"
					}
					if ok, _ := path.Match(glob, rel[at+len(dir)+1:]); ok {
						return "it configures a tool that runs commands (" + p + ")"
					}
				}
				i = at + 1
			}
			continue
		}
		if ok, _ := path.Match(p, base); ok {
			return "it runs commands (" + p + ")"
		}
	}
	return ""
}

func scripts(pkg []byte) []byte {
	if pkg == nil {
		return nil
	}
	var v struct {
		Scripts json.RawMessage `json:"scripts"`
	}
	if json.Unmarshal(pkg, &v) != nil {
		return pkg // unreadable: any change counts
	}
	var norm any
	if json.Unmarshal(v.Scripts, &norm) != nil {
		return nil
	}
	out, _ := json.Marshal(norm)
	return out
}
