// Package shop is the example repository of the aide-lsp demo.
package shop

import "fmt"

// Item is one line of a cart.
type Item struct {
	Name     string
	Cents    int
	Quantity int
}

// Cart holds items.
type Cart struct {
	Items []Item
}

// AI: add a Total method on Cart that sums Cents*Quantity, and use it in Receipt
func (c *Cart) Add(name string, cents, qty int) {
	c.Items = append(c.Items, Item{Name: name, Cents: cents, Quantity: qty})
}

// Receipt renders the cart for printing.
func Receipt(c *Cart) string {
	s := ""
	sum := 0
	for _, it := range c.Items {
		s += fmt.Sprintf("%-10s %3d x %s\n", it.Name, it.Quantity, money(it.Cents))
		sum += it.Cents * it.Quantity
	}
	return s + "total " + money(sum) + "\n"
}
