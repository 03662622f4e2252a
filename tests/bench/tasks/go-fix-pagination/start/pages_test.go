package pages

import "testing"

func TestPages(t *testing.T) {
	cases := []struct{ total, per, want int }{
		{10, 3, 4}, {9, 3, 3}, {0, 3, 0}, {1, 10, 1}, {11, 1, 11}, {5, 0, 0},
	}
	for _, c := range cases {
		if got := Pages(c.total, c.per); got != c.want {
			t.Errorf("Pages(%d, %d) = %d, want %d", c.total, c.per, got, c.want)
		}
	}
}
