package editapply

// A small Myers line diff: TextEdits and RenderDiff need to know which lines
// of a hunk really changed so that reviews show small changes.

// op is one run of a line diff: lines a[i1:i2] are replaced by b[j1:j2]
// (equal when kind is '=').
type op struct {
	kind   byte // '=', '-', '+', '~' (replace)
	i1, i2 int
	j1, j2 int
}

// splitKeep splits s into lines that keep their line breaks.
func splitKeep(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' && s[i] != '\r' {
			i++
		}
		if i < len(s) {
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// diffLines returns the edit script turning a into b, as runs. Common
// prefix and suffix are stripped first; the middle is Myers O((N+M)D),
// and past maxEditCost differences the middle is one replacement, which
// keeps hostile inputs linear-ish.
func diffLines(a, b []string) []op {
	const maxEditCost = 500 // the trace costs maxEditCost² ints: 500 keeps it near 2 MB
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	if pre > 0 {
		ops = append(ops, op{'=', 0, pre, 0, pre})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, myers(ma, mb, pre, maxEditCost)...)
	if suf > 0 {
		ops = append(ops, op{'=', len(a) - suf, len(a), len(b) - suf, len(b)})
	}
	return coalesce(ops)
}

func myers(a, b []string, off int, maxD int) []op {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	if n == 0 || m == 0 {
		return []op{{'~', off, off + n, off, off + m}}
	}
	max := n + m
	if max > maxD {
		max = maxD
	}
	v := make([]int, 2*max+2)
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[max+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return []op{{'~', off, off + n, off, off + m}}
	}
	// Backtrack through the saved frontiers.
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vv := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && vv[max+k-1] < vv[max+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vv[max+pk]
		py := px - pk
		for x > px && y > py && x > 0 && y > 0 && a[x-1] == b[y-1] {
			rev = append(rev, op{'=', off + x - 1, off + x, off + y - 1, off + y})
			x--
			y--
		}
		if pk == k+1 { // insertion of b[py]
			rev = append(rev, op{'+', off + x, off + x, off + py, off + py + 1})
		} else { // deletion of a[px]
			rev = append(rev, op{'-', off + px, off + px + 1, off + y, off + y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		rev = append(rev, op{'=', off + x - 1, off + x, off + y - 1, off + y})
		x--
		y--
	}
	out := make([]op, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

// coalesce merges adjacent runs: equal with equal, and any mix of deletions
// and insertions into one replacement.
func coalesce(ops []op) []op {
	var out []op
	for _, o := range ops {
		if o.i1 == o.i2 && o.j1 == o.j2 {
			continue
		}
		if o.kind != '=' {
			o.kind = '~'
		}
		if len(out) > 0 {
			last := &out[len(out)-1]
			if last.kind == o.kind && last.i2 == o.i1 && last.j2 == o.j1 {
				last.i2, last.j2 = o.i2, o.j2
				continue
			}
		}
		out = append(out, o)
	}
	return out
}
