package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/aide-lsp/aide-lsp/commands"
)

// Titles of the two code actions of contract §4.
const (
	TitleArchitect = "AIDE: Architect → Editor"
	TitleEdit      = "AIDE: Edit (one call)"
)

// CommandArg is the argument of aide.architect and aide.edit as the code
// actions send it.
type CommandArg struct {
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
}

// codeAction answers at once: no model call, nothing to resolve (Helix
// blocks its UI on resolve).
func (s *Server) codeAction(_ context.Context, params []byte) (any, error) {
	var p struct {
		codeActionParams
		Context struct {
			Only []string `json:"only"`
		} `json:"context"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	actions := []codeAction{}
	if !kindWanted(CodeActionKind, p.Context.Only) {
		return actions, nil
	}
	arg := CommandArg{URI: p.TextDocument.URI, Range: p.Range}
	for _, a := range []struct{ title, cmd string }{
		{TitleArchitect, commands.CmdArchitect},
		{TitleEdit, commands.CmdEdit},
	} {
		actions = append(actions, codeAction{
			Title: a.title, Kind: CodeActionKind,
			Command: &command{Title: a.title, Command: a.cmd, Arguments: []any{arg}},
		})
	}
	return actions, nil
}

// kindWanted applies context.only: a kind matches a filter equal to it or
// to one of its dot-separated prefixes.
func kindWanted(kind string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}
