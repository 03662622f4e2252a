package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/aide-lsp/aide-lsp/app"
	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/verify"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// runServe is `aide-lsp serve`: LSP over stdio.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logFile := fs.String("log", "", "append the server log to `FILE` (default: stderr)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	// Language clients add transport flags of their own (vscode-languageclient
	// passes --stdio, and --clientProcessId=N for some transports). stdio is
	// the only transport, so both are accepted and ignored: refusing them
	// would stop the server before the editor ever talks to it. The client's
	// process id is not watched: the client closing stdin ends the server.
	fs.Bool("stdio", true, "serve over stdin/stdout (the only transport; accepted for language clients that pass it)")
	fs.Int("clientProcessId", 0, "the client's process `id` (accepted and ignored; the server exits when stdin closes)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: aide-lsp serve [--stdio] [--log FILE] [--log-level debug|info|warn|error]")
		fmt.Fprintln(stderr, "Serves LSP over stdin/stdout; editors start it as their language server.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "aide-lsp serve: unexpected argument %q; serve takes only flags\n", fs.Arg(0))
		return exitUsage
	}
	// Scratch copies a killed server left behind (verify.Sweep): the
	// running ones remove their own.
	go verify.Sweep()
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "aide-lsp serve: --log-level %q: use debug, info, warn or error\n", *logLevel)
		return exitUsage
	}
	var logOut io.Writer = stderr
	if *logFile != "" {
		f, err := workspace.OpenLog(*logFile) // no link followed, regular files only
		if err != nil {
			fmt.Fprintf(stderr, "aide-lsp serve: cannot open the log file: %v; check --log\n", err)
			return exitUsage
		}
		defer f.Close()
		logOut = f
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	server := lsp.New(serverOptions(logger))
	app.TuneGC()             // process-wide: the collector paced for a language server
	app.ReserveRequestProc() // process-wide: a P for requests while the index builds
	return server.Serve(ctx, stdio{in: pollableStdin(), out: stdout})
}

// pollableStdin returns stdin in non-blocking mode, registered with Go's
// poller, so that closing it after exit interrupts the pending read (a
// blocking read of fd 0 survives Close and would hold the connection open).
func pollableStdin() io.ReadCloser {
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}

// serverOptions is the single place that wires the server to the engine:
// lsp.NewSetup builds, per connection, the workspace from the roots of
// initialize, the configuration layers, the model Router, the tree-sitter
// index and the engine (the end-to-end tests use the same function).
func serverOptions(logger *slog.Logger) lsp.Options {
	return lsp.Options{Version: buildVersion(), Logger: logger, Setup: lsp.NewSetup(lsp.SetupOptions{})}
}

// stdio is stdin and stdout as one io.ReadWriteCloser.
type stdio struct {
	in  io.ReadCloser
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	err := s.in.Close()
	if c, ok := s.out.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
