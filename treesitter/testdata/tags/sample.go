package shapes

import "math"

// Pi is a constant.
const Pi = 3.14

type Shape interface {
	Area() float64
}

type Circle struct {
	R float64
}

func (c Circle) Area() float64 {
	return math.Pow(c.R, 2) * Pi
}

func NewCircle(r float64) *Circle {
	return &Circle{R: r}
}
