package calc

func sum(a, b int) int {
	return a + b
}

// Double returns twice x.
func Double(x int) int {
	return sum(x, x)
}

// Greeting is shown by the demo.
const Greeting = "hi"
