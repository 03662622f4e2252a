//go:build unix

package bench

import (
	"errors"
	"os/exec"
	"syscall"
)

// inOwnGroup starts the check as the leader of a new process group, so that
// killGroup reaches go test's test binary, node's workers and a shell's
// background children too.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the check's whole process group (the negative pid).
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
