package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit are stamped by scripts/release.sh with
// -ldflags "-X main.version=... -X main.commit=..." (docs/contract.md §2,
// "Version"). A plain `go build` in a git checkout leaves version at its
// development value and takes the commit from the VCS stamp Go writes into
// the binary; the Go version is always the toolchain's own stamp.
var (
	version = "0.1.0-dev"
	commit  = ""
)

// buildVersion is what --version, doctor, the LSP serverInfo and the ACP
// agent info report: "0.2.0 (commit 1a2b3c4d5e6f, go1.26.8)".
func buildVersion() string {
	c := commit
	if c == "" {
		c = vcsCommit()
	}
	c = shortCommit(c)
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("%s (commit %s, %s)", version, c, runtime.Version())
}

// vcsCommit is the revision go build stamped from the checkout, with
// "-dirty" when the tree had uncommitted changes; "" outside a checkout.
func vcsCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// shortCommit keeps 12 hex digits of a commit and its "-dirty" mark.
func shortCommit(c string) string {
	hash, dirty, _ := strings.Cut(c, "-")
	if len(hash) > 12 {
		hash = hash[:12]
	}
	if dirty != "" {
		return hash + "-" + dirty
	}
	return hash
}

func runVersion(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "aide-lsp %s %s/%s\n", buildVersion(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
