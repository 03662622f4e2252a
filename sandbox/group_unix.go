//go:build unix

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// inOwnGroup starts the command as the leader of a new process group, so
// that killGroup reaches what it started (unless it left the group).
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's whole process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
