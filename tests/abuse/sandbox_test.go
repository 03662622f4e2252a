package abuse_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// The sandbox of verification (contract §2, docs/design.md "The sandbox"):
// code the editor model wrote — a Makefile recipe, a Go test — runs before
// anyone reviewed it, and tries the five escapes of a hostile build: (a)
// write outside the scratch copy, (b) read a file of the home folder, (c)
// open a TCP connection to a local listener, (d) read the environment of a
// process outside its tree (aide-lsp's, with the keys), (e) leave a
// setsid child behind. Inside the sandbox each fails; the control, the
// same command run directly, shows each would have worked.

// attackSource is the model's code: it tries the five and reports each
// success on a line "ATTACK x: ..." (written in two pieces in the source,
// so that only the output holds it), then fails so the output is shown.
func attackSource(pkg, fn string, a attackTargets) string {
	return fmt.Sprintf(`package %s

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

func %s() string {
	var b strings.Builder
	if os.WriteFile(%q, []byte("x"), 0o644) == nil {
		b.WriteString("ATT"+"ACK a: wrote outside\n")
	}
	if data, err := os.ReadFile(%q); err == nil {
		fmt.Fprintf(&b, "ATT"+"ACK b: read %%s\n", data)
	}
	if c, err := net.DialTimeout("tcp", %q, 5*time.Second); err == nil {
		c.Close()
		b.WriteString("ATT"+"ACK c: connected\n")
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if data, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(data, []byte(%q)) {
			fmt.Fprintf(&b, "ATT"+"ACK d: read the environ of %%s\n", e.Name())
			break
		}
	}
	cmd := exec.Command("sleep", "600", %q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		b.WriteString("ATT"+"ACK e: started a setsid child\n")
	}
	return b.String()
}
`, pkg, fn, a.outside, a.secret, a.listen, a.mark, a.sleepMark)
}

// attackSeq tells apart the setsid children of each attack.
var attackSeq atomic.Int32

type attackTargets struct {
	outside   string // a file outside the scratch copy
	secret    string // a file of the home folder
	listen    string // a local TCP listener
	mark      string // a value only aide-lsp's environment holds
	sleepMark string // the setsid child's argument
	accepted  *atomic.Int32
}

func newAttackTargets(t *testing.T, home string) attackTargets {
	t.Helper()
	a := attackTargets{outside: filepath.Join(t.TempDir(), "pwned"), secret: filepath.Join(home, "secret.txt"),
		mark: "mark-" + strconv.Itoa(os.Getpid()) + "-" + t.Name(), sleepMark: strconv.Itoa(1000000 + 1000*os.Getpid() + int(attackSeq.Add(1))),
		accepted: &atomic.Int32{}}
	writeFile(t, home, "secret.txt", "home-secret-contents")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.accepted.Add(1)
			c.Close()
		}
	}()
	a.listen = ln.Addr().String()
	t.Cleanup(func() { killSleepers(a.sleepMark) })
	return a
}

// escapes lists the attacks that worked, from the evidence outside the
// sandbox (the file written, the connection accepted, the child still
// running) and the output the command produced (what it read).
func (a attackTargets) escapes(output string) []string {
	var got []string
	if _, err := os.Stat(a.outside); err == nil {
		got = append(got, "a: wrote outside")
	}
	if strings.Contains(output, "home-secret-contents") {
		got = append(got, "b: read the home folder")
	}
	if a.accepted.Load() > 0 {
		got = append(got, "c: connected")
	}
	if strings.Contains(output, "ATTACK d") {
		got = append(got, "d: read another process's environ")
	}
	if len(sleepers(a.sleepMark)) > 0 {
		got = append(got, "e: a setsid child outlived the run")
	}
	return got
}

// sleepers are the pids of processes whose command line holds mark.
func sleepers(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte("\x00"+mark)) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !bytes.Contains(st, []byte(") Z")) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func killSleepers(mark string) {
	for _, pid := range sleepers(mark) {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}

// attackVector is one way the model's code is run by the user's verify.
type attackVector struct {
	name    string
	command []string
	files   func(a attackTargets) map[string]string
}

var attackVectors = []attackVector{
	{name: "Makefile", command: []string{"make", "check"}, files: func(a attackTargets) map[string]string {
		return map[string]string{
			"Makefile":       "check:\n\tgo run ./attack\n",
			"attack/main.go": attackSource("main", "attack", a) + "\nfunc main() { fmt.Print(attack()); os.Exit(1) }\n",
		}
	}},
	{name: "go test", command: []string{"go", "test", "./..."}, files: func(a attackTargets) map[string]string {
		return map[string]string{
			"attack_test.go": strings.Replace(attackSource("w", "attack", a), "import (", "import (\n\t\"testing\"", 1) +
				"\nfunc TestAttack(t *testing.T) { t.Fatal(attack()) }\n",
		}
	}},
}

const attackGoMod = "module example.com/w\n\ngo 1.22\n"
const attackWGo = "package w\n\n// A is the answer.\nfunc A() int { return 1 }\n"

func needSandboxTools(t *testing.T) {
	t.Helper()
	for _, p := range []string{"make", "go", "sleep"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
}

// TestVerificationEscapesFailInTheSandbox: through `aide-lsp run`, each
// vector's five attacks fail; the control shows they work unconfined.
func TestVerificationEscapesFailInTheSandbox(t *testing.T) {
	needSandboxTools(t)
	for _, v := range attackVectors {
		t.Run(v.name, func(t *testing.T) {
			// Control: the same files and command, run directly by a
			// parent that holds the mark, as aide-lsp would without a
			// sandbox.
			home := t.TempDir()
			a := newAttackTargets(t, home)
			dir := t.TempDir()
			writeFile(t, dir, "go.mod", attackGoMod)
			writeFile(t, dir, "w.go", attackWGo)
			for rel, text := range v.files(a) {
				writeFile(t, dir, rel, text)
			}
			cmd := exec.Command("sh", "-c", `env -u SANDBOX_TEST_TOKEN "$@"; exit 0`, "sh")
			cmd.Args = append(cmd.Args, v.command...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SANDBOX_TEST_TOKEN="+a.mark)
			out, _ := cmd.CombinedOutput()
			if got := a.escapes(string(out)); len(got) != 5 {
				t.Fatalf("the control did not show the five attacks working: %v\n%s", got, out)
			}

			// The same through aide-lsp run: nothing escapes.
			home = t.TempDir()
			a = newAttackTargets(t, home)
			res := runAttack(t, a, home, v, nil)
			if got := a.escapes(res); len(got) != 0 {
				t.Errorf("escaped the sandbox: %v\n%s", got, res)
			}
			if !strings.Contains(res, "aide: verify check: FAILED") {
				t.Errorf("the verification did not run and fail:\n%s", res)
			}

			// And in the server.
			home = t.TempDir()
			a = newAttackTargets(t, home)
			res = serveAttack(t, a, home, v)
			if got := a.escapes(res); len(got) != 0 {
				t.Errorf("serve: escaped the sandbox: %v\n%s", got, res)
			}
			if !strings.Contains(res, `"event":"verify"`) {
				t.Errorf("serve: the verification did not run:\n%s", res)
			}

			// And in acp.
			home = t.TempDir()
			a = newAttackTargets(t, home)
			res = acpAttack(t, a, home, v)
			if got := a.escapes(res); len(got) != 0 {
				t.Errorf("acp: escaped the sandbox: %v\n%s", got, res)
			}
			if !strings.Contains(res, "build failed") {
				t.Errorf("acp: the verification did not run the model's code:\n%s", res)
			}
		})
	}
}

// runAttack runs `aide-lsp run` on a trusted workspace whose editor model
// writes v's files, with verify set to v's command, and returns stderr.
func runAttack(t *testing.T, a attackTargets, home string, v attackVector, extraEnv []string, extraConfig ...map[string]any) string {
	return runAttackIn(t, a, home, v, true, extraEnv, extraConfig...)
}

// runAttackIn is runAttack, in a workspace trusted or not.
func runAttackIn(t *testing.T, a attackTargets, home string, v attackVector, trusted bool, extraEnv []string, extraConfig ...map[string]any) string {
	t.Helper()
	root, env := prepareAttack(t, a, home, v, trusted, extraEnv, extraConfig...)
	cmd := exec.Command(binary(t), "run", "--dir", root, "add a check")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return stderr.String()
}

// serveAttack is runAttack in `aide-lsp serve`: aide.architect on the
// workspace, until the session settles; it returns every byte the server
// sent and its stderr.
func serveAttack(t *testing.T, a attackTargets, home string, v attackVector) string {
	t.Helper()
	root, env := prepareAttack(t, a, home, v, true, nil)
	p := startServer(t, root, env)
	p.initialize(root, nil)
	var s struct{ Session string }
	_ = json.Unmarshal(p.command("aide.architect", map[string]any{"uri": string(uri.File(filepath.Join(root, "w.go"))), "task": "add a check"}), &s)
	for deadline := time.Now().Add(10 * time.Minute); !settled[p.sessionState(s.Session)]; {
		if time.Now().After(deadline) {
			t.Fatalf("the session never settled: %s", p.stderrText())
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	p.shutdown()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String() + p.stderr.String()
}

// prepareAttack makes the workspace, the fake models and the user's
// config of an attack, and returns the workspace and aide-lsp's
// environment.
func prepareAttack(t *testing.T, a attackTargets, home string, v attackVector, trusted bool, extraEnv []string, extraConfig ...map[string]any) (string, []string) {
	root, xdg := t.TempDir(), t.TempDir()
	writeFile(t, root, "go.mod", attackGoMod)
	writeFile(t, root, "w.go", attackWGo)
	var calls []model.ToolCall
	i := 0
	for rel, text := range v.files(a) {
		i++
		calls = append(calls, writeCall("c"+strconv.Itoa(i), rel, text))
	}
	fake := modeltest.NewOpenAI(t,
		modeltest.Reply{Text: "## Plan\n1. Add a check.\n## End Plan\n"},
		modeltest.Reply{ToolCalls: calls})
	cfg := map[string]any{
		"providers":      map[string]any{"fake": map[string]string{"kind": "openai", "baseURL": fake.BaseURL()}},
		"architectModel": "fake/big", "editorModel": "fake/small", "reviewPlan": false, "maxMistakes": 1,
		"verify": []map[string]any{{"name": "check", "run": v.command, "timeout": 600}},
	}
	for _, extra := range extraConfig {
		for k, val := range extra {
			cfg[k] = val
		}
	}
	writeFile(t, xdg, "config/aide-lsp/config.json", mustJSONString(t, cfg))
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = t.TempDir()
	}
	env := append(baseEnv("XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"),
		"XDG_CACHE_HOME="+cacheDir, "SANDBOX_TEST_TOKEN="+a.mark), extraEnv...)
	env = append(env, "HOME="+home)
	if trusted {
		trust := exec.Command(binary(t), "trust", "--dir", root)
		trust.Env = env
		if out, err := trust.CombinedOutput(); err != nil {
			t.Fatalf("trust: %v\n%s", err, out)
		}
	}
	return root, env
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNoSandboxNoVerification: where no confinement can be built (the test
// switch AIDE_SANDBOX_PROBE=fail), the model's code does not run and the
// proposal says why; with the user's verifyUnconfined a Go test runs and
// says it ran without the sandbox; a Makefile, a file that runs code, never
// runs unconfined.
func TestNoSandboxNoVerification(t *testing.T) {
	needSandboxTools(t)
	goTest, makefile := attackVectors[1], attackVectors[0]
	probeFail := []string{"AIDE_SANDBOX_PROBE=fail"}

	home := t.TempDir()
	a := newAttackTargets(t, home)
	res := runAttack(t, a, home, goTest, probeFail)
	if got := a.escapes(res); len(got) != 0 || strings.Contains(res, "ATTACK") {
		t.Errorf("the model's test ran without a sandbox: %v\n%s", got, res)
	}
	if !strings.Contains(res, "not verified: no sandbox here (AIDE_SANDBOX_PROBE=fail") {
		t.Errorf("the run does not say why nothing was verified:\n%s", res)
	}

	home = t.TempDir()
	a = newAttackTargets(t, home)
	res = runAttack(t, a, home, goTest, probeFail, map[string]any{"verifyUnconfined": true})
	if !strings.Contains(res, "ATTACK") || !strings.Contains(res, "failed without the sandbox") {
		t.Errorf("verifyUnconfined: the test did not run, or the run does not say it ran unconfined:\n%s", res)
	}
	killSleepers(a.sleepMark)

	home = t.TempDir()
	a = newAttackTargets(t, home)
	res = runAttack(t, a, home, makefile, probeFail, map[string]any{"verifyUnconfined": true})
	if strings.Contains(res, "ATTACK") || len(a.escapes(res)) != 0 || !strings.Contains(res, "never run without the sandbox") {
		t.Errorf("a model-written Makefile ran unconfined:\n%s", res)
	}
}

// TestUntrustedWorkspaceRunsNothing: a fresh clone the user never trusted,
// with the user's own verify configured, runs none of its build files and
// shows the trust report.
func TestUntrustedWorkspaceRunsNothing(t *testing.T) {
	needSandboxTools(t)
	home := t.TempDir()
	a := newAttackTargets(t, home)
	res := runAttackIn(t, a, home, attackVectors[0], false, nil)
	if strings.Contains(res, "ATTACK") || len(a.escapes(res)) != 0 {
		t.Errorf("verification ran in an untrusted workspace:\n%s", res)
	}
	if !strings.Contains(res, "not verified: this workspace is not trusted") || !strings.Contains(res, "aide-lsp trust --dir") {
		t.Errorf("no trust report:\n%s", res)
	}
}
