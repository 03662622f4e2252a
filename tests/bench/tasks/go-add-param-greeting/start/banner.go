package greet

import "strings"

// Banner greets every name, one per line.
func Banner(names []string) string {
	lines := make([]string, 0, len(names))
	for _, n := range names {
		lines = append(lines, Greeting(n))
	}
	return strings.Join(lines, "\n")
}
