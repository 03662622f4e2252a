package calc

// AI: rename the function add to sum
func add(a, b int) int {
	return a + b
}

// Double returns twice x.
func Double(x int) int {
	return add(x, x)
}

// Greeting is printed by the demo.
const Greeting = "hello"
