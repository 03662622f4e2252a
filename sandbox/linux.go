//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// initEnv marks the sandbox's init: aide-lsp re-executes itself
// (/proc/self/exe) inside the new namespaces with this variable holding
// the spec, confines itself and executes the program (initMain). The
// check runs in this package's init, so every binary that links the
// sandbox — the server, the CLI, the test binaries — can be its own init.
const initEnv = "AIDE_SANDBOX_INIT"

// minABI is the Landlock ABI that refuses TCP bind and connect.
const minABI = 4

// initSpec is what the parent tells the init.
type initSpec struct {
	Path    string   `json:"path"`
	Argv    []string `json:"argv"`
	Dir     string   `json:"dir"`
	Env     []string `json:"env"`
	RWDirs  []string `json:"rwDirs"`
	RODirs  []string `json:"roDirs"`
	ROFiles []string `json:"roFiles"`
	RWFiles []string `json:"rwFiles"`
	// Probe: confine, then exit 0 instead of running a program.
	Probe bool `json:"probe"`
}

func init() {
	raw, ok := os.LookupEnv(initEnv)
	if !ok {
		return
	}
	// Only ever reached as the sandbox's init: initMain executes the
	// program or exits.
	code := initMain(raw)
	os.Exit(code)
}

// initExit is the init's exit status when it could not confine itself or
// start the program (as a shell's 126/127, distinct from them).
const initExit = 125

// initMain confines the process and executes the program in its place.
// Namespaces come from the parent's clone; what is per-thread (the
// capabilities, no_new_privs, the Landlock domain) is applied to the main
// thread, which runs package init locked, and which executes the program.
func initMain(raw string) int {
	runtime.LockOSThread()
	fail := func(step string, err error) int {
		fmt.Fprintf(os.Stderr, "aide-lsp sandbox: %s: %v\n", step, err)
		return initExit
	}
	var s initSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return fail("spec", err)
	}
	// A fresh /proc: it shows this PID namespace only, so no process of
	// the user's (aide-lsp's environ included) is even named.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("private mounts", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fail("mount /proc", err)
	}
	if err := dropCapabilities(); err != nil {
		return fail("drop capabilities", err)
	}
	if err := os.Chdir(s.Dir); err != nil {
		return fail("chdir", err)
	}
	if err := restrict(s); err != nil {
		return fail("landlock", err)
	}
	if s.Probe {
		return 0
	}
	err := syscall.Exec(s.Path, s.Argv, s.Env)
	fmt.Fprintf(os.Stderr, "aide-lsp sandbox: could not run %s: %v\n", s.Argv[0], err)
	if os.IsNotExist(err) {
		return 127
	}
	return 126
}

// dropCapabilities leaves the init (uid 0 of its user namespace) without a
// capability, now and after exec: an empty bounding set, no ambient set,
// and the securebits that keep uid 0 from regaining them.
func dropCapabilities() error {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		fmt.Sscanf(string(bytes.TrimSpace(b)), "%d", &last)
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("ambient set: %w", err)
	}
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 // NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, each locked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	return nil
}

// restrict applies the Landlock domain to this thread: files by the spec's
// lists, TCP bind and connect refused (no rule grants a port), signals and
// abstract sockets scoped to the sandbox where the kernel can.
func restrict(s initSpec) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return err
	}
	if abi < minABI {
		return fmt.Errorf("Landlock ABI %d, want ≥ %d (TCP rules)", abi, minABI)
	}
	rules := []landlock.Rule{
		landlock.RWDirs(s.RWDirs...),
		landlock.RODirs(s.RODirs...).IgnoreIfMissing(),
		landlock.ROFiles(s.ROFiles...).IgnoreIfMissing(),
		landlock.RWFiles(s.RWFiles...).IgnoreIfMissing(),
	}
	fd, flags, err := landlock.V6.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return fmt.Errorf("nothing to enforce")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return llsys.LandlockRestrictSelf(fd, flags)
}

// policy is what a build may read: computed once per process.
type policy struct {
	roDirs, roFiles, rwFiles []string
	goEnv                    []string // GOROOT, GOMODCACHE as found
	goCache                  string   // the sandbox's own Go build cache, "" when none
}

var (
	policyOnce sync.Once
	thePolicy  policy
)

// systemDirs are read-only in every sandbox: programs, libraries, and the
// system's own data.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.conf.d", "/etc/fonts",
	"/proc", "/sys/devices/system/cpu"}

// systemFiles are the few files of /etc a toolchain reads; the rest of
// /etc (shadow, the host's keys) stays out.
var systemFiles = []string{"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf",
	"/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime",
	"/etc/mime.types", "/etc/os-release", "/etc/debian_version", "/etc/protocols", "/etc/services"}

// devFiles may be read and written.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// loadPolicy finds the toolchain: the Go root and module cache (from
// `go env`, the go on PATH), the npm and pip caches, and the folders of
// PATH outside the home folder.
func loadPolicy() policy {
	policyOnce.Do(func() {
		p := policy{rwFiles: devFiles}
		p.roDirs = append(p.roDirs, systemDirs...)
		p.roFiles = append(p.roFiles, systemFiles...)
		home, _ := os.UserHomeDir()
		if out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output(); err == nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) == 2 {
				p.roDirs = append(p.roDirs, lines[0], lines[1])
				p.goEnv = []string{"GOROOT=" + lines[0], "GOMODCACHE=" + lines[1]}
			}
		}
		if home != "" {
			p.roDirs = append(p.roDirs, filepath.Join(home, ".npm"), filepath.Join(home, ".cache", "pip"))
		}
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if filepath.IsAbs(d) && (home == "" || (d != home && !strings.HasPrefix(d, home+"/") && !strings.HasPrefix(home, d+"/"))) && d != "/" {
				p.roDirs = append(p.roDirs, d)
			}
		}
		if c, err := os.UserCacheDir(); err == nil {
			dir := filepath.Join(c, "aide-lsp", "sandbox", "go-build")
			if os.MkdirAll(dir, 0o700) == nil {
				p.goCache = dir
			}
		}
		thePolicy = p
	})
	return thePolicy
}

// sandboxEnv is env with the home, the temporary folder and the Go
// toolchain's folders pointed inside the sandbox.
func sandboxEnv(env []string, priv string, p policy, dir string) []string {
	drop := map[string]bool{"HOME": true, "TMPDIR": true, "GOCACHE": true, "GOMODCACHE": true, "GOPATH": true,
		"GOROOT": true, "GOTOOLCHAIN": true, "GOPROXY": true, "PWD": true, "XDG_CACHE_HOME": true,
		"XDG_CONFIG_HOME": true, "XDG_STATE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true}
	out := make([]string, 0, len(env)+12)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			out = append(out, kv)
		}
	}
	cache := p.goCache
	if cache == "" {
		cache = filepath.Join(priv, "go-build")
	}
	out = append(out, "HOME="+filepath.Join(priv, "home"), "TMPDIR="+filepath.Join(priv, "tmp"),
		"GOPATH="+filepath.Join(priv, "home", "go"), "GOCACHE="+cache,
		"GOTOOLCHAIN=local", "GOPROXY=off", "PWD="+dir)
	return append(out, p.goEnv...)
}

// start runs the init with spec inside new namespaces.
func start(ctx context.Context, spec initSpec, w io.Writer) error {
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Args = []string{"aide-lsp-sandbox"}
	cmd.Env = []string{initEnv + "=" + string(raw)}
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
			syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
	}
	// Killing pid 1 of the namespace kills every process in it.
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = waitDelay
	return cmd.Run()
}

// probe runs the init once with nothing to execute: whatever stops it
// (no user namespaces, no Landlock, an old ABI) is the reason.
func probe() error {
	p := loadPolicy()
	dir, err := os.MkdirTemp("", "aide-sandbox-probe-*")
	if err != nil {
		return wrapUnavailable(err.Error())
	}
	defer os.RemoveAll(dir)
	var out bytes.Buffer
	err = start(context.Background(), initSpec{Dir: dir, RWDirs: []string{dir}, RODirs: p.roDirs,
		ROFiles: p.roFiles, RWFiles: p.rwFiles, Probe: true}, &out)
	if err != nil {
		why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "aide-lsp sandbox: "))
		if why == "" {
			why = err.Error()
		}
		return wrapUnavailable(why)
	}
	return nil
}

// runConfined runs s in the sandbox: the init (pid 1) executes the
// program, and the whole namespace dies with it.
func runConfined(ctx context.Context, s Spec) error {
	path, err := lookPath(s.Argv[0])
	if err != nil {
		return err
	}
	priv, err := os.MkdirTemp("", "aide-sandbox-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(priv)
	for _, d := range []string{"home", "tmp"} {
		if err := os.Mkdir(filepath.Join(priv, d), 0o700); err != nil {
			return err
		}
	}
	p := loadPolicy()
	rw := []string{s.Dir, priv}
	if p.goCache != "" {
		rw = append(rw, p.goCache)
	}
	return start(ctx, initSpec{Path: path, Argv: s.Argv, Dir: s.Dir, Env: sandboxEnv(s.Env, priv, p, s.Dir),
		RWDirs: rw, RODirs: p.roDirs, ROFiles: p.roFiles, RWFiles: p.rwFiles}, s.Output)
}
