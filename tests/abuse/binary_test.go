package abuse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// buildBinary builds cmd/aide-lsp once per test binary run.
var buildOnce struct {
	sync.Once
	path string
	err  error
	out  []byte
}

func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aide-lsp-abuse-bin")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "aide-lsp")
		cmd := exec.Command("go", "build", "-o", buildOnce.path, "github.com/aide-lsp/aide-lsp/cmd/aide-lsp")
		buildOnce.out, buildOnce.err = cmd.CombinedOutput()
	})
	if buildOnce.err != nil {
		t.Fatalf("go build ./cmd/aide-lsp: %v\n%s", buildOnce.err, buildOnce.out)
	}
	return buildOnce.path
}

// proc is the real `aide-lsp serve` over its stdin/stdout, with a minimal
// editor on the other end that answers the server's requests and keeps
// every byte the server wrote.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	stdout *bytes.Buffer // every byte the server sent (guarded by mu)
	stderr *bytes.Buffer
	mu     sync.Mutex
	done   chan struct{}
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

func startServer(t *testing.T, root string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary(t), append([]string{"serve"}, args...)...)
	p.cmd.Dir = root
	p.cmd.Env = env
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: p.stderr}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	tee := io.TeeReader(out, &lockedWriter{mu: &p.mu, w: p.stdout})
	p.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc{tee, in}), jsonrpc2.WithCodec(lsp.Codec))
	p.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "workspace/configuration":
			return []any{nil}, nil
		case "window/showDocument":
			return map[string]any{"success": true}, nil
		}
		return nil, nil
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *proc) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, err := p.conn.Call(ctx, method, params, result)
	return err
}

func (p *proc) initialize(root string, initOptions any) {
	p.t.Helper()
	params := map[string]any{
		"processId": os.Getpid(), "rootUri": string(uri.File(root)),
		"workspaceFolders": []any{map[string]any{"uri": string(uri.File(root)), "name": "ws"}},
		"clientInfo":       map[string]any{"name": "abuse-test"},
		"capabilities": map[string]any{
			"workspace": map[string]any{"configuration": true, "applyEdit": false},
		},
		"initializationOptions": initOptions,
	}
	var res map[string]any
	if err := p.call("initialize", params, &res); err != nil {
		p.t.Fatalf("initialize: %v (stderr %s)", err, p.stderrText())
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if err := p.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		p.t.Fatal(err)
	}
}

func (p *proc) command(command string, arg any) json.RawMessage {
	p.t.Helper()
	var res json.RawMessage
	if err := p.call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, &res); err != nil {
		p.t.Fatalf("%s: %v", command, err)
	}
	return res
}

func (p *proc) sessionState(id string) string {
	var out struct {
		Sessions []struct{ Session, State string }
	}
	_ = json.Unmarshal(p.command("aide.sessions", map[string]any{}), &out)
	for _, s := range out.Sessions {
		if s.Session == id {
			return s.State
		}
	}
	return "(none)"
}

func (p *proc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proc) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-p.done:
	case <-time.After(hangGuard):
		p.t.Errorf("the server process did not die")
	}
	_ = p.conn.Close()
}

func (p *proc) shutdown() {
	p.t.Helper()
	_ = p.call("shutdown", nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_ = p.conn.Notify(ctx, "exit", nil)
	select {
	case <-p.done:
	case <-time.After(hangGuard):
		p.t.Fatal("the server did not exit after shutdown/exit")
	}
}

func baseEnv(extra ...string) []string {
	// No user config, trust store nor index cache of the machine's (contract §8): tests
	// that want one pass their own XDG_CONFIG_HOME, which wins (last).
	none := filepath.Join(os.TempDir(), "aide-abuse-no-xdg")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "XDG_CONFIG_HOME=" + none, "XDG_STATE_HOME=" + none, "XDG_CACHE_HOME=" + none}
	return append(env, extra...)
}

// TestCrashAndRestart: the real binary is killed with SIGKILL while a model
// call streams; started again on the same workspace it lists the session
// as interrupted, and no file was touched.
func TestCrashAndRestart(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "m.go", mGo)
	stall := good
	stall.Text = "Working on it"
	stall.Stall = 10 * time.Minute // ends when the client is gone (killed)
	fake := modeltest.NewOpenAI(t, stall)
	cfg := map[string]any{
		"providers":      map[string]any{"fake": map[string]any{"kind": "openai", "baseURL": fake.BaseURL(), "apiKeyEnv": "FAKE_KEY"}},
		"architectModel": "fake/big",
	}
	env := baseEnv("FAKE_KEY=k")
	before := snapshot(t, root)

	p := startServer(t, root, env)
	p.initialize(root, cfg)
	var s struct{ Session string }
	if err := json.Unmarshal(p.command("aide.edit", map[string]any{"uri": string(uri.File(filepath.Join(root, "m.go"))), "task": "make A return 10"}), &s); err != nil || s.Session == "" {
		t.Fatal("no session")
	}
	deadline := time.Now().Add(hangGuard)
	for len(fake.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := p.sessionState(s.Session); st != "editing" {
		t.Logf("state before the kill: %q", st)
	}
	p.kill()

	// Every line written before the kill is whole JSON.
	data, _ := os.ReadFile(filepath.Join(root, ".aide", "sessions", s.Session+".jsonl"))
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) > 0 && !json.Valid(line) {
			t.Errorf("session file line %d is not JSON after the kill: %q", i+1, line)
		}
	}

	p2 := startServer(t, root, env)
	p2.initialize(root, cfg)
	if st := p2.sessionState(s.Session); st != "interrupted" {
		t.Fatalf("after the restart the session is %q, want interrupted", st)
	}
	p2.shutdown()
	after := snapshot(t, root)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed across the crash", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok && !strings.HasPrefix(k, ".aide") {
			t.Errorf("%s appeared across the crash", k)
		}
	}
}

// The keys are recognisable and would be found in any encoding that keeps
// them whole (logs, JSON, Markdown).
const (
	openAIKey    = "sk-ABUSETEST-openai-7f3a9c1e5b2d4680"
	anthropicKey = "sk-ant-ABUSETEST-anthropic-2c4e6a8b0d1f3579"
)

// TestSecretsNeverLeak runs a full architect → editor session through the
// real binary, with both providers keyed from OPENAI_API_KEY and
// ANTHROPIC_API_KEY and a debug log file, plus a failing call; then
// searches every byte of the log, stderr, everything sent to the editor
// (events included) and every file under .aide/ for the keys. A recorded
// cassette of the same calls is searched too.
func TestSecretsNeverLeak(t *testing.T) {
	root := t.TempDir()
	logDir := t.TempDir()
	writeFile(t, root, "m.go", mGo)
	arch := modeltest.NewOpenAI(t,
		modeltest.Reply{Text: "I read m.go.\n\n## Plan\n1. In m.go, make A return 10.\n## End Plan\n"},
		modeltest.Reply{Status: 401}, // a refused key: its error must not echo the key
	)
	ed := modeltest.NewAnthropic(t, good)
	env := baseEnv("OPENAI_API_KEY="+openAIKey, "ANTHROPIC_API_KEY="+anthropicKey,
		"OPENAI_BASE_URL="+arch.BaseURL(), "ANTHROPIC_BASE_URL="+ed.BaseURL())
	cfg := map[string]any{"architectModel": "openai/big", "editorModel": "anthropic/small"}
	xdg := t.TempDir() // reviewPlan is lowered by the user's file only (contract §3)
	writeFile(t, xdg, "aide-lsp/config.json", `{"reviewPlan":false}`)
	env = append(env, "XDG_CONFIG_HOME="+xdg)
	logFile := filepath.Join(logDir, "aide.log")

	p := startServer(t, root, env, "--log", logFile, "--log-level", "debug")
	p.initialize(root, cfg)
	mURI := string(uri.File(filepath.Join(root, "m.go")))
	var s struct{ Session string }
	_ = json.Unmarshal(p.command("aide.architect", map[string]any{"uri": mURI, "task": "make A return 10"}), &s)
	deadline := time.Now().Add(hangGuard)
	for !settled[p.sessionState(s.Session)] && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := p.sessionState(s.Session); st != "proposed" {
		t.Fatalf("the full session ended %q, want proposed (stderr %s)", st, p.stderrText())
	}
	_ = p.command("aide.accept", map[string]any{"session": s.Session})
	_ = p.command("aide.cost", map[string]any{})
	// A failing call (401) through a second session.
	_ = json.Unmarshal(p.command("aide.architect", map[string]any{"uri": mURI, "task": "again"}), &s)
	deadline = time.Now().Add(hangGuard)
	for !settled[p.sessionState(s.Session)] && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.shutdown()

	// The keys were really used (else the test proves nothing).
	if h := arch.Requests()[0].Headers["authorization"]; !strings.Contains(h, openAIKey) {
		t.Fatalf("the OpenAI fake did not receive the key (authorization %q)", h)
	}
	if h := ed.Requests()[0].Headers["x-api-key"]; h != anthropicKey {
		t.Fatalf("the Anthropic fake did not receive the key (x-api-key %q)", h)
	}

	// A cassette recorded from the same provider settings.
	cassette := filepath.Join(root, ".aide", "cache", "secrets-cassette.json")
	router := model.NewRouter(nil, model.Options{Env: func(k string) string {
		return map[string]string{"OPENAI_API_KEY": openAIKey, "OPENAI_BASE_URL": arch.BaseURL()}[k]
	}, MaxRetries: -1, Timeout: time.Minute})
	arch.Script(modeltest.Reply{Text: "hello"}, modeltest.Reply{Status: 401})
	rec := model.NewRecorder(router, cassette)
	for i := 0; i < 2; i++ {
		_, _ = rec.Chat(context.Background(), model.Request{Model: "openai/big", Messages: []model.Message{{Role: "user", Content: "hi"}}}, nil)
	}

	haystacks := map[string][]byte{"log file": mustRead(t, logFile), "stderr": []byte(p.stderrText())}
	p.mu.Lock()
	haystacks["everything sent to the editor"] = append([]byte(nil), p.stdout.Bytes()...)
	p.mu.Unlock()
	if len(haystacks["log file"]) == 0 {
		t.Fatal("the --log file is empty: nothing was searched")
	}
	_ = filepath.WalkDir(filepath.Join(root, ".aide"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			haystacks[path] = mustRead(t, path)
		}
		return nil
	})
	if _, ok := haystacks[cassette]; !ok {
		t.Fatal("the cassette was not written")
	}
	for name, b := range haystacks {
		for _, key := range []string{openAIKey, anthropicKey, "ABUSETEST"} {
			if bytes.Contains(b, []byte(key)) {
				t.Errorf("%s contains the key %q", name, key)
			}
		}
	}
	t.Logf("searched %d places (log %d bytes, sent to the editor %d bytes)", len(haystacks), len(haystacks["log file"]), len(haystacks["everything sent to the editor"]))
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
