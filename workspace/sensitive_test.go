package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSensitive(t *testing.T) {
	for _, rel := range []string{".github/workflows/ci.yml", "sub/.github/workflows/x.yaml", ".gitlab-ci.yml", ".vscode/tasks.json",
		".idea/workspace.xml", "Makefile", "build/rules.mk", "scripts/deploy.sh", ".envrc", ".gitattributes", ".gitmodules",
		".husky/pre-commit", ".pre-commit-config.yaml", "Jenkinsfile"} {
		if SensitiveKind(rel, 0, nil, []byte("x")) == "" {
			t.Errorf("%s is not sensitive", rel)
		}
	}
	for _, rel := range []string{"main.go", "README.md", "github/workflows.md", "docs/Makefile.md"} {
		if why := SensitiveKind(rel, 0, nil, []byte("x")); why != "" {
			t.Errorf("%s is sensitive: %s", rel, why)
		}
	}
	old := []byte(`{"name":"a","scripts":{"test":"jest"},"version":"1.0.0"}`)
	if why := SensitiveKind("package.json", 0, old, []byte(`{"name":"a","scripts":{"test":"jest"},"version":"1.0.1"}`)); why != "" {
		t.Errorf("a version bump is sensitive: %s", why)
	}
	if SensitiveKind("web/package.json", 0, old, []byte(`{"name":"a","scripts":{"test":"jest","postinstall":"curl x|sh"}}`)) == "" {
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
		_ = SensitiveKind(rel, 0, old, new)
		if why := SensitiveKind("package.json", 0, old, old); why != "" && old != nil && !hasShebang(old) {
			t.Fatalf("an unchanged package.json is sensitive: %s", why)
		}
	})
}

func hasShebang(b []byte) bool { return len(b) > 1 && b[0] == '#' && b[1] == '!' }

// TestSensitiveByKind: the list is inverted. Files that run code but were
// never on a list of names are sensitive by kind; ordinary source, text
// and data are not, whatever their name.
func TestSensitiveByKind(t *testing.T) {
	for _, rel := range []string{".helix/languages.toml", ".devcontainer/devcontainer.json", ".cargo/config.toml",
		"build.rs", "conftest.py", "tests/conftest.py", "setup.py", "gradlew", "gradlew.bat",
		"gradle/wrapper/gradle-wrapper.properties", ".yarnrc", ".yarnrc.yml", ".npmrc", "Dockerfile",
		"docker-compose.yml", "Cargo.toml", "pyproject.toml", "pom.xml", "vite.config.ts", "jest.config.js",
		"tsconfig.json", "composer.json", "MAKEFILE", "Build.RS", "ſetup.py", "a/.vscode/x.json", "Rakefile"} {
		if SensitiveKind(rel, 0, nil, []byte("x")) == "" {
			t.Errorf("%s is not sensitive", rel)
		}
	}
	for _, rel := range []string{"main.go", "pkg/config.go", "src/app.py", "README", "LICENSE", "docs/guide.md",
		"testdata/case.json", "data/table.csv", "web/index.html", "grpc.go"} {
		if why := SensitiveKind(rel, 0, nil, []byte("x")); why != "" {
			t.Errorf("%s is sensitive: %s", rel, why)
		}
	}
	if SensitiveKind("tool.py", 0, nil, []byte("#!/bin/sh\ncurl x | sh\n")) == "" {
		t.Error("a script (#!) is not sensitive")
	}
	if SensitiveKind("run.py", 0o755, []byte("x"), []byte("y")) == "" {
		t.Error("an executable file is not sensitive")
	}
}

// TestSensitiveResolvesLinks: a link the repository committed is judged
// by the file written through it.
func TestSensitiveResolvesLinks(t *testing.T) {
	root := t.TempDir()
	for p, c := range map[string]string{"Makefile": "all:\n", ".github/workflows/ci.yml": "on: push\n", "m.go": "package m\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"ci": ".github/workflows", "build.mk.txt": "Makefile", "alias.go": "m.go"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"ci/build.yml", "ci/ci.yml", "build.mk.txt"} {
		if ws.Sensitive(rel, nil, []byte("x")) == "" {
			t.Errorf("%s (through a link) is not sensitive", rel)
		}
	}
	if why := ws.Sensitive("alias.go", nil, []byte("x")); why != "" {
		t.Errorf("a link to ordinary source is sensitive: %s", why)
	}
}

// TestFoldPath: Unicode case folding, not lower-casing: the long s and the
// Kelvin sign fold as macOS and Windows fold them.
func TestFoldPath(t *testing.T) {
	for in, want := range map[string]string{"ſecrets/": "secrets/", ".ſſh": ".ssh", "id_rſa": "id_rsa", "MAKEFILE": "makefile", "\u212Aey": "key"} {
		if got := foldPath(in); got != want {
			t.Errorf("foldPath(%q) = %q, want %q", in, got, want)
		}
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		ws, err := Open([]string{t.TempDir()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"ſecrets/x", ".ſſh/config", "id_rſa"} {
			if !ws.Denied(rel) {
				t.Errorf("%s is not denied", rel)
			}
		}
	}
}
