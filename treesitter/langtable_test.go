package treesitter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fixtureLang is a row of tests/testdata/languages.json, the shared
// fixture of the language table: this test checks the table against it,
// and the VS Code client's test (vscode-client/src/test) checks that its
// comment openers read every comment marker listed there.
type fixtureLang struct {
	Name       string   `json:"name"`
	LanguageID string   `json:"languageId"`
	Extensions []string `json:"extensions"`
	Files      []string `json:"files,omitempty"`
	Comments   []string `json:"comments,omitempty"`
	Parsed     bool     `json:"parsed,omitempty"`
}

const fixturePath = "../tests/testdata/languages.json"

func TestLanguageTableMatchesTheSharedFixture(t *testing.T) {
	var want []fixtureLang
	for _, l := range langTable {
		id := l.ID
		if id == "" {
			id = l.Name
		}
		want = append(want, fixtureLang{Name: l.Name, LanguageID: id, Extensions: l.Exts, Files: l.Files, Comments: l.Comments, Parsed: l.Parsed})
	}
	if os.Getenv("AIDE_UPDATE_FIXTURES") == "1" {
		b, _ := json.MarshalIndent(want, "", "  ")
		if err := os.WriteFile(filepath.FromSlash(fixturePath), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.FromSlash(fixturePath))
	if err != nil {
		t.Fatal(err)
	}
	var got []fixtureLang
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", fixturePath, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s differs from the language table (langtable.go): change both, then run the vscode-client tests (AIDE_UPDATE_FIXTURES=1 rewrites the file from the table)", fixturePath)
	}
	// What the table says is what its readers answer.
	for _, l := range got {
		for _, ext := range l.Extensions {
			p := "dir/x" + ext
			if got, ok := LangOf(p); !ok || got.Name != l.Name {
				t.Errorf("LangOf(%s) = %q, want %q", p, got.Name, l.Name)
			}
			if lang := Language(p, nil); (lang == l.Name) != l.Parsed {
				t.Errorf("Language(%s) = %q; parsed %v", p, lang, l.Parsed)
			}
		}
	}
}
