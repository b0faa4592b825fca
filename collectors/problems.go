package collectors

import (
	"fmt"
	"strings"
)

// maxShownProblems is how many skipped items an error names.
const maxShownProblems = 3

// Problems collects the items of one poll that were skipped (a missing
// label, NaN, a value out of range) so the poll can store the good items and
// still report the bad ones in one error. The zero value is ready to use.
type Problems struct {
	count int
	shown []string
}

// Addf records a skipped item, described as a printf message.
func (p *Problems) Addf(format string, args ...any) {
	p.count++
	if len(p.shown) < maxShownProblems {
		p.shown = append(p.shown, fmt.Sprintf(format, args...))
	}
}

// Len returns the number of skipped items.
func (p *Problems) Len() int { return p.count }

// Err returns nil when nothing was skipped, else an error naming the first
// few items: `skipped 5 items: a; b; c; and 2 more`.
func (p *Problems) Err() error {
	if p.count == 0 {
		return nil
	}
	msg := strings.Join(p.shown, "; ")
	if more := p.count - len(p.shown); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	noun := "items"
	if p.count == 1 {
		noun = "item"
	}
	return fmt.Errorf("skipped %d %s: %s", p.count, noun, msg)
}
