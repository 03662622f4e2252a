package editapply

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Paths as the model writes them, read as the user would (contract §9.2).

// isBinary: a NUL byte or invalid UTF-8. Such a file is never edited as
// text.
func isBinary(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

func allow(opts Options, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("the edit names no file path; give the path relative to the workspace root")
	}
	// "app\\server.go" is app/server.go to anyone reading it: a backslash in
	// a file name is never what a model means, and creating one would put
	// a file nobody asked for at the root.
	p = cleanModelPath(p)
	if len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') {
		if len(p) >= 3 && p[2] == '/' {
			return "", fmt.Errorf("%s is a Windows absolute path; give the path relative to the workspace root", p)
		}
		return "", fmt.Errorf("%s is a Windows path relative to a drive letter; give the path relative to the workspace root", p)
	}
	if strings.HasSuffix(p, "/") {
		return "", fmt.Errorf("%s ends with a path separator, so it names a folder, not a file; give the file's path relative to the workspace root", p)
	}
	if p == "~" || strings.HasPrefix(p, "~") && !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
		return home(opts, p)
	}
	if opts.Allow == nil {
		return p, nil
	}
	return opts.Allow(p)
}

// isMarkdown: prose files whose content may really be a fence. A file
// without an extension is prose only by a prose name (a Dockerfile is not).
func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".rmd", ".txt", ".rst":
		return true
	case "":
		switch strings.ToUpper(path.Base(p)) {
		case "README", "LICENSE", "CHANGELOG", "NOTICE", "AUTHORS", "CONTRIBUTING", "NOTES":
			return true
		}
	}
	return false
}

// gitPrefixed maps "a/app/main.go" (a diff's prefix carried into a path)
// or "@app/main.go" (a mention) to "app/main.go" when only the latter exists: the user would recognise
// it as that file. A path that exists as written is never changed.
func gitPrefixed(files Files, p string, opts Options) string {
	cut := 0
	switch {
	case strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/"):
		cut = 2
	case strings.HasPrefix(p, "@"): // an @-mention of the file
		cut = 1
	default:
		return p
	}
	if _, exists, _ := files.Read(p); exists {
		return p
	}
	q, err := allow(opts, p[cut:])
	if err != nil {
		return p
	}
	if _, exists, _ := files.Read(q); exists {
		return q
	}
	return p
}

// cleanModelPath undoes what models wrap around a path: quotes or
// backticks, a file:// scheme, backslashes. What is left is checked by
// Options.Allow like any path.
func cleanModelPath(p string) string {
	p = strings.TrimSpace(p)
	for len(p) >= 2 && (p[0] == '`' && p[len(p)-1] == '`' || p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
		p = strings.TrimSpace(p[1 : len(p)-1])
	}
	if strings.HasPrefix(p, "file://") {
		p = strings.TrimPrefix(p, "file://")
	}
	// VS Code's variable for the workspace root.
	for _, v := range []string{"${workspaceFolder}/", "${workspaceRoot}/", "$WORKSPACE/"} {
		p = strings.TrimPrefix(p, v)
	}
	return strings.ReplaceAll(p, "\\", "/")
}

// home reads a home-relative path ("~/proj/app.go"): it is the file in the
// user's home folder, taken only when that is inside the workspace (the one
// reading); otherwise it is refused, never made a folder named "~".
func home(opts Options, p string) (string, error) {
	refuse := fmt.Errorf("%s is a path in a home folder (~), outside what the edit may name; give the path relative to the workspace root", p)
	dir, err := os.UserHomeDir()
	if err != nil || opts.Allow == nil || p != "~" && !strings.HasPrefix(p, "~/") {
		return "", refuse
	}
	rel, err := opts.Allow(filepath.ToSlash(filepath.Join(dir, p[1:])))
	if err != nil {
		return "", refuse
	}
	return rel, nil
}

// intoFolder reads a rename target that ends with a path separator
// ("lib/") as the folder to move the file into, keeping its name, as mv
// does — when that folder exists. Otherwise the name may as well be cut
// off, and the target is left for allow to refuse.
func intoFolder(files Files, target, from string) string {
	t := cleanModelPath(target)
	if dir := strings.TrimSuffix(t, "/"); dir != t && strings.Trim(dir, "/") != "" && folderExists(files, dir) {
		return t + path.Base(from)
	}
	return target
}

// folderExists: dir is a folder of the workspace. A Files that lists its
// paths (the tests' maps) says so by a path under it; the workspace
// refuses to read a folder as a file (an error, not "does not exist").
func folderExists(files Files, dir string) bool {
	if l, ok := files.(interface{ Paths() []string }); ok {
		for _, q := range l.Paths() {
			if strings.HasPrefix(q, dir+"/") {
				return true
			}
		}
		return false
	}
	_, exists, err := files.Read(dir)
	return err != nil && !exists
}
