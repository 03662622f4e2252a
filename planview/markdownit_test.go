package planview

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// markdownIt renders docs with markdown-it as VS Code's Markdown preview
// configures it (tests/markdown/render.mjs). Without node or the
// package (npm ci --prefix tests/markdown) the test is skipped, unless
// AIDE_MARKDOWN_IT=required (scripts/test.sh sets it).
func markdownIt(t *testing.T, docs []string) []string {
	dir, _ := filepath.Abs(filepath.Join("..", "tests", "markdown"))
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "markdown-it"))
	}
	if err != nil {
		if os.Getenv("AIDE_MARKDOWN_IT") == "required" {
			t.Fatalf("markdown-it is required: %v (run npm ci --prefix tests/markdown)", err)
		}
		t.Skipf("no markdown-it (%v): npm ci --prefix tests/markdown", err)
	}
	in, _ := json.Marshal(docs)
	cmd := exec.Command(node, filepath.Join(dir, "render.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("markdown-it: %v\n%s", err, stderr.String())
	}
	var html []string
	if err := json.Unmarshal(out, &html); err != nil || len(html) != len(docs) {
		t.Fatalf("markdown-it answered %d documents for %d (%v)", len(html), len(docs), err)
	}
	return html
}

// TestDefangRendersNoFetchInMarkdownIt: the parser of VS Code's preview,
// with raw HTML on, renders each attack as written with a fetch, and no
// defanged attack (nor an input the fuzzer found) with any, in any place
// of a plan document model text goes.
func TestDefangRendersNoFetchInMarkdownIt(t *testing.T) {
	var docs, raw []string
	for _, a := range attacks {
		if a.fetches {
			raw = append(raw, a.text)
		}
	}
	texts := fuzzSeeds(t)
	for _, a := range attacks {
		texts = append(texts, a.text)
	}
	for _, s := range texts {
		docs = append(docs, attackDocs(s)...)
	}
	html := markdownIt(t, append(raw, docs...))
	for i, s := range raw {
		if fetchIn(html[i]) == "" {
			t.Errorf("the attack %q renders no fetch in markdown-it as written: %s", s, html[i])
		}
	}
	for i, doc := range docs {
		if f := fetchIn(html[len(raw)+i]); f != "" {
			t.Errorf("markdown-it renders %q from a defanged document:\n%s", f, doc)
		}
	}
}
