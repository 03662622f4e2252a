package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// doctorIn runs doctor on a fresh folder, with cfg as the user's config
// file (a temporary XDG_CONFIG_HOME).
func doctorIn(t *testing.T, cfg string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	withUserConfig(t, cfg)
	t.Setenv("AIDE_ARCHITECT_MODEL", "")
	t.Setenv("AIDE_EDITOR_MODEL", "")
	var out, errb bytes.Buffer
	code := runDoctor([]string{"--dir", dir}, &out, &errb)
	return out.String() + errb.String(), code
}

func TestDoctorReachableProviderAndKnownModel(t *testing.T) {
	srv := modeltest.NewOpenAI(t)
	out, code := doctorIn(t, `{"providers":{"fake":{"kind":"openai","baseURL":"`+srv.BaseURL()+`"}},"architectModel":"fake/fake-model"}`)
	if code != exitOK || !strings.Contains(out, "fake: reachable at") || !strings.Contains(out, "tree-sitter: bash") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestDoctorUnknownModelAndMissingKey(t *testing.T) {
	srv := modeltest.NewOpenAI(t)
	t.Setenv("AIDE_DOCTOR_TEST_KEY", "")
	out, code := doctorIn(t, `{"providers":{"fake":{"kind":"openai","baseURL":"`+srv.BaseURL()+`"},
		"keyed":{"kind":"anthropic","baseURL":"http://127.0.0.1:1","apiKeyEnv":"AIDE_DOCTOR_TEST_KEY"}},
		"architectModel":"fake/not-there","editorModel":"keyed/claude","bogus":true}`)
	if code != exitFailed {
		t.Fatalf("want exit 1, got %d:\n%s", code, out)
	}
	for _, want := range []string{
		`does not list model "not-there" (it lists fake-model)`,
		"AIDE_DOCTOR_TEST_KEY is not set",
		"bogus: unknown key",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorNothingListening(t *testing.T) {
	out, code := doctorIn(t, `{"providers":{"dead":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1"}},"architectModel":"dead/m"}`)
	if code != exitFailed || !strings.Contains(out, "nothing answers at") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestDoctorHelpGoesToStdout(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runDoctor([]string{"-h"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "Usage: aide-lsp doctor") || errb.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// doctor lists the commands that would run, and says why a workspace's
// own commands do not.
func TestDoctorListsVerify(t *testing.T) {
	out, _ := doctorIn(t, `{"verify":[{"name":"build","run":["go","build","./..."]},{"name":"lint","run":["no-such-linter-aide"],"timeout":30}]}`)
	for _, want := range []string{
		"ok    verify: build would run go build ./... (timeout 2m0s) on a scratch copy",
		"warn  verify: lint would run no-such-linter-aide, but no-such-linter-aide is not found on PATH",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorUntrustedVerifyRunsNothing(t *testing.T) {
	dir := t.TempDir()
	withUserConfig(t, `{}`)
	t.Setenv("AIDE_ARCHITECT_MODEL", "")
	t.Setenv("AIDE_EDITOR_MODEL", "")
	if err := os.MkdirAll(filepath.Join(dir, ".aide"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".aide", "config.json"), []byte(`{"verify":[{"name":"build","run":["make"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	runDoctor([]string{"--dir", dir}, &out, &errb)
	got := out.String()
	if !strings.Contains(got, "verify: no commands") || !strings.Contains(got, "verification commands to run: build (make), which were ignored") || !strings.Contains(got, "aide-lsp trust --dir") {
		t.Errorf("doctor does not say the workspace's command is not run, and why:\n%s", got)
	}
}
