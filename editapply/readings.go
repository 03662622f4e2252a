package editapply

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Readings: where an answer can honestly be read more than one way, each
// reading is resolved and judged by the verifier, and the answer is applied
// only when exactly one reading passes or all that pass give the same files;
// otherwise every edit is refused naming the ambiguity, so the model is
// asked again (docs/edits.md, readings; contract §9.2). One mechanism for
// every kind of ambiguity: a source of readings gives an edit its variants
// (the edits it may stand for), the readings are their combinations, and
// agree decides.

// variant is another reading of one edit: the edits it stands for (none:
// the edit is not part of the answer in this reading) and what the reading
// takes the answer to say, for the refusal.
type variant struct {
	why   string
	edits []Edit
}

// maxReadings bounds the combinations resolved for one answer: each is a
// full Resolve, and a model must not make the server resolve without end.
// An answer with more is read as written only (its ambiguous edits then
// resolve or fail as they are).
const maxReadings = 16

// variantSources give an edit its other readings once the workspace is
// known; the parser gives the ones it sees in the answer (Edit.variants).
var variantSources = []func(e Edit, files Files, opts Options) []variant{
	bareNameVariants,
	fenceContentVariants,
}

// reading is one combination: the edits, each with the index of the edit
// of the answer it stands for.
type reading struct {
	why    []string
	edits  []Edit
	origin []int
}

// readingsOf returns the readings of an answer; the first is the answer as
// written. Only edits with variants multiply them.
func readingsOf(edits []Edit, files Files, opts Options) []reading {
	alts := make([][]variant, len(edits))
	total := 1
	for n, e := range edits {
		vs := e.variants
		if e.Kind != KindInvalid {
			for _, src := range variantSources {
				vs = append(vs, src(e, files, opts)...)
			}
		}
		alts[n] = vs
		if len(vs) > 0 {
			total *= len(vs) + 1
		}
	}
	// An answer with tool calls and edits in its text: the tool calls
	// alone, the text alone, or both (AlsoInText).
	var inText, inCalls bool
	for _, e := range edits {
		inText, inCalls = inText || e.inText, inCalls || !e.inText
	}
	bases := [][]string{nil}
	if inText && inCalls {
		bases = [][]string{nil, {"the tool calls only (the edits in the text as prose)"}, {"the edits in the text only (not the tool calls)"}}
		total *= 3
	}
	if total == 1 || total > maxReadings {
		return []reading{asWritten(edits)}
	}
	var out []reading
	for b, why := range bases {
		rs := []reading{{why: why}}
		for n, e := range edits {
			if b == 1 && e.inText || b == 2 && !e.inText {
				continue
			}
			var next []reading
			for _, r := range rs {
				plain := e
				plain.variants = nil
				next = append(next, r.with(n, "", []Edit{plain}))
				for _, v := range alts[n] {
					next = append(next, r.with(n, v.why, v.edits))
				}
			}
			rs = next
		}
		out = append(out, rs...)
	}
	return out
}

// AlsoInText marks the edits read from the text of an answer that also
// made tool calls: the answer may mean the tool calls, its text, or both,
// and Resolve resolves each reading (readings.go).
func AlsoInText(edits []Edit) []Edit {
	for k := range edits {
		edits[k].inText = true
	}
	return edits
}

func asWritten(edits []Edit) reading {
	r := reading{edits: edits, origin: make([]int, len(edits))}
	for n := range edits {
		r.origin[n] = n
	}
	return r
}

func (r reading) with(n int, why string, es []Edit) reading {
	out := reading{why: r.why, edits: append([]Edit(nil), r.edits...), origin: append([]int(nil), r.origin...)}
	if why != "" {
		out.why = append(append([]string(nil), r.why...), why)
	}
	for _, e := range es {
		e.variants = nil
		out.edits = append(out.edits, e)
		out.origin = append(out.origin, n)
	}
	return out
}

// agree resolves every reading and keeps the one the answer means: the
// only one that passes, or the first of several that give the same files.
// When none passes, the answer as written is what failed (its reasons go
// back); when readings that pass give different files, every edit of the
// answer is refused naming the readings.
func agree(rs []reading, files Files, opts Options, n int) Result {
	var pass []int
	results := make([]Result, len(rs))
	outcomes := make([]string, len(rs))
	for k, r := range rs {
		results[k] = resolveOnce(r.edits, files, opts).remap(r.origin)
		if len(results[k].Failures) == 0 && (len(results[k].Hunks) > 0 || len(results[k].AlreadyApplied) > 0) {
			pass = append(pass, k)
			outcomes[k] = outcome(results[k].Hunks, files)
		}
	}
	switch {
	case len(pass) == 0:
		return results[0]
	case len(pass) == 1:
		return results[pass[0]]
	}
	same := true
	for _, k := range pass[1:] {
		same = same && outcomes[k] == outcomes[pass[0]]
	}
	if same {
		// The same files: the reading that repeats least (text that
		// narrates a tool call's edit is not an edit already applied).
		best := pass[0]
		for _, k := range pass[1:] {
			if len(results[k].AlreadyApplied) < len(results[best].AlreadyApplied) {
				best = k
			}
		}
		return results[best]
	}
	var ways []string
	for _, k := range pass {
		w := "as written"
		if len(rs[k].why) > 0 {
			w = strings.Join(rs[k].why, "; ")
		}
		ways = append(ways, w)
	}
	reason := fmt.Sprintf("the answer can be read %d ways that give different files (%s), and each passes the checks: which is meant is a guess. Write it so it can be read one way only", len(pass), strings.Join(ways, " | "))
	var res Result
	for k := 0; k < n; k++ {
		ambiguous := false
		for _, r := range rs[1:] {
			for m, o := range r.origin {
				ambiguous = ambiguous || o == k && !sameEdit(r.edits[m], rs[0].edits[k])
			}
		}
		e := rs[0].edits[k]
		if ambiguous || k == n-1 && len(res.Failures) == 0 {
			res.Failures = append(res.Failures, Failure{Edit: e, Reason: reason, Index: k})
		}
	}
	first := res.Failures[0].Index
	for k := 0; k < n; k++ {
		if !failedAt(res.Failures, k) {
			res.HeldBack = append(res.HeldBack, HeldBack{Edit: rs[0].edits[k], Index: k, Failed: first})
		}
	}
	return res
}

func failedAt(fs []Failure, k int) bool {
	for _, f := range fs {
		if f.Index == k {
			return true
		}
	}
	return false
}

func sameEdit(a, b Edit) bool {
	return a.Kind == b.Kind && a.Path == b.Path && a.NewPath == b.NewPath && a.OldText == b.OldText && a.NewText == b.NewText
}

// remap turns a reading's edit indexes into the answer's.
func (res Result) remap(origin []int) Result {
	at := func(i int) int {
		if i >= 0 && i < len(origin) {
			return origin[i]
		}
		return i
	}
	for k := range res.Failures {
		res.Failures[k].Index = at(res.Failures[k].Index)
	}
	for k := range res.HeldBack {
		res.HeldBack[k].Index = at(res.HeldBack[k].Index)
		res.HeldBack[k].Failed = at(res.HeldBack[k].Failed)
	}
	return res
}

// outcome is what a result leaves in the workspace, as one comparable
// string: each touched file's content afterwards, or its deletion or new
// name.
func outcome(hunks []Hunk, files Files) string {
	byPath := map[string][]Hunk{}
	var paths []string
	for _, h := range hunks {
		if _, ok := byPath[h.Path]; !ok {
			paths = append(paths, h.Path)
		}
		byPath[h.Path] = append(byPath[h.Path], h)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		content, _, _ := files.Read(p)
		after, err := Apply(content, byPath[p])
		fmt.Fprintf(&b, "%s\x00%v\x00%s\x00", p, err, after)
		for _, h := range byPath[p] {
			if h.Kind == KindDelete || h.Kind == KindRename {
				fmt.Fprintf(&b, "%s>%s\x00", h.Kind, h.NewPath)
			}
		}
	}
	return b.String()
}

// bareNameVariants: a file named without a folder ("cart.py") that does
// not exist at the root, in an edit whose SEARCH text pins the file, may
// be any file of that name in the workspace: each is a reading, and the
// text decides (two files that both hold it are an ambiguity). A creation
// or a write is read as written — a new file where the answer says — and
// so are deletes and renames, which show nothing to check.
func bareNameVariants(e Edit, files Files, opts Options) []variant {
	if e.Kind != KindEdit && e.Kind != "" || strings.TrimSpace(e.OldText) == "" {
		return nil
	}
	p := cleanModelPath(e.Path)
	if p == "" || strings.Contains(p, "/") {
		return nil
	}
	if _, exists, _ := files.Read(p); exists {
		return nil
	}
	var out []variant
	for _, q := range sameBaseName(files, p) {
		v := e
		v.Path = q
		out = append(out, variant{why: fmt.Sprintf("%s as %s", p, q), edits: []Edit{v}})
	}
	return out
}

// sameBaseName lists the workspace's files named base, in any folder, when
// the workspace can list its files (workspace.Workspace and the tests'
// maps can). A large workspace is listed once per Resolve at most, only
// for an answer that names a file that does not exist.
func sameBaseName(files Files, base string) []string {
	var all []string
	if l, ok := files.(interface{ Paths() []string }); ok {
		all = l.Paths()
	} else if l, ok := files.(interface{ BaseNamed(string) []string }); ok {
		all = l.BaseNamed(base)
	}
	var out []string
	for _, q := range all {
		if q != base && path.Base(q) == base {
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

// fenceContentVariants: a whole-file write to a Markdown or text file whose
// content is one fence with no info string may be the file (a page that is
// one code block) or the model's wrapper around it. Both readings are
// resolved and agree decides; a file that is one fence now keeps it (the
// content reading), and a fence whose info string names a language says
// what the fenced text is: the file's own language makes it a wrapper
// (write), another makes it content (docs/edits.md, readings).
func fenceContentVariants(e Edit, files Files, opts Options) []variant {
	if e.Kind != KindWrite || !isMarkdown(e.Path) {
		return nil
	}
	u, ok := unfence(e.NewText)
	if !ok || fenceInfo(e.NewText) != "" {
		return nil
	}
	p, err := allow(opts, e.Path)
	if err != nil {
		return nil
	}
	if cur, exists, _ := files.Read(p); exists {
		if _, curFenced := unfence(cur); curFenced {
			return nil
		}
	}
	v := e
	v.NewText = u
	return []variant{{why: "the fence around the content of " + p + " as a wrapper, not part of the file", edits: []Edit{v}}}
}

// fenceInfo is the info string of the fence a text opens with, lower case.
func fenceInfo(s string) string {
	ls := trimBlankEnds(modelLines(s))
	if len(ls) == 0 {
		return ""
	}
	_, info, _ := openFence(strings.TrimSpace(ls[0]))
	return strings.ToLower(info)
}

// ownLanguage: a fence info string that names the language of the file it
// is written to ("markdown" for README.md): the fenced text is the file.
func ownLanguage(info, p string) bool {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")
	switch info {
	case "markdown", "md", "mdx":
		return ext == "md" || ext == "markdown" || ext == "mdx"
	case "rst", "restructuredtext":
		return ext == "rst"
	case "text", "txt", "plaintext":
		return ext == "txt" || ext == ""
	}
	return false
}
