package main

import (
	"fmt"
	"io"
)

func runServe(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aide-lsp serve: not available yet")
	return exitFailed
}
