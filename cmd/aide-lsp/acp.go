package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/aide-lsp/aide-lsp/acp"
	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// runACP is `aide-lsp acp`: an Agent Client Protocol agent over stdio
// (contract §10), for Zed, the JetBrains IDEs, CodeCompanion, avante.nvim
// and agent-shell.
func runACP(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("acp", "Usage: aide-lsp acp [--log FILE] [--log-level debug|info|warn|error]\n"+
		"Serves the Agent Client Protocol over stdin/stdout; ACP clients start it as an agent.\n")
	logFile := fs.String("log", "", "append the agent's log to `FILE` (default: stderr)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := failer("acp", stderr)
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q; acp takes only flags", fs.Arg(0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fail(exitUsage, "--log-level %q: use debug, info, warn or error", *logLevel)
	}
	var logOut io.Writer = stderr
	if *logFile != "" {
		f, err := workspace.OpenLog(*logFile) // no link followed, regular files only, as serve --log
		if err != nil {
			return fail(exitUsage, "cannot open the log file: %v; check --log", err)
		}
		defer f.Close()
		logOut = f
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app.TuneGC()
	app.ReserveRequestProc() // a P for requests while the index builds
	if err := acp.Serve(ctx, os.Stdin, stdout, acp.Options{Version: buildVersion(), Logger: logger}); err != nil {
		fmt.Fprintf(stderr, "aide-lsp acp: %v\n", err)
		return exitFailed
	}
	return exitOK
}
