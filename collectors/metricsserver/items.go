package metricsserver

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// The list reader walks a NodeMetricsList or PodMetricsList on the scanner
// (scan.go) in one pass, reading into one reused item only the keys a
// sample needs and skipping every other value (checking its syntax). Keys
// are compared case-sensitively after unescaping, and each value is read
// the way encoding/json (as sigs.k8s.io/json configures it for the API
// machinery) decodes it into the metrics.k8s.io types:
//
//   - a string field (names) takes a string; null leaves the earlier value
//     of a repeated key; any other value is an error;
//   - timestamp and window are parsed as metav1.Time and metav1.Duration
//     parse them, each occurrence (null is the zero time; a null window is
//     an error, as ParseDuration("") is);
//   - metadata and a container are objects whose repeated keys merge; null
//     leaves them as they are;
//   - usage is a map: null empties it, an object adds to it;
//   - containers is an array decoded element by element into the elements
//     an earlier array of the same item left (item.hw); null and [] start
//     afresh.
//
// A value of the wrong type fails the whole list, as in the typed decode.

// Nesting depths of the values read (arrays and objects around them), for
// skipValue's limit: list object, items array, item object, then metadata,
// containers array, container object and usage objects.
const (
	depthList      = 1
	depthItem      = 3
	depthMetadata  = 4
	depthContainer = 5
)

// listReader reads one list from a scanner.
type listReader struct {
	s *scanner
	// pods selects PodMetrics (metadata.namespace and containers) over
	// NodeMetrics (usage).
	pods    bool
	it      item
	times   timeCache
	windows windowCache
	// str holds the last timestamp or window read.
	str []byte
}

// decodeList reads a list object from r: restart runs at each "items" key
// (a repeated key replaces the earlier items, as in the typed decode), and
// each for each element, read into it. A null list is no items.
func decodeList(r io.Reader, pods bool, restart func(), each func(*item)) error {
	l := listReader{s: newScanner(r), pods: pods}
	s := l.s
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		return s.literal("null")
	case !ok || c != '{':
		return fmt.Errorf("the list: %w", typeError(s, "an object"))
	}
	s.pos++
	more, err := s.first('}')
	return l.members(more, err, func(key []byte) error {
		if string(key) == "items" {
			restart()
			return l.items(each)
		}
		return s.skipValue(depthList)
	})
}

// items reads the items array (or null), calling each for every element.
func (l *listReader) items(each func(*item)) error {
	s := l.s
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		return s.literal("null")
	case !ok || c != '[':
		return fmt.Errorf("items: %w", typeError(s, "an array"))
	}
	s.pos++
	more, err := s.first(']')
	for i := 0; more && err == nil; i++ {
		l.it.reset()
		if err := l.item(); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		each(&l.it)
		more, err = s.next(']')
	}
	return err
}

// item reads one element of items: an object, or null (an empty item).
func (l *listReader) item() error {
	more, err := l.object()
	return l.members(more, err, func(key []byte) error {
		switch {
		case string(key) == "metadata":
			return wrap("metadata", l.metadata())
		case string(key) == "timestamp":
			return wrap("timestamp", l.timestamp())
		case string(key) == "window":
			return wrap("window", l.window())
		case string(key) == "usage" && !l.pods:
			return wrap("usage", l.usage(&l.it.usage))
		case string(key) == "containers" && l.pods:
			return l.containers()
		}
		return l.s.skipValue(depthItem)
	})
}

// object starts reading an object or null: it returns true when there is
// a first member to read, false for null and {}.
func (l *listReader) object() (bool, error) {
	s := l.s
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		return false, s.literal("null")
	case !ok || c != '{':
		return false, typeError(s, "an object")
	}
	s.pos++
	return s.first('}')
}

// metadata reads an item's metadata: name (and namespace for pods).
func (l *listReader) metadata() error {
	more, err := l.object()
	return l.members(more, err, func(key []byte) error {
		switch {
		case string(key) == "name":
			return wrap("name", l.stringValue(&l.it.name))
		case string(key) == "namespace" && l.pods:
			return wrap("namespace", l.stringValue(&l.it.namespace))
		}
		return l.s.skipValue(depthMetadata)
	})
}

// stringValue reads a value decoded into a string field: a string
// replaces *dst (unescaped), null leaves it (encoding/json ignores null
// for a string), anything else is an error.
func (l *listReader) stringValue(dst *[]byte) error {
	s := l.s
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		return s.literal("null")
	case !ok || c != '"':
		return typeError(s, "a string")
	}
	raw, flags, err := s.scanString()
	if err != nil {
		return err
	}
	*dst, err = unquote((*dst)[:0], raw, flags)
	return err
}

// timeOrWindow reads a string (or null) into l.str; null reports false.
func (l *listReader) timeOrWindow() (bool, error) {
	s := l.s
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		l.str = l.str[:0]
		return false, s.literal("null")
	case !ok || c != '"':
		return false, typeError(s, "a string")
	}
	raw, flags, err := s.scanString()
	if err != nil {
		return false, err
	}
	l.str, err = unquote(l.str[:0], raw, flags)
	return true, err
}

// timestamp reads the item's timestamp (null: the zero time).
func (l *listReader) timestamp() error {
	isString, err := l.timeOrWindow()
	switch {
	case err != nil:
		return err
	case !isString:
		l.it.ts = time.Time{}
		return nil
	}
	l.it.ts, err = l.times.parse(l.str)
	return err
}

// window checks the item's window.
func (l *listReader) window() error {
	if _, err := l.timeOrWindow(); err != nil {
		return err
	}
	return l.windows.check(l.str)
}

// containers reads a PodMetrics' containers array (or null).
func (l *listReader) containers() error {
	s, it := l.s, &l.it
	c, ok := s.peek()
	switch {
	case ok && c == 'n':
		it.n, it.hw = 0, 0
		return s.literal("null")
	case !ok || c != '[':
		return fmt.Errorf("containers: %w", typeError(s, "an array"))
	}
	s.pos++
	more, err := s.first(']')
	if !more {
		it.n, it.hw = 0, 0
	}
	for i := 0; more && err == nil; i++ {
		if i >= it.hw {
			if i == len(it.containers) {
				it.containers = append(it.containers, container{})
			}
			it.containers[i].clear()
			it.hw = i + 1
		}
		if err := l.container(&it.containers[i]); err != nil {
			return fmt.Errorf("containers[%d]: %w", i, err)
		}
		if more, err = s.next(']'); !more {
			it.n = i + 1
		}
	}
	return err
}

// container reads one element of containers: an object or null (which
// leaves the element as it is).
func (l *listReader) container(ct *container) error {
	more, err := l.object()
	return l.members(more, err, func(key []byte) error {
		switch string(key) {
		case "name":
			return wrap("name", l.stringValue(&ct.name))
		case "usage":
			return wrap("usage", l.usage(&ct.usage))
		}
		return l.s.skipValue(depthContainer)
	})
}

// usage reads a usage object into u: null empties it; each value must be
// a quantity (a string, a number or null).
func (l *listReader) usage(u *usage) error {
	s := l.s
	c, ok := s.peek()
	if ok && c == 'n' {
		u.clear()
		return s.literal("null")
	}
	more, err := l.object()
	return l.members(more, err, func(key []byte) error {
		c, ok := s.peek()
		if ok && (c == '{' || c == '[') {
			return fmt.Errorf("%q: %w", key, typeError(s, "a quantity"))
		}
		raw, _, err := s.scalar(c)
		if err != nil {
			return err
		}
		q, err := parseQuantity(raw)
		if err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
		u.set(key, raw, q)
		return nil
	})
}

// members reads the members of an object whose opening is read (more:
// whether it has a first member; err: the opening's error), calling member
// with each key while the scanner is at the key's value, which member must
// read.
func (l *listReader) members(more bool, err error, member func(key []byte) error) error {
	s := l.s
	for more && err == nil {
		var key []byte
		if key, err = s.readKey(); err != nil {
			return err
		}
		if err = member(key); err == nil {
			more, err = s.next('}')
		}
	}
	return err
}

// typeError describes a value of the wrong type at the scanner's position.
func typeError(s *scanner, want string) error {
	c, ok := s.peek()
	if !ok {
		return s.syntaxError(s.pos, "looking for a value")
	}
	var got string
	switch {
	case c == '{':
		got = "an object"
	case c == '[':
		got = "an array"
	case c == '"':
		got = "a string"
	case c == 't' || c == 'f':
		got = "a boolean"
	case c == 'n':
		got = "null"
	case c == '-' || c >= '0' && c <= '9':
		got = "a number"
	default:
		return s.syntaxError(s.pos, "looking for a value")
	}
	return fmt.Errorf("want %s, got %s: %w", want, got, errWrongType)
}

// errWrongType marks a value of the wrong type.
var errWrongType = errors.New("wrong JSON type")

// wrap prefixes a non-nil error with the field it is about.
func wrap(field string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", field, err)
}
