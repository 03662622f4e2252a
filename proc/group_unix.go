//go:build unix

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

// InOwnGroup starts cmd as the leader of a new process group, so that
// KillGroup reaches what it starts (a test runner's children, a shell's
// background jobs) unless they leave the group.
func InOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills cmd's whole process group (the negative pid); a group
// already gone is no error.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
