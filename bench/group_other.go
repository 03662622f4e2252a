//go:build !unix

package bench

import "os/exec"

// inOwnGroup does nothing: there are no process groups here.
func inOwnGroup(*exec.Cmd) {}

// killGroup kills the check's own process only: on Windows its children
// (a test binary, a runner's workers) may outlive it, which the bench does
// not prevent there (docs/design.md, "Release").
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
