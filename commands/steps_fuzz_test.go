package commands

import "testing"

// FuzzStepOfCall: any tool-call arguments give a step in 0..9999 without
// a panic, and a plain step number is read as itself.
func FuzzStepOfCall(f *testing.F) {
	f.Add(`{"path": "a.go", "step": 2}`)
	f.Add(`{"step": "step 12"}`)
	f.Add(`{"step": -1.5}`)
	f.Add(`[1]`)
	f.Fuzz(func(t *testing.T, args string) {
		n := stepOfCall(args)
		if n < 0 || n > 9999 {
			t.Fatalf("step %d from %q", n, args)
		}
	})
}

func TestStepOfCall(t *testing.T) {
	for args, want := range map[string]int{
		`{"step": 2}`: 2, `{"step": "3"}`: 3, `{"step": "step 4"}`: 4, `{"step": 2.5}`: 0,
		`{"step": 0}`: 0, `{"step": null}`: 0, `{}`: 0, `not json`: 0, `{"step": 1e9}`: 0,
	} {
		if got := stepOfCall(args); got != want {
			t.Errorf("stepOfCall(%s) = %d, want %d", args, got, want)
		}
	}
}
