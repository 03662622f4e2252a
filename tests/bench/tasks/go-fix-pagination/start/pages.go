// Package pages splits item counts into pages.
package pages

// Pages returns how many pages of per items are needed to show total items.
func Pages(total, per int) int {
	if per <= 0 || total <= 0 {
		return 0
	}
	return total / per
}
