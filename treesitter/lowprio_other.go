//go:build !linux

package treesitter

// lowerPriority does nothing where threads have no nice value of their own.
func lowerPriority() {}
