// Package counter counts words.
package counter

// Counter counts how often each word was added.
type Counter struct {
	counts map[string]int
}

// Add counts one more occurrence of word.
func (c *Counter) Add(word string) {
	c.counts[word]++
}

// Count is how often word was added.
func (c *Counter) Count(word string) int {
	return c.counts[word]
}
