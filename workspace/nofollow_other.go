//go:build !unix

package workspace

// Without O_NOFOLLOW the folder check (CheckPrivateDir) is the guard.
const oNoFollow = 0

func isLinkRefusal(error) bool { return false }
