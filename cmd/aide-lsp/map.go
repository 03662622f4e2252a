package main

import (
	"fmt"
	"io"
)

func runMap(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aide-lsp map: not available yet")
	return exitFailed
}
