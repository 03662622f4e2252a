// Package proc holds the few process calls that differ by system: a
// command in its own process group and the group's end (bench checks,
// sandbox.Run's unconfined runs), and the process's CPU time (the
// benchmarks, which on a shared, loaded machine trust it over wall time).
package proc
