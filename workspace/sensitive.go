package workspace

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// Sensitive files (contract §2, "sensitive"): a file is ordinary only when
// its kind is ordinary source, text or data and it lies outside every
// tool-configuration folder; anything else — whatever configures a tool,
// an editor, a build, a shell, a container or CI, or runs on its own — is
// sensitive. The list is inverted on purpose: a list of what runs code is
// never complete (.devcontainer/, .cargo/config.toml, build.rs, conftest.py,
// gradlew, .yarnrc, ... were each missing once), a list of what is plain
// source or text can only err on the side of asking.

// ordinaryExt are the extensions of ordinary source, text and data.
// Configuration formats (.yaml, .toml, .ini, .xml, .properties, .cfg)
// are not here: a file in them is almost always some tool's settings.
var ordinaryExt = map[string]bool{
	// source
	".go": true, ".py": true, ".pyi": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".rs": true, ".java": true, ".kt": true,
	".scala": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true,
	".hh": true, ".cs": true, ".fs": true, ".swift": true, ".m": true, ".mm": true, ".rb": true,
	".php": true, ".lua": true, ".ex": true, ".exs": true, ".erl": true, ".hs": true, ".ml": true,
	".mli": true, ".clj": true, ".dart": true, ".zig": true, ".nim": true, ".r": true, ".jl": true,
	".sql": true, ".proto": true, ".graphql": true, ".vue": true, ".svelte": true, ".html": true,
	".htm": true, ".css": true, ".scss": true, ".sass": true, ".less": true,
	// text
	".md": true, ".markdown": true, ".txt": true, ".rst": true, ".adoc": true, ".org": true, ".tex": true,
	// data
	".json": true, ".jsonl": true, ".ndjson": true, ".csv": true, ".tsv": true, ".svg": true,
	// binary data no tool runs nor reads as settings
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".ico": true, ".bmp": true,
	".pdf": true, ".bin": true, ".dat": true,
}

// ordinaryNames are plain-text files without an extension.
var ordinaryNames = map[string]bool{
	"readme": true, "license": true, "licence": true, "changelog": true, "authors": true,
	"contributors": true, "notice": true, "copying": true, "todo": true,
}

// runByName are the stems of source files that a build, an installer or
// a test runner runs by their name alone (build.rs by cargo, setup.py by
// pip, conftest.py by pytest, gulpfile.js by gulp, ...).
var runByName = map[string]bool{
	"build": true, "setup": true, "conftest": true, "noxfile": true, "fabfile": true, "dodo": true,
	"gulpfile": true, "gruntfile": true, "jakefile": true, "dangerfile": true,
}

// manifests are the stems of JSON files a tool reads as its project file,
// its tasks or its dependencies (a lock file chooses what is installed).
var manifests = map[string]bool{
	"composer": true, "deno": true, "project": true, "nx": true, "turbo": true, "lerna": true,
	"angular": true, "renovate": true, "vercel": true, "app": true, "manifest": true,
	"package-lock": true, "npm-shrinkwrap": true, "devcontainer": true,
}

// SensitiveKind says why a file at the slash path rel (relative to its
// root), of file mode mode (0 when it does not exist), changing from old to
// new content (old nil for a new file, new nil for a delete), is
// sensitive — it configures a tool or runs code — or "" when it is
// ordinary. The path is case-folded first: on a file system that ignores
// case MAKEFILE is a Makefile, and asking on the others costs nothing.
// package.json is sensitive only when its "scripts" change.
func SensitiveKind(rel string, mode os.FileMode, old, new []byte) string {
	rel = strings.TrimPrefix(path.Clean(strings.ReplaceAll(rel, "\\", "/")), "./")
	parts := strings.Split(foldPath(rel), "/")
	base := parts[len(parts)-1]
	for _, dir := range parts[:len(parts)-1] {
		if strings.HasPrefix(dir, ".") && dir != "." && dir != ".." {
			return "it is in " + dir + "/, a folder of tool configuration"
		}
	}
	if mode&0o111 != 0 && mode.IsRegular() {
		return "it is executable"
	}
	if bytes.HasPrefix(new, []byte("#!")) || bytes.HasPrefix(old, []byte("#!")) {
		return "it is a script (#!)"
	}
	if base == "package.json" {
		if !bytes.Equal(scripts(old), scripts(new)) {
			return "it changes the package.json scripts (run by npm)"
		}
		return ""
	}
	if strings.HasPrefix(base, ".") {
		return "it configures a tool (" + base + ")"
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if ext == "" {
		if ordinaryNames[base] {
			return ""
		}
		return "it is not plain source, text or data (" + base + ")"
	}
	if !ordinaryExt[ext] {
		return "it is not plain source, text or data (" + ext + " files configure or run tools)"
	}
	first, rest, _ := strings.Cut(stem, ".")
	if runByName[first] || strings.Contains(rest, "config") {
		return "a tool runs " + base + " by its name"
	}
	if ext == ".json" && (manifests[first] || strings.Contains(first, "config")) {
		return "a tool reads " + base + " as its settings"
	}
	return ""
}

// Sensitive is SensitiveKind of the file rel names as it is resolved:
// every symbolic link on the way followed, so a committed link
// (ci -> .github/workflows, build.mk.txt -> Makefile) is judged by what is
// written, and the name it is reached by is judged too. A path that does
// not resolve inside the workspace is sensitive.
func (w *Workspace) Sensitive(rel string, old, new []byte) string {
	abs, _, real, err := w.resolve(rel)
	if err != nil {
		return "it cannot be resolved inside the workspace (" + err.Error() + ")"
	}
	var mode os.FileMode
	if st, err := os.Stat(real); err == nil {
		mode = st.Mode()
	}
	names := []string{w.relName(abs)}
	if ri := w.rootOf(real, w.real); ri >= 0 {
		if r, err := filepath.Rel(w.real[ri], real); err == nil {
			names = append(names, filepath.ToSlash(r))
		}
	}
	for _, n := range names {
		if why := SensitiveKind(n, mode, old, new); why != "" {
			if n != names[0] {
				why += " (" + names[0] + " leads to " + n + ")"
			}
			return why
		}
	}
	return ""
}

// foldPath case-folds p: each rune to the smallest rune of its Unicode
// case-folding orbit, then to lower case, so that 'ſ' (long s) and 'K'
// (Kelvin sign) compare as "s" and "k" as macOS and Windows compare them
// (strings.ToLower leaves 'ſ' alone).
func foldPath(p string) string {
	return strings.Map(foldRune, p)
}

func foldRune(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return unicode.ToLower(min)
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
