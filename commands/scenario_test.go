package commands_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

var updateScenarios = flag.Bool("update", false, "rewrite the golden plan documents of testdata/scenarios")

// A scenario (testdata/scenarios/*.txtar) is a session as data: the
// workspace, the model's replies in order, the commands run, the events
// expected and the plan document at the end (golden, `go test -update`
// rewrites it). Sections:
//
//	-- config --            JSON layer over the test defaults (optional)
//	-- file <path> --       a workspace file
//	-- reply <n> --         the n-th model reply's text
//	-- calls <n> --         the n-th model reply's tool calls, JSON [{name, arguments}]
//	-- command <n> --       a command: its name on the first line, its JSON
//	                        argument after ({uri <path>} and {session} are filled in)
//	-- events --            the session's event names, one a line
//	-- plan.md --           the plan document ({session} stands for the id;
//	                        the cost table's rows are not compared)
type scenario struct {
	comment  string
	sections map[string]string
	order    []string
}

// parseTxtar reads the txtar format: a comment, then "-- name --" lines
// each starting a section that runs to the next one.
func parseTxtar(data string) scenario {
	sc := scenario{sections: map[string]string{}}
	name := ""
	var b strings.Builder
	flush := func() {
		if name == "" {
			sc.comment = b.String()
		} else {
			sc.sections[name] = b.String()
			sc.order = append(sc.order, name)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			name = strings.TrimSpace(t[3 : len(t)-3])
			continue
		}
		b.WriteString(line)
	}
	flush()
	return sc
}

func (sc scenario) numbered(prefix string) []string {
	var keys []string
	for _, k := range sc.order {
		if strings.HasPrefix(k, prefix+" ") {
			keys = append(keys, k)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		return len(keys[i]) < len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
	})
	return keys
}

func TestScenarios(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no scenarios")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sc := parseTxtar(string(data))
			files := map[string]string{}
			for _, k := range sc.order {
				if p, ok := strings.CutPrefix(k, "file "); ok {
					files[p] = sc.sections[k]
				}
			}
			var replies []modeltest.Reply
			n := 0
			for _, k := range append(sc.numbered("reply"), sc.numbered("calls")...) {
				_, num, _ := strings.Cut(k, " ")
				if i, err := strconv.Atoi(num); err == nil {
					n = max(n, i)
				}
			}
			for i := 1; i <= n; i++ {
				r := modeltest.Reply{Text: sc.sections["reply "+itoa(i)]}
				if raw, ok := sc.sections["calls "+itoa(i)]; ok {
					var calls []struct {
						Name      string          `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					}
					if err := json.Unmarshal([]byte(raw), &calls); err != nil {
						t.Fatalf("calls %d: %v", i, err)
					}
					for j, c := range calls {
						r.ToolCalls = append(r.ToolCalls, model.ToolCall{ID: "call_" + itoa(i) + "_" + itoa(j), Name: c.Name, Arguments: string(c.Arguments)})
					}
				}
				replies = append(replies, r)
			}
			e := newEnv(t, envOpts{files: files, config: strings.TrimSpace(sc.sections["config"]), archReplies: replies})
			session := ""
			for _, k := range sc.numbered("command") {
				text := sc.sections[k]
				name, arg, _ := strings.Cut(strings.TrimSpace(text), "\n")
				arg = strings.ReplaceAll(arg, "{session}", session)
				for p := range files {
					arg = strings.ReplaceAll(arg, "{uri "+p+"}", e.uri(p))
				}
				var a map[string]any
				if err := json.Unmarshal([]byte(arg), &a); err != nil {
					t.Fatalf("%s: argument %q: %v", k, arg, err)
				}
				res, err := e.exec(strings.TrimSpace(name), a)
				if err != nil {
					t.Fatalf("%s %s: %v", k, name, err)
				}
				if session == "" {
					session = sessionOf(t, res)
				}
			}
			want := strings.Fields(sc.sections["events"])
			if got := e.client.names(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("events:\n got %v\nwant %v", got, want)
			}
			doc, err := os.ReadFile(filepath.Join(e.root, ".aide", "plans", session+".md"))
			if err != nil {
				t.Fatal(err)
			}
			got := withoutCost(strings.ReplaceAll(string(doc), session, "{session}"))
			if *updateScenarios {
				sc.sections["plan.md"] = got
				if err := os.WriteFile(path, []byte(sc.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != sc.sections["plan.md"] {
				t.Errorf("plan document (go test -run TestScenarios -update rewrites it):\n--- got\n%s\n--- want\n%s", got, sc.sections["plan.md"])
			}
		})
	}
}

// withoutCost drops the cost table's rows: its token counts follow the
// prompts' length (the fake counts characters), which other changes move;
// the events say which passes ran.
func withoutCost(doc string) string {
	i := strings.Index(doc, "\n## Cost\n")
	if i < 0 {
		return doc
	}
	rest := doc[i+len("\n## Cost\n"):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		return doc[:i] + "\n## Cost\n\n(not compared)\n" + rest[j:]
	}
	return doc[:i] + "\n## Cost\n\n(not compared)\n"
}

// format writes the scenario back, sections in their order.
func (sc scenario) format() string {
	var b strings.Builder
	b.WriteString(sc.comment)
	seen := map[string]bool{}
	for _, k := range append(append([]string(nil), sc.order...), "plan.md") {
		if seen[k] {
			continue
		}
		seen[k] = true
		b.WriteString("-- " + k + " --\n")
		b.WriteString(sc.sections[k])
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
