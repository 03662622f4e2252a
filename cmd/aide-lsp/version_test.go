package main

import "testing"

func TestShortCommitKeepsTheDirtyMark(t *testing.T) {
	for in, want := range map[string]string{
		"1d9bf52e56f882e05b583429e4aa9f3733bffd0c-dirty": "1d9bf52e56f8-dirty",
		"1d9bf52e56f882e05b583429e4aa9f3733bffd0c":       "1d9bf52e56f8",
		"": "",
	} {
		if got := shortCommit(in); got != want {
			t.Errorf("shortCommit(%q) = %q, want %q", in, got, want)
		}
	}
}
