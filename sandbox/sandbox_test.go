package sandbox

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func needSandbox(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is built on Linux only")
	}
	if err := Available(); err != nil {
		t.Fatalf("no sandbox on this Linux machine: %v", err)
	}
}

// run runs a shell script in dir, confined or not, and returns its output.
func run(t *testing.T, dir, script string, unconfined bool) (string, error) {
	t.Helper()
	var out bytes.Buffer
	_, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Dir: dir,
		Env: os.Environ(), Output: &out, Unconfined: unconfined})
	return out.String(), err
}

// Each of these works unconfined and fails confined: writing outside Dir,
// reading a file of the home folder (or /etc/shadow, as root), a TCP
// connection to a local listener, the environment of the parent.
func TestConfinedRefusesWhatUnconfinedAllows(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	home, _ := os.UserHomeDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	checks := map[string]string{
		"write outside":  "echo x > " + filepath.Join(t.TempDir(), "out"),
		"read outside":   "cat " + secret,
		"list home":      "ls " + home,
		"tcp connect":    "exec go run dial.go",
		"parent environ": "cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ",
	}
	if os.Getuid() == 0 {
		checks["root reads shadow"] = "cat /etc/shadow"
	}
	for name, script := range checks {
		t.Run(name, func(t *testing.T) {
			if name == "tcp connect" {
				if _, err := exec.LookPath("go"); err != nil {
					t.Skip("no go")
				}
			}
			if out, err := run(t, writeDialer(t, port), script, true); err != nil {
				t.Fatalf("the control failed, the check proves nothing: %v\n%s", err, out)
			}
			out, err := run(t, writeDialer(t, port), script, false)
			if err == nil {
				t.Errorf("%s worked inside the sandbox:\n%s", name, out)
			}
			if name == "tcp connect" && !strings.Contains(out, "permission denied") {
				t.Errorf("the connection failed for another reason than the sandbox:\n%s", out)
			}
		})
	}
}

// writeDialer makes a folder holding dial.go, a program that connects to
// 127.0.0.1:port, and returns it.
func writeDialer(t *testing.T, port string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "dial.go")
	src := "package main\nimport (\"net\";\"os\")\nfunc main() { c, err := net.Dial(\"tcp\", \"127.0.0.1:" + port + "\"); if err != nil { println(err.Error()); os.Exit(1) }; c.Close() }\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module dial\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A setsid child outlives an unconfined run (it left the process group)
// but not a confined one (the PID namespace dies with the command).
func TestSetsidChildDoesNotOutliveTheSandbox(t *testing.T) {
	needSandbox(t)
	for _, unconfined := range []bool{true, false} {
		mark := strconv.Itoa(3000000 + os.Getpid()*10 + map[bool]int{true: 1, false: 2}[unconfined])
		// The script returns once the child runs as "sleep 600 <mark>":
		// sleep's own command line, as setsid's (which holds the mark too)
		// is there before setsid has left the process group, and a group
		// killed then takes the child with it.
		script := "setsid sleep 600 " + mark + " </dev/null >/dev/null 2>&1 & p=$!; until tr '\\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -q '^sleep 600 " + mark + "'; do :; done"
		if _, err := run(t, t.TempDir(), script, unconfined); err != nil {
			t.Fatal(err)
		}
		alive := livePids(mark)
		for _, pid := range alive {
			_ = killPid(pid)
		}
		if unconfined && len(alive) == 0 {
			t.Fatal("the control's setsid child did not survive: the check proves nothing")
		}
		if !unconfined && len(alive) > 0 {
			t.Errorf("a setsid child outlived the sandbox: %v", alive)
		}
	}
}

// livePids are the running processes whose command line holds mark.
func livePids(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if bytes.Contains(cmd, []byte("\x00"+mark)) && !bytes.Contains(st, []byte(") Z")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// The README's verify example and the shop's tests pass inside the
// sandbox.
func TestShopBuildsInTheSandbox(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../examples/shop")); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"go", "build", "./..."}, {"go", "vet", "./..."}, {"go", "test", "./..."}} {
		var out bytes.Buffer
		res, err := Run(context.Background(), Spec{Argv: argv, Dir: dir, Env: os.Environ(), Output: &out})
		if err != nil || !res.Confined {
			t.Errorf("%s: %v (confined %v)\n%s", strings.Join(argv, " "), err, res.Confined, out.String())
		}
	}
}

// The test switch makes the probe fail, and Run refuses to run confined.
func TestProbeSwitch(t *testing.T) {
	t.Setenv(ProbeEnv, "fail")
	if err := Available(); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), ProbeEnv) {
		t.Fatalf("Available() = %v", err)
	}
	out, err := run(t, t.TempDir(), "echo ran", false)
	if !errors.Is(err, ErrUnavailable) || strings.Contains(out, "ran") {
		t.Fatalf("ran without a sandbox: %v %q", err, out)
	}
}
