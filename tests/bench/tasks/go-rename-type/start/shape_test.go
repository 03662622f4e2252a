package shapes

import "testing"

func TestRectangle(t *testing.T) {
	r := Rectangle{W: 2, H: 3}
	if r.Area() != 6 {
		t.Fatalf("Area = %g", r.Area())
	}
	if got := Describe(r); got != "2x3 (area 6)" {
		t.Fatalf("Describe = %q", got)
	}
	if got := Largest([]Rectangle{{1, 1}, r, {1, 2}}); got != r {
		t.Fatalf("Largest = %v", got)
	}
}
