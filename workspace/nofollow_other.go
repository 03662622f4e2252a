//go:build !unix

package workspace

// Without O_NOFOLLOW the folder check (CheckPrivateDir) and the Lstat of
// ReadRegular are the guard.
const oNoFollow = 0

// oNonBlock: Windows has no FIFOs to block on in a file open.
const oNonBlock = 0

func isLinkRefusal(error) bool { return false }
