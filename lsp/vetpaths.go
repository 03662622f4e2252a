package lsp

import (
	"context"
	"fmt"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// vetPaths checks the paths of hunks against the workspace again, right
// before an edit is built from them (an applyEdit, an accept code action):
// since the proposal a folder may have been swapped for a symbolic link out
// of the workspace, or the path denied. A hunk whose path no longer
// resolves is left out and goes stale with the reason, in the background;
// an edit is never built from such a path, which docFor could only turn
// into a file URI outside the workspace (docs/contract.md §8).
func (s *Server) vetPaths(session string, hunks []editapply.Hunk) []editapply.Hunk {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if ws == nil {
		return hunks
	}
	ok := hunks[:0:0]
	var bad []string
	reason := ""
	for _, h := range hunks {
		err := error(nil)
		if _, _, err = ws.Resolve(h.Path); err == nil && h.Kind == editapply.KindRename {
			_, _, err = ws.Resolve(h.NewPath)
		}
		if err != nil {
			bad = append(bad, h.ID)
			if reason == "" {
				reason = fmt.Sprintf("its path is refused now: %v", err)
			}
			continue
		}
		ok = append(ok, h)
	}
	if len(bad) > 0 {
		s.log.Warn("hunks withdrawn: their path no longer resolves", "session", session, "hunks", bad, "reason", reason)
		s.Go(func(context.Context) {
			if _, err := s.eng().Stale(session, bad, reason); err != nil {
				s.log.Warn("stale hunks not recorded", "session", session, "err", err)
			}
		})
	}
	return ok
}

// labelRunsCode marks a hunk to a sensitive file (workspace.Sensitive,
// contract §2) in its diagnostic, its hover and its change annotation,
// followed by why, as the ACP hunk title says it (commands.Engine.question).
const labelRunsCode = "runs code: "

// runsCodeLabels returns labels with "runs code: <why>" added to each hunk
// whose file is sensitive, judged on the resolved path and on the file's
// content before and after the hunk (package.json: its scripts).
func (s *Server) runsCodeLabels(hunks []editapply.Hunk, labels map[string]string) map[string]string {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	out := make(map[string]string, len(labels))
	for id, l := range labels {
		out[id] = l
	}
	if ws == nil {
		return out
	}
	for _, h := range hunks {
		old := s.content(s.absOf(h.Path))
		var newText []byte
		if h.Kind != editapply.KindDelete {
			if n, err := editapply.Apply(old, []editapply.Hunk{h}); err == nil {
				newText = []byte(n)
			}
		}
		why := ws.Sensitive(h.Path, []byte(old), newText)
		if why == "" && h.Kind == editapply.KindRename {
			why = ws.Sensitive(h.NewPath, nil, []byte(old))
		}
		if why == "" {
			continue
		}
		if out[h.ID] != "" {
			out[h.ID] += ", " + labelRunsCode + why
		} else {
			out[h.ID] = labelRunsCode + why
		}
	}
	return out
}
