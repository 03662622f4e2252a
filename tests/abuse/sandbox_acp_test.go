package abuse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// acpAttack is runAttack in `aide-lsp acp`: one prompt in a new session,
// every permission refused; it returns the session updates and stderr.
func acpAttack(t *testing.T, a attackTargets, home string, v attackVector) string {
	t.Helper()
	root, env := prepareAttack(t, a, home, v, true, nil)
	cmd := exec.Command(binary(t), "acp")
	cmd.Env = env
	cmd.Dir = root
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The process writes stderr while the test reads it on a failure.
	var stderrMu sync.Mutex
	var stderrBuf bytes.Buffer
	cmd.Stderr = &lockedWriter{mu: &stderrMu, w: &stderrBuf}
	stderr := func() string { stderrMu.Lock(); defer stderrMu.Unlock(); return stderrBuf.String() }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	c := &acpRecorder{}
	conn := sdk.NewClientSideConnection(c, in, out)
	ctx, cancel := context.WithTimeout(context.Background(), 10*hangGuard)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr())
	}
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, stderr())
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("add a check")}}); err != nil {
		t.Fatalf("session/prompt: %v\n%s", err, stderr())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text.String() + stderr()
}

// acpRecorder is an ACP client that keeps every update and refuses every
// permission; it offers no file system and no terminal.
type acpRecorder struct {
	mu   sync.Mutex
	text bytes.Buffer
}

var errNotOffered = errors.New("not offered by this client")

func (c *acpRecorder) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	b, _ := json.Marshal(n.Update)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.text.Write(append(b, '\n'))
	return nil
}

func (c *acpRecorder) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	b, _ := json.Marshal(p)
	c.mu.Lock()
	c.text.Write(append(b, '\n'))
	c.mu.Unlock()
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
}

func (c *acpRecorder) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}

func (c *acpRecorder) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}

func (c *acpRecorder) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (c *acpRecorder) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (c *acpRecorder) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (c *acpRecorder) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (c *acpRecorder) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}
