// Package greet writes greetings.
package greet

// Greeting greets name.
func Greeting(name string) string {
	return "Hello, " + name
}
