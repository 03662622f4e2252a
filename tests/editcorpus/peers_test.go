package editcorpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
)

// The peers' own test suites, run for real (tests/peers/run.sh): a
// converter runs each peer's test file against a recorder and writes one
// JSON line per call it makes (the file, the peer's answer text, what the
// test asserts). TestPeerSuites gives each line to the binary the way the
// corpus does and says, per suite, how many ended as the peer expects,
// applied differently, or refused where the peer succeeds. It runs only
// when AIDE_PEER_CASES names those files: the suites are the peers', never
// copied here; our own cases for their behaviours are in the corpus
// (peer_* in tests/testdata/editapply).

type peerLine struct {
	Suite    string            `json:"suite"`
	Test     string            `json:"test"`
	Answer   string            `json:"answer"`
	Original *string           `json:"original"`
	Files    map[string]string `json:"files"`
	// Fragments are the files a converter built from pieces of the
	// peer's file (Aider's chat history: the SEARCH texts), not the file.
	Fragments []string `json:"fragments"`
	// Calls are the answer's tool calls (name, arguments as JSON), given
	// to the binary as the model's native calls.
	Calls []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"calls"`
	Opts   map[string]any `json:"opts"`
	Expect []struct {
		Field string `json:"field"`
		How   string `json:"how"`
		Value any    `json:"value"`
	} `json:"expect"`

	// NotApplicable, when set, is why the converter found that the test
	// asserts the peer's plumbing (a dry run, live rendering, a prompt the
	// user declines, a call stopped before any edit by a missing
	// parameter or a setting), not how an answer is read: the call is
	// reported with that reason and not run.
	NotApplicable string `json:"notApplicable"`
}

// peerResult is how one call of a peer's test ended here.
type peerResult struct {
	suite, test, verdict, detail string
	peerFails                    bool // the peer's test expects it to refuse
}

const (
	asPeer      = "as the peer expects"
	differently = "applied differently"
	refusedHere = "refused"
	notRun      = "not applicable"
)

var bareFileName = regexp.MustCompile(`^[\w./-]+\.\w+$`)

// unitReason splits the run's final error into its units' reasons
// ("PATH: reason; PATH: reason"): a "; " followed by a path and ": ".
var unitReason = regexp.MustCompile(`; ([^\s;:]+): `)

// fixtureName names the file of a peer whose function is handed a file's
// text and never its name (Cline's constructNewFileContent, Roo's
// applyDiff): a name that states no language, so that no check of ours
// judges the text as a language the peer never stated.
const fixtureName = "file.txt"

func TestPeerSuites(t *testing.T) {
	files := os.Getenv("AIDE_PEER_CASES")
	if files == "" {
		t.Skip("set AIDE_PEER_CASES to the converted cases (tests/peers/run.sh does)")
	}
	var lines []peerLine
	for _, f := range strings.Split(files, string(os.PathListSeparator)) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var l peerLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			lines = append(lines, l)
		}
		fh.Close()
	}
	bin := binary(t)
	var mu sync.Mutex
	var results []peerResult
	t.Run("cases", func(t *testing.T) {
		for i, l := range lines {
			t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
				t.Parallel()
				r := runPeerLine(t, bin, l)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			})
		}
	})
	sort.Slice(results, func(i, j int) bool {
		if results[i].suite != results[j].suite {
			return results[i].suite < results[j].suite
		}
		return results[i].test < results[j].test
	})
	counts := map[string]map[string]int{}
	var suites []string
	for _, r := range results {
		if counts[r.suite] == nil {
			counts[r.suite] = map[string]int{}
			suites = append(suites, r.suite)
		}
		counts[r.suite][r.verdict]++
	}
	// Why calls were not applicable, per suite: the kind of reason
	// (before the first ":"), with how many.
	naWhy := map[string]map[string]int{}
	for _, r := range results {
		if r.verdict == notRun {
			if naWhy[r.suite] == nil {
				naWhy[r.suite] = map[string]int{}
			}
			kind, _, _ := strings.Cut(r.detail, ":")
			naWhy[r.suite][kind]++
		}
	}
	var report strings.Builder
	tot := map[string]int{}
	for _, s := range suites {
		c := counts[s]
		n := c[asPeer] + c[differently] + c[refusedHere]
		fmt.Fprintf(&report, "%s: %d of %d as the peer expects, %d applied differently, %d refused (%d not applicable%s)\n",
			s, c[asPeer], n, c[differently], c[refusedHere], c[notRun], whyList(naWhy[s]))
		for k, v := range c {
			tot[k] += v
		}
	}
	n := tot[asPeer] + tot[differently] + tot[refusedHere]
	fmt.Fprintf(&report, "all: %d of %d as the peer expects (%.1f%%), %d applied differently, %d refused (%d not applicable)\n",
		tot[asPeer], n, pct(tot[asPeer], n), tot[differently], tot[refusedHere], tot[notRun])
	// The same over the calls the peer expects to succeed (its tests of
	// what it refuses aside).
	succ, succAs := 0, 0
	for _, r := range results {
		if r.verdict != notRun && !r.peerFails {
			succ++
			if r.verdict == asPeer {
				succAs++
			}
		}
	}
	fmt.Fprintf(&report, "calls the peer expects to succeed: %d of %d as the peer expects (%.1f%%)\n", succAs, succ, pct(succAs, succ))
	for _, r := range results {
		if r.verdict == differently || r.verdict == refusedHere || r.verdict == notRun {
			fmt.Fprintf(&report, "- %s | %s | %s | %s\n", r.suite, r.test, r.verdict, r.detail)
		}
	}
	fmt.Print(report.String())
	if out := os.Getenv("AIDE_PEER_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runPeerLine builds a workspace from one recorded call and judges the
// binary's result by the peer's own assertions.
func runPeerLine(t *testing.T, bin string, l peerLine) peerResult {
	r := peerResult{suite: l.Suite, test: l.Test}
	if l.NotApplicable != "" {
		r.verdict, r.detail = notRun, l.NotApplicable
		return r
	}
	if final, ok := l.Opts["isFinal"].(bool); ok && !final {
		r.verdict, r.detail = notRun, "a streaming step (not the final answer)"
		return r
	}
	c := corpusCase{name: l.Test, in: map[string]string{}, deleted: map[string]bool{}, renamed: map[string]string{}, label: "recoverable"}
	answer := l.Answer
	file := ""
	if l.Files != nil {
		for p, s := range l.Files {
			c.in[p] = s
		}
	} else {
		// The peer's test hands its function a file's text and the diff,
		// never a path; our answer names the file, as an editor's answer
		// does, with fixtureName. A first line that looks like a file name
		// (Roo's tests write "test.ts" above blocks holding Python, prose
		// or a JSX fragment) is text the peer's function skips, not a name
		// it reads: it gives way to ours.
		file = fixtureName
		first, rest, _ := strings.Cut(answer, "\n")
		if bareFileName.MatchString(strings.TrimSpace(first)) {
			answer = rest
		}
		answer = file + "\n" + answer
		if l.Original != nil {
			c.in[file] = *l.Original
		}
	}
	if !strings.HasSuffix(answer, "\n") {
		answer += "\n"
	}
	if strings.TrimSpace(answer) != "" || len(l.Calls) == 0 {
		c.answer = &answer
	}
	for i, k := range l.Calls {
		c.calls = append(c.calls, model.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: k.Name, Arguments: k.Arguments})
	}
	// wantChange: the peer's test asserts only that the edit goes ahead
	// (Roo's tool tests: approval asked, changes saved), not the text.
	wantFail, wantChange := false, false
	type check struct{ path, how, value string }
	var checks []check
	for _, e := range l.Expect {
		p := file
		field := e.Field
		if strings.HasPrefix(field, "file:") {
			p, field = strings.TrimPrefix(field, "file:"), "content"
		}
		switch {
		case field == "success" && e.How == "be":
			if b, ok := e.Value.(bool); ok {
				wantFail, wantChange = wantFail || !b, wantChange || b
			}
		case field == "content":
			s, _ := e.Value.(string)
			checks = append(checks, check{p, e.How, s})
		}
	}
	if !wantFail && !wantChange && len(checks) == 0 {
		r.verdict, r.detail = notRun, "the test asserts nothing about the file"
		return r
	}
	got, code, stderr := runBinary(t, bin, c)
	changed := len(changes(c.in, got)) > 0
	reason := firstReason(stderr)
	if wantFail {
		r.peerFails = true
		if changed {
			r.verdict, r.detail = differently, "the peer refuses; we wrote "+strings.Join(changes(c.in, got), ", ")
		} else {
			r.verdict = asPeer
		}
		return r
	}
	var bad []string
	if wantChange && !changed {
		bad = append(bad, "the peer's edit goes ahead; the file is unchanged")
	}
	for _, k := range checks {
		s, ok := got[path.Clean(k.path)]
		switch k.how {
		case "be":
			if !ok || s != k.value {
				bad = append(bad, k.path+": "+firstDifference(k.value, s, ok))
			}
		case "contain":
			if !strings.Contains(s, k.value) {
				bad = append(bad, fmt.Sprintf("%s lacks %q", k.path, clip(k.value)))
			}
		case "not-contain":
			if strings.Contains(s, k.value) {
				bad = append(bad, fmt.Sprintf("%s has %q", k.path, clip(k.value)))
			}
		case "absent":
			if ok {
				bad = append(bad, k.path+" is still there")
			}
		}
	}
	switch {
	case len(bad) == 0:
		r.verdict = asPeer
	case !changed && syntaxOnFragments(stderr, l.Fragments):
		r.verdict, r.detail = notRun, "fragment workspace, the syntax row cannot be judged: the file is pieces of the peer's file, not the file: "+reason
	case !changed:
		r.verdict, r.detail = refusedHere, fmt.Sprintf("exit %d: %s", code, reason)
	default:
		r.verdict, r.detail = differently, strings.Join(bad, "; ")
	}
	return r
}

// syntaxOnFragments says whether the run's refusal is the verifier's
// syntax row alone, and only on files built from fragments: such a
// workspace is not the peer's file (text above or around each piece is
// missing), so whether the edit breaks the real file cannot be told
// from it. Any other refusal, or one on a whole file, is counted.
func syntaxOnFragments(stderr string, fragments []string) bool {
	if len(fragments) == 0 {
		return false
	}
	frag := map[string]bool{}
	for _, f := range fragments {
		frag[f] = true
	}
	const lead = "aide: error: stopped after "
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, lead) {
			continue
		}
		_, units, ok := strings.Cut(line, "): ")
		if !ok {
			return false
		}
		units = unitReason.ReplaceAllString("; "+units, "\x00$1: ")
		n := 0
		for _, u := range strings.Split(units, "\x00") {
			if u == "" {
				continue
			}
			p, why, _ := strings.Cut(u, ": ")
			if !frag[p] || !strings.Contains(why, "introduce a syntax error") {
				return false
			}
			n++
		}
		return n > 0
	}
	return false
}

// firstReason is what the run's stderr says about the failure: its lines
// but the configuration warnings and the passes' progress, joined.
func firstReason(stderr string) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "warning:") || strings.HasPrefix(l, "If you trust") ||
			strings.HasPrefix(l, "aide: editor") || strings.HasPrefix(l, "aide: fallback") || strings.HasPrefix(l, "aide: architect") {
			continue
		}
		if len(keep) == 0 || keep[len(keep)-1] != l {
			keep = append(keep, l)
		}
	}
	return clip(strings.Join(keep, " / "))
}

// whyList is ": reason (n), reason (n)" for a report line, or "".
func whyList(why map[string]int) string {
	if len(why) == 0 {
		return ""
	}
	var parts []string
	for k, v := range why {
		parts = append(parts, fmt.Sprintf("%s (%d)", k, v))
	}
	sort.Strings(parts)
	return ": " + strings.Join(parts, ", ")
}

// firstDifference says where got first differs from want, line by line.
func firstDifference(want, got string, exists bool) string {
	if !exists {
		return "missing"
	}
	if len(want) < 200 && len(got) < 200 {
		return fmt.Sprintf("want %q, got %q", want, got)
	}
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: want %q, got %q (want %d lines, got %d)", i+1, clip(wl), clip(gl), len(w), len(g))
		}
	}
	return "same lines"
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
