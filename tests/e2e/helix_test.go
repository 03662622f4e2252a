package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/aide-lsp/aide-lsp/commands"
)

// TestHelixWorkspaceCommandWithoutArguments: Helix's :lsp-workspace-command
// sends workspace/executeCommand with no "arguments". aide.sessions and
// aide.cost answer; every other command refuses with a message naming the
// argument it needs, and the server keeps serving.
func TestHelixWorkspaceCommandWithoutArguments(t *testing.T) {
	const profile = "helix-25.1"
	e := start(t, profile, envOptions{})
	for _, command := range commands.AllCommands {
		res, _, err := e.ed.ExecuteCommand(command, nil) // nil: no "arguments" member
		switch command {
		case commands.CmdSessions:
			var r struct {
				Sessions *[]json.RawMessage `json:"sessions"`
			}
			if err != nil || json.Unmarshal(res, &r) != nil || r.Sessions == nil {
				t.Errorf("%s without arguments: %s, %v; want {sessions: []}", command, res, err)
			}
		case commands.CmdCost:
			var r struct {
				Rows *[]json.RawMessage `json:"rows"`
			}
			if err != nil || json.Unmarshal(res, &r) != nil || r.Rows == nil {
				t.Errorf("%s without arguments: %s, %v; want {rows: [], total}", command, res, err)
			}
		default:
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) {
				t.Errorf("%s without arguments: got %s, %v; want a refusal", command, res, err)
				continue
			}
			want := `"session"`
			if command == commands.CmdArchitect || command == commands.CmdEdit {
				want = `"uri"`
			}
			if !strings.Contains(rpcErr.Message, command+" needs one argument") || !strings.Contains(rpcErr.Message, want) {
				t.Errorf("%s without arguments: refusal %q does not say it needs %s", command, rpcErr.Message, want)
			}
		}
	}
	// Still serving after the refusals.
	if _, _, err := e.ed.ExecuteCommand(commands.CmdSessions, nil); err != nil {
		t.Errorf("aide.sessions after the refusals: %v", err)
	}
}
