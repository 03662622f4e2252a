package lsp

import (
	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// What landed is the engine's to decide (commands.Judge, on its review
// set): this file only gives lsp's names to it.

type hunkFate = commands.Fate

const (
	fatePending = commands.FatePending
	fateLanded  = commands.FateLanded
	fateStale   = commands.FateStale
)

// judged is commands.Verdict for one tracked hunk.
type judged struct {
	hunk editapply.Hunk
	fate hunkFate
}

// judge is commands.Judge over tracked hunks.
func judge(ts []tracked, content func(abs string) string) []judged {
	set := make([]commands.ReviewHunk, len(ts))
	for i, t := range ts {
		set[i] = commands.ReviewHunk{Hunk: t.hunk, Abs: t.abs, Base: t.base}
	}
	vs := commands.Judge(set, content)
	out := make([]judged, len(vs))
	for i, v := range vs {
		out[i] = judged{hunk: v.Hunk, fate: v.Fate}
	}
	return out
}
