package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
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
	if len(c) > 12 {
		c = c[:12]
	}
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
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev + dirty
}

func runVersion(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "aide-lsp %s %s/%s\n", buildVersion(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
