package editapply

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/tests/editcorpus/editcase"
	"github.com/sourcegraph/go-diff/diff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The corpus: realistic editor outputs in tests/testdata/editapply/*.txtar,
// in the format of tests/editcorpus/editcase (which says what each section
// and key line means). Each case says what it is modelled on ("source:
// owner/repo#N") and what must happen: "label: recoverable" (it must end
// with exactly its want/ files), "label: refuse" (every file unchanged,
// each failure with its reason) or "label: noop" (already applied: every
// file unchanged, no failure). tests/editcorpus runs the same cases
// through the binary.
const corpusDir = "../tests/testdata/editapply"

type corpusCase struct {
	name      string
	comment   string
	in, want  map[string]string
	answer    *string
	calls     [][2]string
	deleted   []string
	renamed   [][2]string
	fail      []string
	already   int
	parseErr  string
	hasParsed bool
	label     string
	sources   []string
}

var sourceRef = regexp.MustCompile(`^[\w.-]+/[\w.-]+(#\d+|:[\w./-]+)`)

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	cases, err := editcase.Load(corpusDir)
	if err != nil {
		t.Fatalf("the corpus in %s: %v", corpusDir, err)
	}
	out := make([]corpusCase, 0, len(cases))
	for _, k := range cases {
		if len(k.Unknown) > 0 {
			t.Fatalf("%s: unknown sections %q", k.File, k.Unknown)
		}
		c := corpusCase{name: k.Name, comment: k.Comment, in: k.In, want: k.Want, answer: k.Answer,
			deleted: k.Deleted, renamed: k.Renamed, fail: k.Fail, already: k.Already, parseErr: k.ParseErr,
			label: k.Label, sources: k.Sources}
		for _, call := range k.Calls {
			c.calls = append(c.calls, [2]string{call.Tool, call.Arguments})
		}
		out = append(out, c)
	}
	return out
}

// corpusAllow is a small stand-in for workspace path vetting.
func corpusAllow(p string) (string, error) {
	p = filepath.ToSlash(filepath.Clean(filepath.ToSlash(p)))
	if filepath.IsAbs(p) || strings.HasPrefix(p, "../") || p == ".." {
		return "", fmt.Errorf("%s is outside the workspace; use a path relative to the workspace root", p)
	}
	if filepath.Base(p) == ".env" || strings.HasPrefix(p, ".git/") {
		return "", fmt.Errorf("%s is on the deny list and cannot be edited", p)
	}
	return filepath.Clean(p), nil
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 150 {
		t.Errorf("the corpus has %d cases; it must have at least 150", len(cases))
	}
	count := map[string]int{}
	for _, c := range cases {
		count[c.label]++
		t.Run(c.name, func(t *testing.T) {
			checkLabel(t, c)
			runCorpusCase(t, c)
		})
	}
	t.Logf("corpus: %d recoverable, %d refuse, %d noop", count["recoverable"], count["refuse"], count["noop"])
}

// checkLabel: every case names the report it is modelled on and a label
// that agrees with what it expects.
func checkLabel(t *testing.T, c corpusCase) {
	t.Helper()
	if len(c.sources) == 0 {
		t.Errorf("no \"source: owner/repo#N\" line naming the report the case is modelled on")
	}
	for _, s := range c.sources {
		if !sourceRef.MatchString(s) {
			t.Errorf("source %q does not start with owner/repo#N or owner/repo:path", s)
		}
	}
	changes := len(c.want) > 0 || len(c.deleted) > 0 || len(c.renamed) > 0
	switch c.label {
	case "recoverable":
		if !changes || len(c.fail) > 0 {
			t.Errorf("a recoverable case expects changed files and no failure")
		}
	case "refuse":
		if changes || len(c.fail) == 0 {
			t.Errorf("a refuse case expects failures and every file unchanged")
		}
	case "noop":
		if changes || len(c.fail) > 0 {
			t.Errorf("a noop case expects every file unchanged and no failure")
		}
	default:
		t.Errorf("label %q: want recoverable, refuse or noop", c.label)
	}
}

func runCorpusCase(t *testing.T, c corpusCase) {
	var edits []Edit
	var perr error
	var textEdits []Edit
	if c.answer != nil {
		// As commands does: tool calls written in the text are tool calls;
		// the text's edit blocks beside tool calls are marked as such
		// (a reading each, readings.go).
		for _, call := range model.RecoverToolCalls(*c.answer, []string{"edit_file", "write_file", "delete_file", "rename_file"}) {
			c.calls = append(c.calls, [2]string{call.Name, call.Arguments})
		}
		es, err := ParseText(*c.answer)
		if len(c.calls) > 0 {
			es = AlsoInText(es)
		}
		textEdits = es
		if len(c.calls) == 0 {
			perr = errors.Join(perr, err) // beside tool calls, a reading
		}
	}
	for _, call := range c.calls {
		es, err := FromToolCalls(call[0], call[1])
		if err != nil {
			perr = errors.Join(perr, err)
			continue
		}
		edits = append(edits, es...)
	}
	edits = append(edits, textEdits...)
	if c.parseErr != "" {
		if perr == nil || !strings.Contains(perr.Error(), c.parseErr) {
			t.Fatalf("parse error = %v, want one containing %q", perr, c.parseErr)
		}
	} else if perr != nil && len(c.fail) == 0 {
		// A block that could not be read is a failure (KindInvalid): a
		// case that expects failures names it in its fail section.
		t.Fatalf("unexpected parse error: %v", perr)
	}
	files := mapFiles(c.in)
	res := Resolve(edits, files, Options{Allow: corpusAllow})

	// Failures: as many as expected, each with its reason.
	if len(res.Failures) != len(c.fail) {
		var got []string
		for _, f := range res.Failures {
			got = append(got, f.Reason)
		}
		t.Fatalf("%d failures %q, want %d %q", len(res.Failures), got, len(c.fail), c.fail)
	}
	for n, f := range res.Failures {
		if !strings.Contains(f.Reason, c.fail[n]) {
			t.Errorf("failure %d: %q does not contain %q", n, f.Reason, c.fail[n])
		}
	}
	if len(res.AlreadyApplied) != c.already {
		t.Errorf("already applied: %d, want %d", len(res.AlreadyApplied), c.already)
	}

	// No wrong location: every file ends exactly as expected, and files the
	// case does not name are untouched.
	byPath := map[string][]Hunk{}
	for _, h := range res.Hunks {
		byPath[h.Path] = append(byPath[h.Path], h)
	}
	checkHunkInvariants(t, res.Hunks, files)
	wantDeleted := map[string]bool{}
	for _, p := range c.deleted {
		wantDeleted[p] = true
	}
	wantRenamed := map[string]string{}
	for _, r := range c.renamed {
		wantRenamed[r[0]] = r[1]
	}
	paths := map[string]bool{}
	for p := range c.in {
		paths[p] = true
	}
	for p := range c.want {
		paths[p] = true
	}
	for p := range byPath {
		paths[p] = true
	}
	for p := range paths {
		hs := byPath[p]
		before := c.in[p]
		got, err := Apply(before, hs)
		if err != nil {
			t.Errorf("%s: Apply: %v", p, err)
			continue
		}
		deleted, renamed := false, ""
		for _, h := range hs {
			if h.Kind == KindDelete {
				deleted = true
			}
			if h.Kind == KindRename {
				renamed = h.NewPath
			}
		}
		if deleted != wantDeleted[p] {
			t.Errorf("%s: deleted = %v, want %v", p, deleted, wantDeleted[p])
		}
		if renamed != wantRenamed[p] {
			t.Errorf("%s: renamed to %q, want %q", p, renamed, wantRenamed[p])
		}
		if deleted {
			continue
		}
		want, named := c.want[p]
		if !named {
			want = before
		}
		if got != want {
			t.Errorf("%s: result differs (wrong location or wrong text)\n--- got\n%s\n--- want\n%s", p, got, want)
		}
		// The minimal TextEdits produce the same file.
		if len(hs) > 0 {
			if viaLSP := applyTextEdits(t, before, hs); viaLSP != want {
				t.Errorf("%s: TextEdits give\n%q\nwant\n%q", p, viaLSP, want)
			}
		}
	}
	// The diff for the plan document is a valid patch naming every hunk.
	if len(res.Hunks) > 0 {
		d := RenderDiff(res.Hunks, files)
		if _, err := diff.ParseMultiFileDiff([]byte(d)); err != nil && !strings.Contains(d, "rename from") {
			t.Errorf("RenderDiff output does not parse: %v\n%s", err, d)
		}
		we := BuildWorkspaceEdit(res.Hunks, func(p string) Doc {
			return Doc{URI: uri.File("/ws/" + p), Content: c.in[p]}
		}, BuildOptions{Label: "AIDE: corpus", Annotated: true, Encoding: UTF16, ResourceOps: true})
		if _, err := protocol.Marshal(&we); err != nil {
			t.Errorf("WorkspaceEdit does not marshal: %v", err)
		}
	}
	if t.Failed() {
		t.Logf("case: %s", c.comment)
		for _, h := range res.Hunks {
			t.Logf("hunk %s %s [%d,%d) %q -> %q", h.ID, h.Summary, h.Start, h.End, h.OldText, h.NewText)
		}
	}
}

// checkHunkInvariants: every text hunk stands at its range in the content it
// is expressed against, and the hunks of one file never overlap.
func checkHunkInvariants(t testing.TB, hunks []Hunk, files Files) {
	t.Helper()
	byPath := map[string][]Hunk{}
	ids := map[string]bool{}
	for _, h := range hunks {
		if ids[h.ID] || h.ID == "" {
			t.Errorf("hunk id %q missing or repeated", h.ID)
		}
		ids[h.ID] = true
		if strings.Contains(h.Summary, "\n") || h.Summary == "" {
			t.Errorf("hunk %s: summary %q is not one line", h.ID, h.Summary)
		}
		if h.Kind == KindEdit || h.Kind == KindWrite {
			byPath[h.Path] = append(byPath[h.Path], h)
		}
	}
	for p, hs := range byPath {
		content, _, _ := files.Read(p)
		sort.Slice(hs, func(i, j int) bool { return hs[i].Start < hs[j].Start })
		for n, h := range hs {
			if h.Start < 0 || h.End > len(content) || h.Start > h.End || content[h.Start:h.End] != h.OldText {
				t.Errorf("hunk %s: OldText is not at [%d,%d) of %s", h.ID, h.Start, h.End, p)
			}
			if n > 0 && h.Start < hs[n-1].End {
				t.Errorf("hunks %s and %s of %s overlap", hs[n-1].ID, h.ID, p)
			}
		}
	}
}

// applyTextEdits applies the LSP TextEdits of hunks the way a client does:
// positions resolved against the original text, applied back to front.
func applyTextEdits(t testing.TB, content string, hunks []Hunk) string {
	t.Helper()
	type span struct {
		s, e int
		text string
	}
	var spans []span
	for _, h := range hunks {
		if h.Kind != KindEdit && h.Kind != KindWrite {
			continue
		}
		for _, te := range TextEdits(h, content, UTF16) {
			s := PosToOffset(content, Pos{int(te.Range.Start.Line), int(te.Range.Start.Character)}, UTF16)
			e := PosToOffset(content, Pos{int(te.Range.End.Line), int(te.Range.End.Character)}, UTF16)
			spans = append(spans, span{s, e, te.NewText})
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].s > spans[j].s })
	for n, s := range spans {
		if n > 0 && s.e > spans[n-1].s {
			t.Errorf("TextEdits overlap: [%d,%d) and [%d,%d)", s.s, s.e, spans[n-1].s, spans[n-1].e)
		}
		content = content[:s.s] + s.text + content[s.e:]
	}
	return content
}
