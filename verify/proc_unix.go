//go:build unix

package verify

import (
	"errors"
	"os/exec"
	"syscall"
)

// oNonBlock makes the open of a FIFO swapped in for a file return at once.
const oNonBlock = syscall.O_NONBLOCK

// inOwnGroup starts the command as the leader of a new process group, so
// that killGroup reaches everything it started (a test binary, a shell's
// background children).
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

// processAlive reports whether pid names a running process (or one of
// another user's, which is not ours to judge).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
