package acp_test

import (
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// BenchmarkStreamPlan streams a 192 KiB architect answer to the client
// through the agent, the border and the SDK: one line per delta against
// the whole answer in one delta. Streaming costs time linear in the text
// whatever the cuts, so the two stay within a small factor of each other
// (docs/performance.md, "Streaming to a client"); each iteration is a
// whole prompt turn (the plan is put up for approval and kept).
func BenchmarkStreamPlan(b *testing.B) {
	line := "- a line of the plan, with `code` and a <b>tag</b> ## x\n"
	text := "## Plan\n1. Do it\n## End Plan\n" + strings.Repeat(line, (192<<10)/len(line))
	for _, c := range []struct {
		name  string
		chunk int
	}{{"lines", len(line)}, {"one-piece", len(text)}} {
		b.Run(c.name, func(b *testing.B) {
			replies := make([]modeltest.Reply, 0, b.N)
			for range b.N {
				replies = append(replies, modeltest.Reply{Text: text, ChunkSize: c.chunk})
			}
			e := start(b, envOpts{replies: replies})
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for range b.N {
				e.prompt(b, "plan it", false)
			}
		})
	}
}
