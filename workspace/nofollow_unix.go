//go:build unix

package workspace

import (
	"errors"
	"syscall"
)

// oNoFollow makes open fail on a symbolic link (ELOOP).
const oNoFollow = syscall.O_NOFOLLOW

func isLinkRefusal(err error) bool { return errors.Is(err, syscall.ELOOP) }
