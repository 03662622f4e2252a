package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetupHelixPrintsBothSnippets(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"setup", "helix", "--config-dir", "/h"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"# ── /h/languages.toml ──", "[language-server.aide]", `command = "aide-lsp"`, "# ── /h/config.toml ──", "[keys.normal.space]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestSetupHelixWriteAddsAndKeepsTheUsersKeys(t *testing.T) {
	dir := t.TempDir()
	mine := "[keys.normal.space]\nA = \"file_picker\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"setup", "helix", "--write", "--config-dir", dir}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	langs, _ := os.ReadFile(filepath.Join(dir, "languages.toml"))
	if !strings.Contains(string(langs), "[language-server.aide]") {
		t.Errorf("languages.toml not written:\n%s", langs)
	}
	conf, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	if string(conf) != mine {
		t.Errorf("the user's config.toml changed:\n%s", conf)
	}
	got := out.String()
	for _, want := range []string{"+++ " + filepath.Join(dir, "languages.toml"), "+[language-server.aide]", "config.toml: [keys.normal.space] A is already set: kept as it is", "config.toml: nothing to add"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if st, _ := os.Stat(filepath.Join(dir, "config.toml")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode())
	}
	out.Reset()
	if code := dispatch([]string{"setup", "helix", "--write", "--config-dir", dir}, &out, &errb); code != exitOK || strings.Contains(out.String(), "+++") {
		t.Errorf("a second --write changed something (exit %d):\n%s", code, out.String())
	}
}

func TestSetupNamesTheEditor(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"setup", "vim"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "aide-lsp setup helix") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}
