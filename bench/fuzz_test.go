package bench

import (
	"strings"
	"testing"
)

// Hostile task.json: never a crash, and an accepted task is always usable
// (a check to run, paths that stay inside the task).
func FuzzParseTask(f *testing.F) {
	f.Add([]byte(`{"name":"go-x","language":"go","kind":"fix","instruction":"fix it","files":["a.go"],"check":["go","test","./..."],"timeout":60,"tests":["a_test.go"]}`), "go-x")
	f.Add([]byte(`{"name":"x","language":"python","kind":"rename","instruction":"i","files":["../../etc/passwd"],"check":["python3"]}`), "x")
	f.Add([]byte(`{"name":"x","language":"typescript","kind":"new-file","instruction":"i","check":["sh","-c","tsc"],"requires":["tsc","../bin/evil"]}`), "x")
	f.Add([]byte(`{"name":"x"} {"name":"y"}`), "x")
	f.Add([]byte(`{"name":"x","unknown":1}`), "x")
	f.Add([]byte(`{"name":"x","language":"go","kind":"fix","instruction":"i","check":["go"],"timeout":99999999999}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		task, err := ParseTask(data, dir)
		if err != nil {
			return
		}
		if len(task.Check) == 0 || task.Check[0] == "" || task.Timeout <= 0 || task.Timeout > maxCheckTimeout {
			t.Fatalf("accepted an unusable task: %+v", task)
		}
		for _, p := range append(append([]string{}, task.Files...), task.Tests...) {
			if !localPath(p) || strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") {
				t.Fatalf("accepted a path outside the task: %q", p)
			}
		}
	})
}

func FuzzParseOverlay(f *testing.F) {
	f.Add([]byte("comment\n-- a.go --\npackage a\n-- sub/b.py --\nx = 1\n"))
	f.Add([]byte("-- ../escape --\nx\n"))
	f.Add([]byte("-- /abs --\nx\n-- a --\n-- a --\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ParseOverlay(data)
		if err != nil {
			return
		}
		for name := range files {
			if !localPath(name) || strings.Contains("/"+name+"/", "/../") {
				t.Fatalf("accepted %q", name)
			}
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"kind":"aide-lsp bench cassettes","runs":1,"modes":["one-call"],"tasks":{"a":"h"},"architectModel":"p/m"}`))
	f.Add([]byte(`{"kind":"aide-lsp bench cassettes","runs":1,"modes":["one-call"],"tasks":{"../x":"h"}}`))
	f.Add([]byte(`{"kind":"aide-lsp bench cassettes","runs":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for name := range m.Tasks {
			if strings.ContainsAny(name, `/\`) || name == ".." {
				t.Fatalf("accepted task name %q", name)
			}
		}
		if m.Runs < 1 {
			t.Fatal("accepted runs < 1")
		}
	})
}

// Session files as the engine writes them, and broken ones: counts never go
// negative and never panic; an unreadable line is an error, not a skip.
func FuzzCountEvents(f *testing.F) {
	f.Add(`{"event":"architect_pass","model":"a/b","promptTokens":10,"completionTokens":2}
{"event":"editor_pass","attempt":1,"edits":3,"failed":1,"model":"a/c","promptTokens":5,"completionTokens":1}
{"event":"fallback","kind":"retry"}
{"event":"fallback","kind":"collapse"}
{"event":"proposal","hunks":[{"id":"h1"},{"id":"h2"}]}
`)
	f.Add(`{"event":"proposal","hunks":[{"id":"h1","step":1},{"id":"h2","step":null,"notInPlan":true}],"stepsWithoutHunks":[2,3]}`)
	f.Add(`{"event":"editor_pass","attempt":1,"edits":1,"failed":5,"promptTokens":-3,"completionTokens":1e300}`)
	f.Add("not json\n")
	f.Add(`{"event":"editor_pass","attempt":"1","edits":null}`)
	f.Fuzz(func(t *testing.T, text string) {
		c, err := CountEvents(strings.NewReader(text))
		if err != nil {
			return
		}
		if c.FirstTryApplied < 0 || c.FirstTryApplied > c.FirstTryEdits {
			t.Fatalf("first try %d of %d", c.FirstTryApplied, c.FirstTryEdits)
		}
		if c.OutsidePlan > c.Proposed {
			t.Fatalf("%d hunks outside the plan of %d proposed", c.OutsidePlan, c.Proposed)
		}
		if c.Retries < 0 || c.Fallbacks < 0 || c.ArchitectPasses < 0 || c.EditorPasses < 0 || c.PromptTokens < 0 || c.CompletionTok < 0 {
			t.Fatalf("negative counts: %+v", c)
		}
	})
}

// Hostile --resume files: never a crash; an accepted one names commits by
// hash only (they reach git as revisions: nothing that reads as an
// option) and paths inside the repository, and renders in every format.
func FuzzParseHistoryReport(f *testing.F) {
	f.Add([]byte(`{"source":"live","kind":"aide-lsp bench --history","modes":["one-call"],"picked":[{"hash":"0123456789abcdef","parent":"abcdef0123456789","subject":"<b>x</b>","files":["a.go"],"focus":["a.go"]}],"results":[{"commit":"0123456789abcdef","mode":"one-call","closeness":{"score":1}}]}`))
	f.Add([]byte(`{"kind":"aide-lsp bench --history","picked":[{"hash":"--output=/tmp/x","parent":"-p"}]}`))
	f.Add([]byte(`{"kind":"aide-lsp bench --history","picked":[{"hash":"0123456789abcdef","parent":"abcdef0123456789","files":["../../etc/passwd"]}]}`))
	f.Add([]byte(`{"kind":"other"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseHistoryReport(data)
		if err != nil {
			return
		}
		for _, c := range r.Picked {
			if strings.HasPrefix(c.Hash, "-") || strings.HasPrefix(c.Parent, "-") || c.Parent == "" {
				t.Fatalf("accepted a revision git could read as an option: %+v", c)
			}
			for _, p := range append(append([]string{}, c.Files...), c.Focus...) {
				if !localPath(p) {
					t.Fatalf("accepted a path outside the repository: %q", p)
				}
			}
		}
		r.sortResults()
		r.aggregate()
		var b strings.Builder
		if err := r.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
	})
}
