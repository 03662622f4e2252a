package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/planview"
)

// maxChangeChars bounds the change shown in a proposal diagnostic: Neovim
// shows a diagnostic's first line as virtual text at the end of the line
// and Helix inline beside it, so the change stays on one short line; the
// whole diff is on hover.
const maxChangeChars = 80

// proposalMessage is the diagnostic message of a pending hunk: its id and
// summary, then what it changes to (the new lines, joined with ⏎ and
// shortened), so the change reads in place without the plan document.
//
// label names the plan step ("step 2"), or flags a hunk the plan did not ask
// for ("not in the plan"): "AIDE proposal h3 (not in the plan): …".
func proposalMessage(h editapply.Hunk, label string) string {
	id := h.ID
	if label != "" {
		id += " (" + label + ")"
	}
	msg := fmt.Sprintf("AIDE proposal %s: %s", id, h.Summary)
	if c := changeText(h); c != "" {
		msg += " → " + c
	}
	return msg
}

// changeText is a hunk's new text on one line.
func changeText(h editapply.Hunk) string {
	switch h.Kind {
	case editapply.KindRename:
		return ""
	case editapply.KindDelete:
		return "(file deleted)"
	}
	if h.NewText == "" {
		return "(lines removed)"
	}
	var parts []string
	for _, l := range strings.Split(strings.TrimRight(h.NewText, "\r\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "(blank lines)"
	}
	return shorten(strings.Join(parts, " ⏎ "), maxChangeChars)
}

// hoverFiles gives RenderDiff one file's content (the text the hunk is
// expressed against).
type hoverFiles struct{ path, text string }

func (f hoverFiles) Read(p string) (string, bool, error) {
	if p == f.path {
		return f.text, true, nil
	}
	return "", false, nil
}

// hover answers textDocument/hover on a pending code-action hunk with its
// diff in a ```diff block (contract §6); elsewhere it answers null, so the
// editor's other language servers' hovers are shown as usual.
func (s *Server) hover(ctx context.Context, params []byte) (any, error) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Position protocol.Position `json:"position"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	abs := uriPath(p.TextDocument.URI)
	if abs == "" {
		return nil, nil
	}
	enc := s.encoding()
	var parts []string
	var hit *protocol.Range
	cur := ""
	curRead := false
	for _, rs := range inPlace(s.currentReview(ctx)) {
		all := make([]editapply.Hunk, len(rs.Hunks))
		for i, t := range rs.Hunks {
			all[i] = t.Hunk
		}
		labels := s.runsCodeLabels(all, rs.Labels)
		for _, t := range rs.Hunks {
			if t.Abs != abs {
				continue
			}
			if !curRead {
				cur, curRead = s.content(abs), true
			}
			r := editapply.HunkRange(t.Hunk, cur, enc)
			last := r.End.Line
			if r.End.Character == 0 && last > r.Start.Line {
				last-- // the range ends at the start of the next line
			}
			if p.Position.Line < r.Start.Line || p.Position.Line > last {
				continue
			}
			diff := editapply.RenderDiff([]editapply.Hunk{t.Hunk}, hoverFiles{t.Hunk.Path, t.Base})
			step := ""
			if l := labels[t.Hunk.ID]; l != "" {
				step = ", " + planview.DefangLine(l)
			}
			// Hovers are Markdown the editor renders: the model's summary
			// defanged and its diff fenced past its longest backtick run,
			// so that neither fetches (planview.Defang).
			parts = append(parts, fmt.Sprintf("**AIDE proposal %s** (session %s%s): %s\n\n%s",
				t.Hunk.ID, rs.Session, step, planview.DefangLine(t.Hunk.Summary), planview.Fenced("diff", strings.TrimRight(diff, "\n"))))
			if hit == nil {
				rr := r
				hit = &rr
			}
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return map[string]any{
		"contents": map[string]any{"kind": "markdown", "value": strings.Join(parts, "\n\n---\n\n") +
			"\n\nAccept or reject it with the code actions on this line."},
		"range": hit,
	}, nil
}

// labelNotInPlan is the step label of a hunk no plan step asks for.
const labelNotInPlan = "not in the plan"

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
