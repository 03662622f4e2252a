//go:build !unix

package verify

import (
	"os"
	"os/exec"
)

const oNonBlock = 0

func inOwnGroup(*exec.Cmd) {}

// killGroup kills the command's process; without process groups its
// children may outlive it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// processAlive cannot tell without process groups: Sweep keeps everything.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
