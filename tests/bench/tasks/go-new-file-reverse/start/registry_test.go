package textcmd

import "testing"

func TestReverse(t *testing.T) {
	if got := Reverse("ab"); got != "ba" {
		t.Fatalf("Reverse = %q", got)
	}
	got, ok := Run("reverse", "héllo")
	if !ok || got != "olléh" {
		t.Fatalf("Run(reverse) = %q, %v", got, ok)
	}
	if got, ok := Run("upper", "a"); !ok || got != "A" {
		t.Fatalf("Run(upper) = %q, %v", got, ok)
	}
}
