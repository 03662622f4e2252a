package workspace

import (
	"context"
	"path"
	"time"
)

// BaseNamed lists the root-relative paths of the files named base (in any
// folder) that are neither ignored nor denied. editapply asks for it only
// when an answer names a file without a folder that is not at the root
// (docs/edits.md, readings: a bare file name); the walk is bounded in time
// so a huge tree cannot stall an answer — a bare name it did not reach is
// then read as written.
func (w *Workspace) BaseNamed(base string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	all, err := w.Files(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range all {
		if path.Base(p) == base {
			out = append(out, p)
		}
	}
	return out
}
