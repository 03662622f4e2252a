package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// IgnoreWarning says when the .gitignore rules leave out all or nearly all
// of the first root: nine in ten of its top-level entries or more (a
// packaging repository's "/*" left in a source tarball, an over-broad
// rule). The server, `aide-lsp run` and `aide-lsp map` list files with the
// same rules (Files), so all three would quietly see an empty repository;
// they show this message instead (contract §2, §5). Empty when the rules
// are ordinary.
func (w *Workspace) IgnoreWarning() string {
	entries, err := os.ReadDir(w.real[0])
	if err != nil {
		return ""
	}
	total, ignored := 0, 0
	for _, e := range entries {
		abs := filepath.Join(w.roots[0], e.Name())
		if e.Name() == ".git" || e.Name() == ".aide" || w.denied(0, abs, true) {
			continue
		}
		total++
		if w.ignored(abs, e.IsDir()) {
			ignored++
		}
	}
	if total == 0 || ignored*10 < total*9 {
		return ""
	}
	return fmt.Sprintf("the .gitignore rules ignore %d of the %d entries at the top of the workspace, so the repository map covers almost nothing: "+
		"check .gitignore and .git/info/exclude (a \"/*\" line ignores everything it does not re-include with \"!\")", ignored, total)
}
