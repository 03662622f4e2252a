// Package config reads key=value configuration files.
package config

import "strings"

// ParseCfg reads "key=value" lines into a map; blank lines and lines
// starting with # are skipped.
func ParseCfg(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}
