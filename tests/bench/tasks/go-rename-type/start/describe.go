package shapes

import "fmt"

// Describe says how big r is.
func Describe(r Rect) string {
	return fmt.Sprintf("%gx%g (area %g)", r.W, r.H, r.Area())
}

// Largest returns the rectangle with the largest area.
func Largest(rs []Rect) Rect {
	var best Rect
	for _, r := range rs {
		if r.Area() > best.Area() {
			best = r
		}
	}
	return best
}
