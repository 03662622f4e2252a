// Package textcmd runs named text commands.
package textcmd

import "strings"

// Commands maps a command name to what it does to its input.
var Commands = map[string]func(string) string{
	"upper": strings.ToUpper,
	"lower": strings.ToLower,
}

// Run applies the named command to input; ok is false for an unknown name.
func Run(name, input string) (out string, ok bool) {
	f, ok := Commands[name]
	if !ok {
		return "", false
	}
	return f(input), true
}
