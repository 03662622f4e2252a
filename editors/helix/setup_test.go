package helix

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func decode(t testing.TB, text string) map[string]any {
	t.Helper()
	doc := map[string]any{}
	if _, err := toml.Decode(text, &doc); err != nil {
		t.Fatalf("merged file does not decode: %v\n%s", err, text)
	}
	return doc
}

func servers(doc map[string]any, lang string) []any {
	list, _ := doc["language"].([]map[string]any)
	for _, el := range list {
		if el["name"] == lang {
			s, _ := el["language-servers"].([]any)
			return s
		}
	}
	return nil
}

func TestMergeIntoNothingIsTheSnippetAndIsIdempotent(t *testing.T) {
	for _, f := range Files() {
		res, err := Merge("", f.Snippet)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		doc := decode(t, res.Text)
		want := decode(t, f.Snippet)
		if err := within("", want, doc); err != nil {
			t.Errorf("%s: the merge into an empty file lacks part of the snippet: %v", f.Name, err)
		}
		again, err := Merge(res.Text, f.Snippet)
		if err != nil || again.Text != res.Text || len(again.Added) != 0 {
			t.Errorf("%s: a second merge changed the file (err %v, added %v)", f.Name, err, again.Added)
		}
	}
}

func TestMergeKeepsTheUsersKeysAndLanguages(t *testing.T) {
	user := `theme = "x"
[language-server.aide]
command = "/opt/aide-lsp"

[[language]]
name = "go"
language-servers = ["gopls"]
`
	res, err := Merge(user, languagesSnippet)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "theme = \"x\"\n[language-server.aide]\nargs = [\"serve\"]\ncommand = \"/opt/aide-lsp\"\n") {
		t.Errorf("args not put under the user's [language-server.aide], or the user's lines moved:\n%s", res.Text)
	}
	doc := decode(t, res.Text)
	if cmd := doc["language-server"].(map[string]any)["aide"].(map[string]any)["command"]; cmd != "/opt/aide-lsp" {
		t.Errorf("the user's command was changed to %v", cmd)
	}
	if s := servers(doc, "go"); len(s) != 1 || s[0] != "gopls" {
		t.Errorf("the user's go language-servers changed: %v", s)
	}
	if n := strings.Count(res.Text, `name = "go"`); n != 1 {
		t.Errorf("go listed %d times", n)
	}
	if s := servers(doc, "python"); len(s) != 2 || s[1] != "aide" {
		t.Errorf("python not added with aide: %v", s)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{`command is already set`, `"go" is yours: kept as it is; add "aide" to its language-servers by hand`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestMergeConfigKeyBinding(t *testing.T) {
	res, err := Merge("[keys.normal.space]\nf = \"file_picker\"\n", configSnippet)
	if err != nil {
		t.Fatal(err)
	}
	space := decode(t, res.Text)["keys"].(map[string]any)["normal"].(map[string]any)["space"].(map[string]any)
	if space["f"] != "file_picker" || space["A"] == nil {
		t.Errorf("want the user's f and aide's A: %v", space)
	}

	mine := "[keys.normal.space]\nA = \"file_picker\"\n"
	res, err = Merge(mine, configSnippet)
	if err != nil || res.Text != mine || len(res.Added) != 0 {
		t.Errorf("the user's space A must stay, nothing added: err %v, added %v\n%s", err, res.Added, res.Text)
	}

	// An inline table cannot take a line under a header of its own: refused, with the line.
	_, err = Merge("[keys.normal]\nspace = { f = \"file_picker\" }\n", configSnippet)
	if err == nil || !strings.Contains(err.Error(), "add by hand") || !strings.Contains(err.Error(), "A = [") {
		t.Errorf("want a refusal naming the line to add, got %v", err)
	}
}

func TestMergeRefusesAFileThatIsNotTOML(t *testing.T) {
	_, err := Merge("[language-server.aide\n", languagesSnippet)
	if err == nil || !strings.Contains(err.Error(), "cannot read it as TOML") {
		t.Errorf("got %v", err)
	}
}

func TestDiffShowsTheInsertedLines(t *testing.T) {
	got := Diff("config.toml", "a\nb\n", "a\nx\nb\ny\n")
	want := "--- config.toml\n+++ config.toml\n@@ -1,0 +2,1 @@\n+x\n@@ -2,0 +4,1 @@\n+y\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzMerge: whatever the user's file holds, Merge never panics, and when it
// merges, the result decodes, keeps every value of the user's file, carries
// what aide-lsp needs, and a second merge adds nothing.
func FuzzMerge(f *testing.F) {
	f.Add("")
	f.Add("[language-server.aide]\ncommand = \"x\"\n[[language]]\nname = \"go\"\n")
	f.Add("[keys.normal.space]\nf = \"file_picker\"\n")
	f.Add("[keys.normal]\nspace = { f = \"x\" }\n")
	f.Add("a = '''\n[keys.normal.space]\n'''\n[keys.normal.space]\n")
	f.Add("[keys.normal.space] # c\r\nx = 1\r\n")
	f.Fuzz(func(t *testing.T, existing string) {
		for _, file := range Files() {
			res, err := Merge(existing, file.Snippet)
			if err != nil {
				continue
			}
			old := map[string]any{}
			if _, err := toml.Decode(existing, &old); err != nil {
				t.Fatalf("%s: merged a file that does not decode", file.Name)
			}
			if err := within("", old, decode(t, res.Text)); err != nil {
				t.Fatalf("%s: the merge changed the user's file: %v", file.Name, err)
			}
			again, err := Merge(res.Text, file.Snippet)
			if err != nil || len(again.Added) != 0 {
				t.Fatalf("%s: a second merge added %v (err %v)\n%s", file.Name, again.Added, err, res.Text)
			}
		}
	})
}
