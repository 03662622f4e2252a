//go:build unix

package workspace

import (
	"errors"
	"syscall"
)

// oNoFollow makes open fail on a symbolic link (ELOOP).
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock makes open return at once on a FIFO with no writer; reads of a
// regular file are not affected.
const oNonBlock = syscall.O_NONBLOCK

func isLinkRefusal(err error) bool { return errors.Is(err, syscall.ELOOP) }
