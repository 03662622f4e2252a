package shop

import "fmt"

// money formats cents as dollars.
func money(cents int) string {
	return fmt.Sprintf("$%d.%02d", cents/100, cents%100)
}
