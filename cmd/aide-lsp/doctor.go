package main

import (
	"fmt"
	"io"
)

func runDoctor(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aide-lsp doctor: not available yet")
	return exitFailed
}
