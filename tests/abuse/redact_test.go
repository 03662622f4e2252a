package abuse_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// TestEchoedKeyIsRedacted: a provider whose error quotes the key and the
// Bearer header back, reached through a base URL with user:pass@ in it.
// Neither the key nor the password reaches anything the editor receives
// (messages, events, the plan document) nor any file under .aide
// (plans, sessions).
func TestEchoedKeyIsRedacted(t *testing.T) {
	const key = "sk-ECHOTEST-4b9d2f7a1c3e5068"
	const pass = "ECHOPASS-hunter22"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"bad request for key %s with %s from %s"}}`, key, r.Header.Get("Authorization"), r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	root, xdg := t.TempDir(), t.TempDir()
	writeFile(t, root, "m.go", mGo)
	base := strings.Replace(echo.URL, "http://", "http://user:"+pass+"@", 1) + "/v1"
	writeFile(t, xdg, "config/aide-lsp/config.json", `{"providers":{"echo":{"kind":"openai","baseURL":"`+base+`","apiKeyEnv":"ECHO_KEY"}},"architectModel":"echo/m","reviewPlan":false}`)
	env := map[string]string{"ECHO_KEY": key, "XDG_CONFIG_HOME": filepath.Join(xdg, "config"), "XDG_STATE_HOME": filepath.Join(xdg, "state")}
	ed := fakeeditor.Start(t, fakeeditor.Options{Profile: "vscode-1.96", Roots: []string{root},
		Server: lsp.Options{Version: "abuse", Setup: lsp.NewSetup(lsp.SetupOptions{
			Env: func(k string) string { return env[k] }, RetryBaseDelay: time.Millisecond})},
		Timeout: hangGuard})
	ed.Open("m.go", mGo)
	if _, _, err := ed.ExecuteCommand("aide.architect", map[string]any{"uri": ed.URI("m.go"), "task": "make A return 10"}); err != nil {
		t.Fatal(err)
	}
	ed.WaitNotification("$/progress", fakeeditor.ProgressKind("end"))

	var sent bytes.Buffer
	for _, m := range ed.Messages() {
		sent.Write(m.Params)
	}
	haystacks := map[string][]byte{"sent to the editor": sent.Bytes()}
	_ = filepath.WalkDir(filepath.Join(root, ".aide"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			haystacks[p] = b
		}
		return nil
	})
	if !bytes.Contains(sent.Bytes(), []byte("400")) {
		t.Fatalf("the provider's error did not reach the editor (nothing was searched):\n%s", sent.String())
	}
	for name, b := range haystacks {
		for _, secret := range []string{key, "ECHOTEST", pass} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s contains %q", name, secret)
			}
		}
	}
}
