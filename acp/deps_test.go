package acp

import (
	"os/exec"
	"strings"
	"testing"
)

// The two front ends are siblings (docs/architecture.md, "One engine, two
// front ends"): acp and lsp both drive the engine through app and
// commands, and neither imports the other, so neither can decide what the
// engine decides for both.
func TestACPDoesNotImportTheLanguageServer(t *testing.T) {
	for _, pkg := range []string{"github.com/aide-lsp/aide-lsp/acp", "github.com/aide-lsp/aide-lsp/app", "github.com/aide-lsp/aide-lsp/commands"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "github.com/aide-lsp/aide-lsp/lsp" {
				t.Errorf("%s depends on the language server (lsp): the front ends must only share the engine", pkg)
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/aide-lsp/aide-lsp/lsp").Output()
	if err != nil {
		t.Fatalf("go list -deps lsp: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/aide-lsp/aide-lsp/acp" {
			t.Error("lsp depends on the ACP agent (acp): the front ends must only share the engine")
		}
	}
}
