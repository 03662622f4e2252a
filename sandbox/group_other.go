//go:build !unix

package sandbox

import "os/exec"

func inOwnGroup(*exec.Cmd) {}

// killGroup kills the command's process; without process groups its
// children may outlive it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
