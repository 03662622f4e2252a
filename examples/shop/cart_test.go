package shop

import "testing"

func TestReceipt(t *testing.T) {
	c := &Cart{}
	c.Add("apple", 50, 3)
	c.Add("pear", 125, 2)
	want := "apple        3 x $0.50\npear         2 x $1.25\ntotal $4.00\n"
	if got := Receipt(c); got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}
