package greet

import "testing"

func TestGreeting(t *testing.T) {
	if got := Greeting("Ann", "!"); got != "Hello, Ann!" {
		t.Fatalf("Greeting = %q", got)
	}
	if got := Banner([]string{"a", "b"}); got != "Hello, a.\nHello, b." {
		t.Fatalf("Banner = %q", got)
	}
}
