package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/aide-lsp/aide-lsp/verify"
)

// The `verify` key (docs/contract.md §3): the commands run on a scratch
// copy before proposals reach the user. A command runs programs on the
// user's machine, so it is the user's choice alone: it is taken from the
// user's own configuration file (and bench --config) or a workspace file
// the user trusted, never from an untrusted workspace file (that is a
// request for trust, reported with what would run), nor from the editor's
// settings, the environment or flags, which a project-local editor
// configuration can supply.

// Bounds of the `verify` list: a few commands, each of a sane size.
const (
	maxVerifyCommands   = 16
	maxVerifyArgs       = 256
	maxVerifyArgBytes   = 4096
	maxVerifyNameBytes  = 64
	MaxVerifyTimeoutSec = 3600
)

// verifyOrigin reports whether a layer of this origin may set `verify`.
func verifyOrigin(o Origin) bool { return o == FromUser || o == FromTrustedWorkspace }

// setVerify is the `verify` case of set.
func (c *Config) setVerify(raw json.RawMessage, origin Origin) string {
	if !verifyOrigin(origin) {
		return "ignored: verification commands are taken only from your own config file (~/.config/aide-lsp/config.json) or a .aide/config.json you trusted (aide-lsp trust)"
	}
	cmds, err := ParseVerify(raw)
	if err != "" {
		return "ignored: " + err
	}
	c.Verify = cmds
	return ""
}

// setVerifyUnconfined is the `verifyUnconfined` case of set: true (every
// command) or a list of command names that may run without the sandbox
// where none can be built (verify.Run). It weakens the user's own
// protection, so only the user's own file may say it: from any other
// layer, a trusted workspace's included, it is ignored.
func (c *Config) setVerifyUnconfined(raw json.RawMessage, origin Origin) string {
	if origin != FromUser {
		return "ignored: only your own config file (~/.config/aide-lsp/config.json) may let verification run without the sandbox"
	}
	var all bool
	if json.Unmarshal(raw, &all) == nil {
		c.VerifyUnconfined = nil
		if all {
			c.VerifyUnconfined = []string{"*"}
		}
		return ""
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil || len(names) > maxVerifyCommands {
		return fmt.Sprintf(`ignored: want true, false or a list of at most %d command names ["build", "vet"]`, maxVerifyCommands)
	}
	c.VerifyUnconfined = names
	return ""
}

// ParseVerify reads a `verify` value: a list of {name, run, timeout}. The
// whole list is refused with the first thing wrong (running part of what
// the user asked for would be a surprise); the message names the entry.
func ParseVerify(raw json.RawMessage) ([]verify.Command, string) {
	const want = `want a list of {"name": "build", "run": ["go", "build", "./..."], "timeout": 120}`
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, ""
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, want
	}
	if len(entries) > maxVerifyCommands {
		return nil, fmt.Sprintf("at most %d commands", maxVerifyCommands)
	}
	out := make([]verify.Command, 0, len(entries))
	seen := map[string]bool{}
	for i, e := range entries {
		var c verify.Command
		d := json.NewDecoder(bytes.NewReader(e))
		d.DisallowUnknownFields()
		if err := d.Decode(&c); err != nil || d.More() {
			return nil, fmt.Sprintf("command %d: %s", i+1, want)
		}
		where := fmt.Sprintf("command %d", i+1)
		if c.Name != "" {
			where = fmt.Sprintf("command %q", c.Name)
		}
		switch {
		case strings.TrimSpace(c.Name) == "":
			return nil, where + ": give it a name (\"name\": \"build\")"
		case len(c.Name) > maxVerifyNameBytes || strings.IndexFunc(c.Name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
			return nil, fmt.Sprintf("%s: a name is at most %d printable characters", where, maxVerifyNameBytes)
		case seen[c.Name]:
			return nil, where + ": two commands have this name"
		case len(c.Run) == 0 || strings.TrimSpace(c.Run[0]) == "":
			return nil, where + `: "run" is the program and its arguments, for example ["go", "build", "./..."]`
		case len(c.Run) > maxVerifyArgs:
			return nil, fmt.Sprintf("%s: at most %d arguments", where, maxVerifyArgs)
		case c.Timeout < 0 || c.Timeout > MaxVerifyTimeoutSec:
			return nil, fmt.Sprintf("%s: \"timeout\" is in seconds, from 1 to %d (default %d)", where, MaxVerifyTimeoutSec, int(verify.DefaultTimeout.Seconds()))
		}
		for _, a := range c.Run {
			if len(a) > maxVerifyArgBytes || strings.ContainsRune(a, 0) {
				return nil, fmt.Sprintf("%s: an argument is at most %d bytes, without NUL", where, maxVerifyArgBytes)
			}
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	return out, ""
}

// describeVerify says, for the trust report, what an untrusted file's
// `verify` would run.
func describeVerify(raw json.RawMessage) string {
	cmds, bad := ParseVerify(raw)
	if bad != "" || len(cmds) == 0 {
		return "verification commands (never run from an untrusted file)"
	}
	parts := make([]string, len(cmds))
	for i, c := range cmds {
		parts[i] = fmt.Sprintf("%s (%s)", c.Name, c.String())
	}
	return "verification commands to run: " + strings.Join(parts, ", ")
}
