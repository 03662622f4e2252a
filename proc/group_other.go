//go:build !unix

package proc

import "os/exec"

// InOwnGroup does nothing: there are no process groups here.
func InOwnGroup(*exec.Cmd) {}

// KillGroup kills cmd's own process only: on Windows its children may
// outlive it (docs/design.md, "Release").
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
