package editapply

import (
	"fmt"
	"strings"
)

// The verifier (docs/edits.md, contract §9.2): between resolving and
// proposing, every changed file is judged by what the change does to it —
// the file before, the file after and the regions between them — and by
// nothing of how the answer was written. A file is proposed because it
// passed these checks on the result, not because a parser accepted the
// answer. Every check is a row of verifierChecks; each refusal names what
// is wrong and what to do, and goes back to the editor model.

// region is one resolved change of a file: bytes [start, end) of the file
// before become text.
type region struct {
	start, end int
	text       string
	write      bool // a whole-file write (write_file, a whole file in a fence)
	// replace: the answer deleted the file and wrote it again, so it means
	// the file to be what it wrote (conservation does not apply).
	replace bool
}

// fileChange is what the verifier sees of one file.
type fileChange struct {
	path, before, after string
	spans               []region
	// plan is the task and the plan the edits carry out: what a whole-file
	// write may drop (conservation).
	plan    string
	created bool // the file is new
	lines   *changedLines
}

// refusal is why the verifier keeps a file unchanged.
type refusal struct {
	check  string // the row of verifierChecks that refused
	reason string // what is wrong and what to do
	err    error  // the syntax error, for the syntax row's messages
	spans  []int  // the regions to blame; none: all of them, together
}

// verifierChecks run in order, cheapest first; the first refusal is the
// file's.
var verifierChecks = []struct {
	name string
	run  func(c *fileChange) *refusal
}{
	{"locality", checkLocality},
	{"artefact", checkArtefacts},
	{"conservation", checkConservation},
	{"syntax", checkSyntax},
}

// verify runs every check over one changed file.
func verify(c *fileChange) *refusal {
	for _, v := range verifierChecks {
		if ref := v.run(c); ref != nil {
			ref.check = v.name
			return ref
		}
	}
	return nil
}

// reasonFor words a refusal for one of the edits it blames.
func (ref *refusal) reasonFor(rec *editRec, path string, together bool) string {
	if ref.check != "syntax" {
		return ref.reason
	}
	switch {
	case together:
		return fmt.Sprintf("together the edits to %s introduce a syntax error (%v); make each edit leave the file syntactically valid", path, ref.err)
	case rec.Kind == KindWrite:
		return fmt.Sprintf("the new content of %s would introduce a syntax error; check brackets and quotes: %v", path, ref.err)
	default:
		return fmt.Sprintf("this edit would introduce a syntax error in %s; check that old_text covers whole statements and new_text keeps brackets balanced: %v", path, ref.err)
	}
}

// spliceSpans applies regions (in order, not overlapping) to before.
func spliceSpans(before string, spans []region) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		b.WriteString(before[at:s.start])
		b.WriteString(s.text)
		at = s.end
	}
	b.WriteString(before[at:])
	return b.String()
}

// lineKey is a line as the locality rule compares it: without its line
// break and trailing whitespace.
func lineKey(l string) string { return trimRightWS(strings.TrimRight(l, "\r\n")) }

func lineTerm(l string) string { return l[len(strings.TrimRight(l, "\r\n")):] }

// keepLineBytes gives every line that new keeps from old (the same key) the
// bytes it has in old: its trailing whitespace and its line break. atEOF:
// old ends the file, so its last line's final newline, or its absence,
// stays too. ok is false when the region changes nothing but whitespace:
// there the whitespace is what changes, and new stands.
func keepLineBytes(old, new string, atEOF bool) (string, bool) {
	if old == "" || new == "" || old == new {
		return new, false
	}
	ol, nl := splitKeep(old), splitKeep(new)
	ok, nk := make([]string, len(ol)), make([]string, len(nl))
	for i, l := range ol {
		ok[i] = lineKey(l)
	}
	for j, l := range nl {
		nk[j] = lineKey(l)
	}
	ops := diffLines(ok, nk)
	content := false
	for _, o := range ops {
		if o.kind != '=' {
			content = true
			break
		}
	}
	if !content {
		return new, false
	}
	var b strings.Builder
	for _, o := range ops {
		if o.kind != '=' {
			for j := o.j1; j < o.j2; j++ {
				b.WriteString(nl[j])
			}
			continue
		}
		for i, j := o.i1, o.j1; i < o.i2; i, j = i+1, j+1 {
			if ol[i] == nl[j] {
				b.WriteString(nl[j])
				continue
			}
			ot, nt := lineTerm(ol[i]), lineTerm(nl[j])
			t := nt
			lastOfFile := atEOF && j == len(nl)-1
			switch {
			case ot != "" && nt != "":
				t = ot
			case lastOfFile:
				t = ot // the final newline, or its absence, stays
			}
			kept := strings.TrimRight(ol[i], "\r\n") + t
			if kept == "" {
				// An empty line with no break left would be no line at
				// all: the new line (blanks, unterminated) stands.
				kept = nl[j]
			}
			b.WriteString(kept)
		}
	}
	out := b.String()
	if len(splitKeep(out)) != len(nl) {
		// A kept lone "\r" (a classic Mac line end) followed by a line
		// that starts with "\n" reads as one CRLF: two lines would become
		// one. The new text's own line ends stand there.
		return new, false
	}
	return out, true
}

// checkLocality: the regions are the only bytes that change, and inside
// them a line the change keeps keeps its bytes (trailing whitespace, line
// ending — also in a mixed CRLF/LF file — and the final newline or its
// absence). Resolve builds hunks this way; the check holds every path to it.
func checkLocality(c *fileChange) *refusal {
	if spliceSpans(c.before, c.spans) != c.after {
		return &refusal{reason: fmt.Sprintf("the changes to %s do not add up to the file they leave; nothing of it is applied, send the edits again", c.path)}
	}
	for k, s := range c.spans {
		t, ok := keepLineBytes(c.before[s.start:s.end], s.text, s.end == len(c.before))
		if ok && t != s.text {
			line := strings.Count(c.before[:s.start], "\n") + 1
			return &refusal{spans: []int{k}, reason: fmt.Sprintf("the edit at line %d of %s rewrites lines it keeps (their trailing whitespace or line endings); change only the lines that change", line, c.path)}
		}
	}
	return nil
}

// changedLines are the file after the change, line by line, with the lines
// the change adds marked (what the answer wrote, as against what the file
// kept): the artefact and conservation checks look at these.
type changedLines struct {
	after  []string // lines of after, without line breaks
	added  []bool
	region []int // the region an added line came from; -1 for kept lines
}

// changed computes (once) the lines of after and which of them are added.
func (c *fileChange) changed() *changedLines {
	if c.lines != nil {
		return c.lines
	}
	cl := &changedLines{}
	keep := func(s string) {
		for _, l := range splitKeep(s) {
			cl.after = append(cl.after, strings.TrimRight(l, "\r\n"))
			cl.added = append(cl.added, false)
			cl.region = append(cl.region, -1)
		}
	}
	at := 0
	for k, s := range c.spans {
		// A region that starts or ends inside a line changes that line.
		from := strings.LastIndexByte(c.before[:s.start], '\n') + 1
		if from < at {
			from = at
		}
		to := s.end
		if i := strings.IndexByte(c.before[s.end:], '\n'); i >= 0 && s.end > 0 && c.before[s.end-1] != '\n' {
			to = s.end + i + 1
		} else if i < 0 && s.end > 0 && c.before[s.end-1] != '\n' {
			to = len(c.before)
		}
		if k+1 < len(c.spans) && to > c.spans[k+1].start {
			to = s.end
		}
		keep(c.before[at:from])
		old := c.before[from:s.start] + c.before[s.start:s.end] + c.before[s.end:to]
		neu := c.before[from:s.start] + s.text + c.before[s.end:to]
		ol, nl := splitKeep(old), splitKeep(neu)
		ok, nk := make([]string, len(ol)), make([]string, len(nl))
		for i, l := range ol {
			ok[i] = lineKey(l)
		}
		for j, l := range nl {
			nk[j] = lineKey(l)
		}
		for _, o := range diffLines(ok, nk) {
			for j := o.j1; j < o.j2; j++ {
				cl.after = append(cl.after, strings.TrimRight(nl[j], "\r\n"))
				cl.added = append(cl.added, o.kind != '=')
				r := -1
				if o.kind != '=' {
					r = k
				}
				cl.region = append(cl.region, r)
			}
		}
		at = to
	}
	keep(c.before[at:])
	c.lines = cl
	return cl
}
