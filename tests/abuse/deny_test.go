package abuse_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

const privateGo = "package m\n\n// TopSecretHelper holds TOPSECRET-VALUE-77.\nfunc TopSecretHelper() string { return \"TOPSECRET-VALUE-77\" }\n"

// TestDenyFromWorkspaceConfiguration: a deny glob given through
// workspace/configuration (Neovim's settings, any VS Code change at
// runtime; Helix's config here) takes effect, at start and on reload: the denied file's content
// never reaches the model. A bad glob beside it is dropped with a warning
// naming its source, and the rest of the list still applies.
func TestDenyFromWorkspaceConfiguration(t *testing.T) {
	var section atomic.Value
	section.Store(map[string]any{"deny": []string{"private.go", "[bad"}})
	r := newRig(t, rigOpts{
		files:         map[string]string{"m.go": mGo, "private.go": privateGo},
		replies:       []modeltest.Reply{good, good},
		configuration: func(string) any { return section.Load() },
	})
	r.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool {
		s := string(m.Params)
		return strings.Contains(s, "workspace/configuration") && strings.Contains(s, `[bad`)
	})
	ask := func() string {
		r.ed.Open("m.go", mGo)
		id := r.start("aide.edit", map[string]any{"uri": r.ed.URI("m.go"), "task": "use TopSecretHelper from private.go in A"})
		r.waitSettled(id)
		reqs := r.fake.Requests()
		return string(reqs[len(reqs)-1].Raw)
	}
	if body := ask(); strings.Contains(body, "TOPSECRET-VALUE-77") || strings.Contains(body, "TopSecretHelper()") {
		t.Fatalf("the denied file reached the model:\n%s", body)
	}

	// The deny list changes at runtime: now m.go's neighbour other.go.
	writeFile(t, r.root, "other.go", "package m\n\n// OtherSecret is OTHER-SECRET-88.\nfunc OtherSecret() string { return \"OTHER-SECRET-88\" }\n")
	// "{bad2" makes the reload warn: the warning comes after the new list
	// is in force, so the next session is sure to see it.
	section.Store(map[string]any{"deny": []string{"private.go", "other.go", "{bad2"}})
	if err := r.ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil}); err != nil {
		t.Fatal(err)
	}
	r.ed.WaitNotification("window/showMessage", func(m fakeeditor.Message) bool { return strings.Contains(string(m.Params), "{bad2") })
	if body := ask(); strings.Contains(body, "OTHER-SECRET-88") || strings.Contains(body, "TOPSECRET-VALUE-77") {
		t.Fatalf("a file denied on reload reached the model:\n%s", body)
	}
}
