package sandbox

import (
	"context"
	"os/exec"

	"github.com/aide-lsp/aide-lsp/proc"
)

// runLoose runs s as the leader of its own process group and kills the
// group at the end: what an unconfined run can do, which is not enough to
// stop a setsid child (docs/design.md "The sandbox").
func runLoose(ctx context.Context, s Spec) error {
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = append(s.Env[:len(s.Env):len(s.Env)], "PWD="+s.Dir)
	cmd.Stdout, cmd.Stderr = s.Output, s.Output
	proc.InOwnGroup(cmd)
	cmd.Cancel = func() error { return proc.KillGroup(cmd) }
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	_ = proc.KillGroup(cmd)
	return err
}
