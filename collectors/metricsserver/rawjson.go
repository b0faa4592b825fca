package metricsserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// rawValue keeps the bytes of one JSON value of an item, reusing its
// buffer from item to item, so reading a field allocates nothing until
// it is converted.
type rawValue struct{ b []byte }

// UnmarshalJSON keeps data.
func (r *rawValue) UnmarshalJSON(data []byte) error {
	r.b = append(r.b[:0], data...)
	return nil
}

// reset forgets the value (an absent field reads as null).
func (r *rawValue) reset() { r.b = r.b[:0] }

// null reports whether the value is absent or null.
func (r *rawValue) null() bool { return len(r.b) == 0 || string(r.b) == "null" }

// stringBytes returns the contents of a JSON string without copying when it
// has no escapes; ok is false when it has some (unquote those).
func (r *rawValue) stringBytes() (b []byte, ok bool) {
	if len(r.b) >= 2 && r.b[0] == '"' && r.b[len(r.b)-1] == '"' && bytes.IndexByte(r.b, '\\') < 0 {
		return r.b[1 : len(r.b)-1], true
	}
	return nil, false
}

// str converts a JSON string (null and absent: "") as encoding/json
// decodes it into a string field; anything else is an error.
func (r *rawValue) str() (string, error) {
	if r.null() {
		return "", nil
	}
	if b, ok := r.stringBytes(); ok {
		return string(b), nil
	}
	var s string
	if err := json.Unmarshal(r.b, &s); err != nil {
		return "", err
	}
	return s, nil
}

// checkString returns the error str would, without allocating for a
// string without escapes.
func (r *rawValue) checkString() error {
	if _, ok := r.stringBytes(); ok || r.null() {
		return nil
	}
	_, err := r.str()
	return err
}

// timeCache remembers the last timestamp parsed: the items of one
// response mostly share a few timestamps (one per scrape of a node).
type timeCache struct {
	raw []byte
	t   time.Time
}

// parse reads a timestamp the way metav1.Time does: null (or absent) is the
// zero time, else an RFC 3339 string, in the local time zone.
func (c *timeCache) parse(r *rawValue) (time.Time, error) {
	if r.null() {
		return time.Time{}, nil
	}
	if c.raw != nil && bytes.Equal(c.raw, r.b) {
		return c.t, nil
	}
	s, err := r.str()
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	c.raw, c.t = append(c.raw[:0], r.b...), t.Local()
	return c.t, nil
}

// checkDuration validates a `window` the way metav1.Duration decodes it:
// null, or a string time.ParseDuration accepts.
func checkDuration(r *rawValue) error {
	if r.null() {
		return nil
	}
	s, err := r.str()
	if err != nil {
		return err
	}
	_, err = time.ParseDuration(s)
	return err
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

// text returns the canonical forms of cpu and memory (Quantity.String).
func (u *usage) text() (cpu, memory string) {
	return quantityText(u.cpuRaw), quantityText(u.memoryRaw)
}

var errNotObject = errors.New("usage is not a JSON object")

// UnmarshalJSON reads the object; encoding/json has already checked that
// data is valid JSON.
func (u *usage) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		u.clear()
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return errNotObject
	}
	for i := 1; ; {
		i = skipSpace(data, i)
		switch data[i] {
		case '}':
			return nil
		case ',':
			i++
			continue
		}
		keyEnd := stringEnd(data, i)
		key := rawValue{b: data[i:keyEnd]}
		i = skipSpace(data, skipSpace(data, keyEnd)+1) // past the colon
		raw := data[i:valueEnd(data, i)]
		i += len(raw)
		name, ok := key.stringBytes()
		if !ok {
			s, err := key.str()
			if err != nil {
				return err
			}
			name = []byte(s)
		}
		q, err := parseQuantity(raw)
		if err != nil {
			return fmt.Errorf("usage %q: %w", name, err)
		}
		switch string(name) {
		case "cpu":
			u.cpu, u.hasCPU, u.cpuRaw = q, true, append(u.cpuRaw[:0], raw...)
		case "memory":
			u.memory, u.hasMemory, u.memoryRaw = q, true, append(u.memoryRaw[:0], raw...)
		}
	}
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at i.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// valueEnd returns the index after the JSON value starting at i.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = stringEnd(data, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	}
	j := i
	for j < len(data) && strings.IndexByte(",}] \t\n\r", data[j]) < 0 {
		j++
	}
	return j
}
