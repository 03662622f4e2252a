package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// writeTree makes files under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// scratchDirs lists this process's scratch folders still on disk.
func scratchDirs(t *testing.T) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), scratchPrefix+"*"))
	var mine []string
	for _, d := range m {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
			mine = append(mine, d)
		}
	}
	return mine
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
}

func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
}

var goModule = map[string]string{
	"go.mod":   "module example.com/tiny\n\ngo 1.21\n",
	"main.go":  "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet())\n}\n",
	"greet.go": "package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n",
}

// A real go build in the scratch copy: the candidate that breaks the build
// fails with the compiler's message naming the file and line, the one that
// does not passes, and the user's tree is never written.
func TestRunGoBuildInScratchCopy(t *testing.T) {
	needGo(t)
	root := writeTree(t, goModule)
	build := []Command{{Name: "build", Run: []string{"go", "build", "./..."}}}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")

	broken := []Change{{Path: "greet.go", Content: []byte("package main\n\nfunc greet() string {\n\treturn hello\n}\n")}}
	rep, err := Run(context.Background(), Options{Root: root, Files: keys(goModule), Changes: broken, Commands: build, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Fatalf("a candidate that does not compile passed: %+v", rep.Results)
	}
	f := rep.Failed()
	if !strings.Contains(f.Output, "greet.go:4:") || !strings.Contains(f.Output, "undefined: hello") {
		t.Fatalf("the compiler's message naming the line is missing:\n%s", f.Output)
	}
	if strings.Contains(f.Output, os.TempDir()+string(filepath.Separator)+scratchPrefix) {
		t.Errorf("the output names the scratch folder instead of the workspace's files:\n%s", f.Output)
	}
	if got := Trim(f.Output, []string{"greet.go"}, 5); !strings.HasPrefix(strings.TrimPrefix(got, "./"), "greet.go:4:") {
		t.Errorf("Trim does not put the line naming the changed file first:\n%s", got)
	}

	fixed := []Change{{Path: "greet.go", Content: []byte("package main\n\nfunc greet() string {\n\treturn \"hello, world\"\n}\n")}}
	rep, err = Run(context.Background(), Options{Root: root, Files: keys(goModule), Changes: fixed, Commands: build, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("a candidate that compiles failed: %+v", rep.Results)
	}
	got, _ := os.ReadFile(filepath.Join(root, "greet.go"))
	if string(got) != goModule["greet.go"] {
		t.Errorf("the user's file was written: %q", got)
	}
	if ents, _ := os.ReadDir(root); len(ents) != len(goModule) {
		t.Errorf("the user's tree gained files: %v", ents)
	}
	if d := scratchDirs(t); len(d) != 0 {
		t.Errorf("scratch copies outlived the run: %v", d)
	}
}

// A command that hangs is killed at its time limit and reported as such
// (that nothing it started survives is the sandbox's test).
func TestHangingCommandKilledAtTimeout(t *testing.T) {
	needSh(t)
	root := writeTree(t, map[string]string{"a.txt": "a"})
	cmd := Command{Name: "hang", Run: []string{"sh", "-c", "sleep 300 & echo started; wait"}, Timeout: 1}
	rep, err := Run(context.Background(), Options{Root: root, Files: []string{"a.txt"}, Commands: []Command{cmd}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.OK || !r.TimedOut || !strings.Contains(r.Err, "time limit of 1s") {
		t.Fatalf("a hanging command was not reported as killed at its limit: %+v", r)
	}
	if !strings.Contains(r.Summary(), "failed (killed at its time limit of 1s") {
		t.Errorf("summary: %s", r.Summary())
	}
	if !strings.Contains(r.Output, "started") {
		t.Errorf("the output before the kill is lost: %q", r.Output)
	}
	if d := scratchDirs(t); len(d) != 0 {
		t.Errorf("scratch copies outlived the run: %v", d)
	}
}

// Cancelling stops the command and still removes the copy.
func TestCancelStopsCommand(t *testing.T) {
	needSh(t)
	root := writeTree(t, map[string]string{"a.txt": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	cmd := Command{Name: "build", Run: []string{"sh", "-c", "echo go; sleep 300"}}
	rep, err := Run(ctx, Options{Root: root, Files: []string{"a.txt"}, Commands: []Command{cmd},
		OnCommand: func(Command) { close(started) }})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.OK || !r.Cancelled || r.TimedOut {
		t.Fatalf("a cancelled command: %+v", r)
	}
	if d := scratchDirs(t); len(d) != 0 {
		t.Errorf("scratch copies outlived the run: %v", d)
	}
}

// A panic in the caller's callback still removes the copy.
func TestPanicRemovesScratch(t *testing.T) {
	needSh(t)
	root := writeTree(t, map[string]string{"a.txt": "a"})
	func() {
		defer func() { _ = recover() }()
		_, _ = Run(context.Background(), Options{Root: root, Files: []string{"a.txt"},
			Commands:  []Command{{Name: "x", Run: []string{"true"}}},
			OnCommand: func(Command) { panic("boom") }})
	}()
	if d := scratchDirs(t); len(d) != 0 {
		t.Errorf("scratch copies outlived a panic: %v", d)
	}
}

// No key reaches the command: not the providers' key variables whatever
// their name, not a variable whose name says credential, not a value that
// looks like one; the rest of the environment does.
func TestNoKeyReachesCommand(t *testing.T) {
	needSh(t)
	root := writeTree(t, map[string]string{"a.txt": "a"})
	environ := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"OPENAI_API_KEY=sk-live-0123456789abcdefghij",
		"MY_LLM=sk-ant-zzzz0123456789abcdefgh",      // a key by its shape
		"CORP_MODEL_VAR=corp-7f3c9a2b1d",            // the provider's apiKeyEnv
		"GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaaaaaa", // by name
		"AWS_SECRET_ACCESS_KEY=abcdefabcdef",
		"SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
		"DATABASE_URL=postgres://user:hunter22@db/app", // user-info
		"GOFLAGS=-mod=mod",
		"KEEP_ME=plain-value",
	}
	cmd := Command{Name: "env", Run: []string{"env"}}
	rep, err := Run(context.Background(), Options{Root: root, Files: []string{"a.txt"}, Commands: []Command{cmd},
		Environ: environ, KeyVars: []string{"CORP_MODEL_VAR"}})
	if err != nil || !rep.OK() {
		t.Fatalf("%v %+v", err, rep.Results)
	}
	seen := rep.Results[0].Output
	for _, secret := range []string{"sk-live", "sk-ant", "corp-7f3c", "ghp_", "abcdefabcdef", "ssh-agent", "hunter22"} {
		if strings.Contains(seen, secret) {
			t.Errorf("%s reached the command's environment:\n%s", secret, seen)
		}
	}
	for _, kept := range []string{"KEEP_ME=plain-value", "GOFLAGS=-mod=mod", "PATH="} {
		if !strings.Contains(seen, kept) {
			t.Errorf("%s did not reach the command:\n%s", kept, seen)
		}
	}
}

func TestEnvAllowedNames(t *testing.T) {
	refused := []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GH_TOKEN", "NPM_TOKEN", "HF_TOKEN",
		"AWS_SESSION_TOKEN", "AZURE_CLIENT_SECRET", "DB_PASSWORD", "PGPASSWORD", "MYSQL_PWD",
		"GOOGLE_APPLICATION_CREDENTIALS", "VAULT_TOKEN", "SSH_AUTH_SOCK", "KRB5CCNAME", "GIT_ASKPASS",
		"CARGO_REGISTRIES_X_TOKEN", "githubtoken", "x-api-key", "SESSION_COOKIE", "PWD", "OLDPWD"}
	for _, n := range refused {
		if EnvAllowed(n, "value", nil) {
			t.Errorf("%s passed", n)
		}
	}
	kept := []string{"PATH", "HOME", "GOPATH", "GOCACHE", "GIT_AUTHOR_NAME", "LANG", "TERM", "KEYBOARD_LAYOUT", "MONKEY", "GOFLAGS", "CC", "JAVA_HOME"}
	for _, n := range kept {
		if !EnvAllowed(n, "value", nil) {
			t.Errorf("%s refused", n)
		}
	}
}

// The copy holds the files given and the candidate over them; a path
// leaving the copy is refused; the scratch folder goes with Remove.
func TestScratchApply(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "a", "sub/b.txt": "b", "sub/c.txt": "c"})
	s, err := NewScratch(context.Background(), root, []string{"a.txt", "sub/b.txt", "sub/c.txt", "missing.txt", "../escape"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Remove()
	if s.Stats.Files != 3 {
		t.Errorf("copied %d files, want 3", s.Stats.Files)
	}
	if err := s.Apply([]Change{{Path: "sub/b.txt", Content: []byte("B")}, {Path: "sub/c.txt", Delete: true}, {Path: "new/d.txt", Content: []byte("d")}}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "a", "sub/b.txt": "B", "new/d.txt": "d"} {
		if got, _ := os.ReadFile(filepath.Join(s.Dir, p)); string(got) != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "sub/c.txt")); !os.IsNotExist(err) {
		t.Errorf("deleted file still there: %v", err)
	}
	if err := s.Apply([]Change{{Path: "../../outside.txt", Content: []byte("x")}}); err == nil {
		t.Error("a change outside the copy was written")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "sub/b.txt")); string(b) != "b" {
		t.Errorf("the workspace was written: %q", b)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.base); !os.IsNotExist(err) {
		t.Errorf("scratch folder still there: %v", err)
	}
}

// A scratch folder whose process is gone is swept; a live one is kept.
func TestSweep(t *testing.T) {
	dead, err := os.MkdirTemp("", scratchPrefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dead)
	// A pid that cannot run: beyond pid_max on any system.
	os.WriteFile(filepath.Join(dead, ownerFile), []byte("2147483646"), 0o600)
	live, err := NewScratch(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	Sweep()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead process's scratch folder was kept")
	}
	if _, err := os.Stat(live.Dir); err != nil {
		t.Errorf("a live scratch folder was swept: %v", err)
	}
}

func TestCappedOutput(t *testing.T) {
	needSh(t)
	root := writeTree(t, map[string]string{"a.txt": "a"})
	cmd := Command{Name: "noisy", Run: []string{"sh", "-c", "echo FIRST; i=0; while [ $i -lt 5000 ]; do echo line $i; i=$((i+1)); done; echo LAST; exit 3"}}
	rep, err := Run(context.Background(), Options{Root: root, Commands: []Command{cmd}, OutputCap: 2048})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.OK || r.Err != "exit status 3" {
		t.Fatalf("%+v", r)
	}
	if len(r.Output) > 2200 || !strings.HasPrefix(r.Output, "FIRST") || !strings.HasSuffix(strings.TrimSpace(r.Output), "LAST") || !strings.Contains(r.Output, "bytes of output left out") {
		t.Errorf("capped output (%d bytes) lost its head, tail or the note:\n%s", len(r.Output), r.Output)
	}
}

func TestCommandNotFound(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "a"})
	rep, err := Run(context.Background(), Options{Root: root, Commands: []Command{
		{Name: "lint", Run: []string{"no-such-linter-aide"}},
		{Name: "never", Run: []string{"true"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].OK || !strings.Contains(rep.Results[0].Err, "could not run no-such-linter-aide") {
		t.Fatalf("%+v", rep.Results)
	}
}

func TestTrim(t *testing.T) {
	out := "# example.com/m\n./util/x.go:3:1: unused\n./main.go:7:2: undefined: y\nnote: see index.go:1\nmain.go\n" + strings.Repeat("noise\n", 100)
	got := Trim(out, []string{"main.go"}, 3)
	lines := strings.Split(got, "\n")
	if lines[0] != "./main.go:7:2: undefined: y" || lines[1] != "main.go" {
		t.Errorf("lines naming main.go are not first:\n%s", got)
	}
	if !strings.Contains(got, "# example.com/m") || strings.Count(got, "noise") > 1 {
		t.Errorf("the first lines of the rest are not kept, or too many:\n%s", got)
	}
	if !strings.HasSuffix(got, "more lines") {
		t.Errorf("no note of what was left out:\n%s", got)
	}
	if namesAny("index.go:1", []string{"x.go"}) || namesAny("util/x.go:3", []string{"x.go"}) {
		t.Error("a longer name matched a changed file")
	}
	if !namesAny("at ./util/x.go:3", []string{"util/x.go"}) || !namesAny(`File "app.py", line 3`, []string{"app.py"}) {
		t.Error("a named file was not found")
	}
	if Tail("a\nb\n\nc\n", 2) != "b\nc" {
		t.Errorf("Tail = %q", Tail("a\nb\n\nc\n", 2))
	}
}
