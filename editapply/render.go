package editapply

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change, as in
// `diff -u` and git.
const diffContext = 3

// RenderDiff renders unified diffs per file, each hunk labelled with its id,
// for the plan document. files gives the current content.
//
// Format: per file "--- a/path" and "+++ b/path" ("/dev/null" for a created
// or deleted file); hunk ids go in the @@ header's trailer, where git puts
// the function name: "@@ -12,7 +12,9 @@ h3". Hunks close enough for their
// context to overlap share one @@ block whose trailer lists all their ids
// ("@@ ... @@ h3 h4"), so the output stays a valid patch. A rename is a
// git-style "diff --git" block with "rename from"/"rename to" lines
// preceded by a "# h5" line. Line breaks are shown as "\n" (a CRLF file's
// \r is not printed); "\ No newline at end of file" marks a missing final
// newline. A file whose hunks no longer apply is reported in a "# " line.
func RenderDiff(hunks []Hunk, files Files) string {
	var b strings.Builder
	var order []string
	byPath := map[string][]Hunk{}
	for _, h := range hunks {
		if _, ok := byPath[h.Path]; !ok {
			order = append(order, h.Path)
		}
		byPath[h.Path] = append(byPath[h.Path], h)
	}
	for _, p := range order {
		hs := byPath[p]
		content, exists, err := "", false, error(nil)
		if files != nil {
			content, exists, err = files.Read(p)
		}
		if err != nil {
			fmt.Fprintf(&b, "# %s: cannot read (%v)\n", p, err)
			continue
		}
		if !exists {
			content = ""
		}
		var text []Hunk
		var ops []Hunk
		for _, h := range hs {
			if h.Kind == KindRename || h.Kind == KindDelete {
				ops = append(ops, h)
			} else {
				text = append(text, h)
			}
		}
		deleted := false
		for _, h := range ops {
			if h.Kind == KindDelete {
				deleted = true
			}
		}
		if len(text) > 0 || deleted {
			after, err := Apply(content, text)
			if err != nil {
				fmt.Fprintf(&b, "# %s: %v\n", p, err)
				continue
			}
			oldName, newName := "a/"+p, "b/"+p
			created := len(text) > 0 && text[0].Created
			var ids []string
			var spans [][2]int // byte ranges of the changes, in content
			for _, h := range text {
				ids = append(ids, h.ID)
				spans = append(spans, [2]int{h.Start, h.End})
			}
			if deleted {
				newName = "/dev/null"
				after = ""
				for _, h := range ops {
					if h.Kind == KindDelete {
						ids, spans = []string{h.ID}, [][2]int{{0, len(content)}}
					}
				}
			}
			if created {
				oldName = "/dev/null"
			}
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
			writeHunks(&b, content, after, text, deleted, ids)
		}
		for _, h := range ops {
			if h.Kind == KindRename {
				fmt.Fprintf(&b, "diff --git a/%s b/%s\n# %s\nrename from %s\nrename to %s\n", h.Path, h.NewPath, h.ID, h.Path, h.NewPath)
			}
		}
	}
	return b.String()
}

// block is one @@ block under construction: lines [a1, a2) of the old file,
// [b1, b2) of the new, and the hunk ids it shows.
type block struct {
	a1, a2, b1, b2 int
	ids            []string
}

func writeHunks(b *strings.Builder, before, after string, text []Hunk, deleted bool, ids []string) {
	a, c := splitKeep(before), splitKeep(after)
	if deleted {
		if len(a) > 0 {
			writeBlock(b, a, c, []op{{'~', 0, len(a), 0, 0}}, block{0, len(a), 0, 0, ids})
		}
		return
	}
	// The hunks' line ranges in the old file, to label the changed runs.
	starts := lineStarts(before)
	type lines struct {
		from, to int
		id       string
	}
	var owned []lines
	for _, h := range text {
		from := lineOf(starts, h.Start)
		to := from + 1
		if h.End > h.Start {
			to = lineOf(starts, h.End-1) + 1
		}
		owned = append(owned, lines{from, to, h.ID})
	}
	var groups []block
	var groupOps [][]op
	for _, o := range diffLines(a, c) {
		if o.kind == '=' {
			continue
		}
		var runIDs []string
		for _, w := range owned {
			lo, hi := o.i1, o.i2
			if hi == lo {
				hi = lo + 1 // a pure insertion sits before line lo
			}
			if w.from < hi && lo < w.to || o.i1 == o.i2 && w.to == o.i1 {
				runIDs = append(runIDs, w.id)
			}
		}
		a1, a2 := max(0, o.i1-diffContext), min(len(a), o.i2+diffContext)
		if n := len(groups); n > 0 && a1 <= groups[n-1].a2 {
			g := &groups[n-1]
			g.a2 = max(g.a2, a2)
			for _, id := range runIDs {
				if !contains(g.ids, id) {
					g.ids = append(g.ids, id)
				}
			}
			groupOps[n-1] = append(groupOps[n-1], o)
			continue
		}
		groups = append(groups, block{a1: a1, a2: a2, ids: runIDs})
		groupOps = append(groupOps, []op{o})
	}
	d := 0 // new line number - old line number before the current block
	for n, g := range groups {
		g.b1 = g.a1 + d
		for _, o := range groupOps[n] {
			d += (o.j2 - o.j1) - (o.i2 - o.i1)
		}
		g.b2 = g.a2 + d
		writeBlock(b, a, c, groupOps[n], g)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func writeBlock(b *strings.Builder, a, c []string, ops []op, g block) {
	start := func(s, n int) int {
		if n == 0 {
			return s
		}
		return s + 1
	}
	fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@ %s\n", start(g.a1, g.a2-g.a1), g.a2-g.a1, start(g.b1, g.b2-g.b1), g.b2-g.b1, strings.Join(g.ids, " "))
	i := g.a1
	for _, o := range ops {
		for ; i < o.i1; i++ {
			writeLine(b, ' ', a[i])
		}
		for k := o.i1; k < o.i2; k++ {
			writeLine(b, '-', a[k])
		}
		for k := o.j1; k < o.j2 && k < len(c); k++ {
			writeLine(b, '+', c[k])
		}
		i = o.i2
	}
	for ; i < g.a2; i++ {
		writeLine(b, ' ', a[i])
	}
}

func writeLine(b *strings.Builder, mark byte, l string) {
	b.WriteByte(mark)
	body := strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	b.WriteString(body)
	b.WriteByte('\n')
	if !strings.HasSuffix(l, "\n") && !strings.HasSuffix(l, "\r") {
		b.WriteString("\\ No newline at end of file\n")
	}
}

// lineStarts returns the offsets where lines of s start.
func lineStarts(s string) []int {
	out := []int{0}
	for _, l := range splitKeep(s) {
		out = append(out, out[len(out)-1]+len(l))
	}
	if len(out) > 1 && out[len(out)-1] == len(s) {
		out = out[:len(out)-1]
	}
	return out
}

// lineOf returns the line holding offset off (an offset at a line start
// belongs to that line).
func lineOf(starts []int, off int) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		m := (lo + hi) / 2
		if starts[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}
