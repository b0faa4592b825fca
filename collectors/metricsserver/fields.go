package metricsserver

import (
	"bytes"
	"time"
)

// item is what the list decoders read of one NodeMetrics or PodMetrics,
// reused from item to item (its buffers are kept).
type item struct {
	// name and namespace are metadata.name and metadata.namespace,
	// unescaped (a NodeMetrics has no namespace read).
	name, namespace []byte
	// ts is the timestamp (zero when absent or null).
	ts time.Time
	// usage is a NodeMetrics' usage.
	usage usage
	// containers[:n] are a PodMetrics' containers. containers[:hw] hold
	// what an array of a repeated containers key is decoded into:
	// encoding/json decodes element i into the element already there
	// (without clearing it), and only null and [] start afresh.
	containers []container
	n, hw      int
}

// container is what is read of one ContainerMetrics.
type container struct {
	name  []byte
	usage usage
}

// reset empties the item, keeping its buffers.
func (it *item) reset() {
	it.name, it.namespace = it.name[:0], it.namespace[:0]
	it.ts = time.Time{}
	it.usage.clear()
	it.n, it.hw = 0, 0
}

// clear empties the container, keeping its buffers.
func (c *container) clear() {
	c.name = c.name[:0]
	c.usage.clear()
}

// usage is a container's (or node's) usage object, read like the
// ResourceList map it is: null is no usage, every value must parse as a
// quantity, a repeated key keeps its last value, and a repeated usage key
// of one item adds to the earlier object (encoding/json decodes into the
// map already there).
type usage struct {
	cpu, memory       quantity
	hasCPU, hasMemory bool
	// cpuRaw and memoryRaw are the values as sent, for messages.
	cpuRaw, memoryRaw []byte
}

// clear empties u, keeping its buffers.
func (u *usage) clear() {
	*u = usage{cpuRaw: u.cpuRaw[:0], memoryRaw: u.memoryRaw[:0]}
}

// set records the value raw of the usage key name, already parsed as q;
// keys other than cpu and memory are only checked.
func (u *usage) set(name, raw []byte, q quantity) {
	switch string(name) {
	case "cpu":
		u.cpu, u.hasCPU, u.cpuRaw = q, true, append(u.cpuRaw[:0], raw...)
	case "memory":
		u.memory, u.hasMemory, u.memoryRaw = q, true, append(u.memoryRaw[:0], raw...)
	}
}

// text returns the canonical forms of cpu and memory (Quantity.String).
func (u *usage) text() (cpu, memory string) {
	return quantityText(u.cpuRaw), quantityText(u.memoryRaw)
}

// timeCache remembers the last timestamp parsed: the items of one
// response mostly share a few timestamps (one per scrape of a node).
type timeCache struct {
	raw []byte
	ok  bool
	t   time.Time
}

// parse reads the contents of a timestamp string the way metav1.Time
// does: RFC 3339, in the local time zone.
func (c *timeCache) parse(s []byte) (time.Time, error) {
	if c.ok && bytes.Equal(c.raw, s) {
		return c.t, nil
	}
	t, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return time.Time{}, err
	}
	c.raw, c.ok, c.t = append(c.raw[:0], s...), true, t.Local()
	return c.t, nil
}

// windowCacheSize bounds the windows a windowCache remembers.
const windowCacheSize = 64

// windowCache remembers the windows already checked: metrics-server sends
// a handful of distinct values.
type windowCache struct{ valid map[string]struct{} }

// check validates the contents of a window string the way metav1.Duration
// decodes it (time.ParseDuration; null reads as "", which it rejects).
func (c *windowCache) check(s []byte) error {
	if _, ok := c.valid[string(s)]; ok {
		return nil
	}
	if _, err := time.ParseDuration(string(s)); err != nil {
		return err
	}
	if c.valid == nil {
		c.valid = make(map[string]struct{}, windowCacheSize)
	}
	if len(c.valid) < windowCacheSize {
		c.valid[string(s)] = struct{}{}
	}
	return nil
}
