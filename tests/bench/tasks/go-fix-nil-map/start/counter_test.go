package counter

import "testing"

func TestZeroCounter(t *testing.T) {
	var c Counter
	if got := c.Count("go"); got != 0 {
		t.Fatalf("Count on a zero Counter = %d, want 0", got)
	}
	c.Add("go")
	c.Add("go")
	c.Add("py")
	if got := c.Count("go"); got != 2 {
		t.Fatalf("Count(go) = %d, want 2", got)
	}
	if got := c.Count("py"); got != 1 {
		t.Fatalf("Count(py) = %d, want 1", got)
	}
}
