//go:build !unix

package verify

import "os"

const oNonBlock = 0

// processAlive cannot tell without process groups: Sweep keeps everything.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
