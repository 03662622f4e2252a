// Package shapes measures shapes.
package shapes

// Rect is an axis-aligned rectangle.
type Rect struct {
	W, H float64
}

// Area is W times H.
func (r Rect) Area() float64 { return r.W * r.H }
