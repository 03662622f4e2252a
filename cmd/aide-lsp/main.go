// Command aide-lsp is the aide-lsp language server and its command line
// (contract §2). This file only dispatches; each subcommand lives in its own
// file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Exit statuses of contract §2.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

type subcommand struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"serve", "LSP over stdio (the default)", runServe},
		{"acp", "Agent Client Protocol agent over stdio (Zed, JetBrains, CodeCompanion, ...)", runACP},
		{"run", "headless architect + editor on a folder; prints plan and diff", runRun},
		{"undo", "put back what a session wrote (the last run --apply by default)", runUndo},
		{"map", "print the repository map the architect would get", runMap},
		{"bench", "measure one call against architect → editor on a task suite", runBench},
		{"doctor", "check configuration, trust, providers, languages and watcher limits", runDoctor},
		{"trust", "trust a workspace's .aide/config.json as it is now (--list, --revoke)", runTrust},
		{"setup", "print (or --write) the Helix set-up: languages.toml and config.toml", runSetup},
		{"version", "print the version", runVersion},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runServe(nil, stdout, stderr)
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return exitOK
	case "--version", "-version":
		return runVersion(nil, stdout, stderr)
	}
	for _, sc := range subcommands() {
		if sc.name == args[0] {
			return sc.run(args[1:], stdout, stderr)
		}
	}
	if len(args[0]) > 0 && args[0][0] == '-' { // flags of the default subcommand
		return runServe(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "aide-lsp: unknown command %q; run 'aide-lsp help' for the list\n", args[0])
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "aide-lsp — architect → editor for every LSP editor")
	fmt.Fprintln(w, "\nUsage: aide-lsp [command] [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, sc := range subcommands() {
		fmt.Fprintf(w, "  %-8s %s\n", sc.name, sc.summary)
	}
	fmt.Fprintln(w, "\nRun 'aide-lsp <command> -h' for a command's flags and examples.")
}

// newFlags makes a subcommand's flag set; -h prints usage, then the flags.
func newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args. done says the caller returns code at once: after
// -h (exit 0, usage on stdout), or after a bad flag (exit 2, one line on
// stderr that names the flag and where to look, not the whole usage).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case err == nil:
		fs.SetOutput(stderr)
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK, true
	default:
		fmt.Fprintf(stderr, "aide-lsp %s: %v (see 'aide-lsp %s -h')\n", fs.Name(), err, fs.Name())
		return exitUsage, true
	}
}

// failer returns a function that prints "aide-lsp NAME: message" on stderr
// (the one clear line of contract §2) and returns the exit code it is given.
func failer(name string, stderr io.Writer) func(code int, format string, a ...any) int {
	return func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "aide-lsp "+name+": "+format+"\n", a...)
		return code
	}
}

// workspaceDir turns --dir into the absolute, symlink-resolved folder every
// subcommand works on, or says why it cannot.
func workspaceDir(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return "", fmt.Errorf("--dir %s: %v", dir, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--dir %s is not a folder", dir)
	}
	return root, nil
}
