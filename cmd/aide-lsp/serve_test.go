package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// serveHelperEnv carries the arguments of the re-executed test binary: the
// server reads the real stdin, so it runs in a child process.
const serveHelperEnv = "AIDE_LSP_SERVE_HELPER_ARGS"

// TestServeHelperProcess is not a test: it is the child process of
// TestServeAcceptsClientTransportFlags, running dispatch on its arguments.
func TestServeHelperProcess(t *testing.T) {
	raw := os.Getenv(serveHelperEnv)
	if raw == "" {
		t.Skip("helper process only")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	os.Exit(dispatch(args, os.Stdout, os.Stderr))
}

func frame(t *testing.T, msg map[string]any) string {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// The flags vscode-languageclient and others add to the server's command
// line are accepted: the server answers initialize and exits cleanly.
func TestServeAcceptsClientTransportFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--stdio"},
		{"serve", "--stdio", "--clientProcessId", "4242"},
		{"serve", "--clientProcessId=4242", "--stdio"},
		{"--stdio"}, // serve is the default subcommand
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			root := t.TempDir()
			rootURI := (&url.URL{Scheme: "file", Path: root}).String()
			argJSON, _ := json.Marshal(args)
			cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelperProcess$")
			cmd.Env = append(os.Environ(), serveHelperEnv+"="+string(argJSON), "HOME="+root, "XDG_CONFIG_HOME="+root)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdoutPipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Hang guard only: a server that never answers is killed, which
			// ends the reads below with an error.
			guard := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
			defer guard.Stop()
			out := bufio.NewReader(stdoutPipe)
			send := func(msg map[string]any) {
				if _, err := io.WriteString(stdin, frame(t, msg)); err != nil {
					t.Fatalf("aide-lsp %v: writing %v: %v\nstderr:\n%s", args, msg["method"], err, stderr.String())
				}
			}
			// The server handles messages concurrently, so each request
			// waits for its reply before the next is sent.
			await := func(id int) string {
				for {
					body, err := readFrame(out)
					if err != nil {
						t.Fatalf("aide-lsp %v: no reply to request %d: %v\nstderr:\n%s", args, id, err, stderr.String())
					}
					if strings.Contains(body, fmt.Sprintf(`"id":%d`, id)) {
						return body
					}
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
				"params": map[string]any{"processId": nil, "rootUri": rootURI, "capabilities": map[string]any{},
					"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": "w"}}}})
			if reply := await(1); !strings.Contains(reply, `"capabilities"`) {
				t.Errorf("aide-lsp %v: initialize reply has no capabilities: %s", args, reply)
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
			send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
			if reply := await(2); strings.Contains(reply, `"error"`) {
				t.Errorf("aide-lsp %v: shutdown failed: %s", args, reply)
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
			_ = stdin.Close()
			_, _ = io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("aide-lsp %v: %v\nstderr:\n%s", args, err, stderr.String())
			}
			if strings.Contains(stderr.String(), "flag provided but not defined") {
				t.Errorf("aide-lsp %v refused a flag: %s", args, stderr.String())
			}
		})
	}
}

// A transport the server does not have is still refused with the usage.
func TestServeRefusesUnknownFlags(t *testing.T) {
	var stderr bytes.Buffer
	if code := runServe([]string{"--socket=2087"}, &bytes.Buffer{}, &stderr); code != exitUsage {
		t.Fatalf("--socket: exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "socket") {
		t.Errorf("the refusal does not name the flag: %s", stderr.String())
	}
}

// readFrame reads one Content-Length framed message body.
func readFrame(r *bufio.Reader) (string, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if _, err := fmt.Sscan(strings.TrimSpace(v), &length); err != nil {
				return "", err
			}
		}
	}
	if length < 0 {
		return "", fmt.Errorf("a message without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(r, body)
	return string(body), err
}
