//go:build !linux

package sandbox

import (
	"context"
	"runtime"
)

func probe() error { return wrapUnavailable("no confinement is built for " + runtime.GOOS) }

func runConfined(context.Context, Spec) error { return probe() }
