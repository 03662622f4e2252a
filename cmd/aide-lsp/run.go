package main

import (
	"fmt"
	"io"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aide-lsp run: not available yet")
	return exitFailed
}
