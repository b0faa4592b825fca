package snapshot

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// This file holds small scanners over JSON text that a json.Decoder has
// already validated: the loader uses them where reflection would cost more
// than the work (an object's apiVersion and kind, the values of a series).
// They never trust that validation for memory safety: every index is
// checked, and anything unexpected makes them give up (ok = false), after
// which the caller uses encoding/json.

// maxExactFloat is the largest integer every float64 below it represents
// exactly (2^53); an integer written as a float must not exceed it.
const maxExactFloat = 1 << 53

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanList calls fn with the text of each element of the JSON list b, in
// order, and returns the first error: b is not a list, an element is not a
// scalar (objects, lists and strings are reported without being scanned),
// fn's error, or more than MaxSeriesSamples elements.
func scanList(b []byte, fn func(i int, elem []byte) *elementError) *elementError {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return &elementError{index: -1, msg: "must be a list"}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for n := 0; i < len(b); n++ {
		if n == MaxSeriesSamples {
			return &elementError{index: -1, msg: fmt.Sprintf("more than %d values", MaxSeriesSamples)}
		}
		j := i
		switch b[i] {
		case '"', '[', '{':
			return &elementError{index: n, msg: describeElement(b[i:])}
		}
		for j < len(b) && b[j] != ',' && b[j] != ']' && !isSpace(b[j]) {
			j++
		}
		if err := fn(n, b[i:j]); err != nil {
			return err
		}
		j = skipSpace(b, j)
		if j >= len(b) || b[j] == ']' {
			return nil
		}
		i = skipSpace(b, j+1) // after ','
	}
	return nil
}

// shown is a value's text for an error message, shortened when long.
func shown(elem []byte) string {
	const max = 32
	if len(elem) > max {
		return string(elem[:max]) + "..."
	}
	return string(elem)
}

// parseCount parses one element of a countList: ok is false for null, msg
// says what is wrong with a bad value. Integers written as floats (1e3,
// 1200.0, as YAML may give them) are accepted when exact.
func parseCount(elem []byte) (v int64, ok bool, msg string) {
	if string(elem) == "null" {
		return 0, false, ""
	}
	if len(elem) == 0 || (elem[0] != '-' && (elem[0] < '0' || elem[0] > '9')) {
		return 0, false, describeElement(elem)
	}
	if v, ok := parseDigits(elem); ok {
		return v, true, ""
	}
	f, err := strconv.ParseFloat(string(elem), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, false, describeElement(elem)
	case elem[0] == '-' && f != 0:
		return 0, false, shown(elem) + " is negative"
	case err != nil || f > maxExactFloat:
		return 0, false, shown(elem) + " is out of range"
	case f != math.Trunc(f):
		return 0, false, shown(elem) + " is not a whole number"
	}
	return int64(f), true, ""
}

// parseDigits parses a plain non-negative decimal integer of up to 18
// digits (no sign, no leading zeros but "0"), which cannot overflow.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parsePercent parses one element of a percentList.
func parsePercent(elem []byte) (v float64, ok bool, msg string) {
	if string(elem) == "null" {
		return 0, false, ""
	}
	if len(elem) == 0 || (elem[0] != '-' && (elem[0] < '0' || elem[0] > '9')) {
		return 0, false, describeElement(elem)
	}
	v, err := strconv.ParseFloat(string(elem), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, false, describeElement(elem)
	case err != nil || v < 0 || v > 100:
		return 0, false, shown(elem) + " is outside [0, 100]"
	}
	return v, true, ""
}

// quickTypeMeta returns the apiVersion and kind of the JSON object b by
// scanning its top-level keys, stopping once both are found (writers put
// them first). ok is false when b needs the full decoder: not an object,
// an escaped key or value, a non-string apiVersion or kind, or one given
// twice before the other.
func quickTypeMeta(b []byte) (apiVersion, kind string, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", "", false
	}
	var haveAPIVersion, haveKind bool
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		key, next, ok := plainString(b, i)
		if !ok {
			return "", "", false
		}
		if i = skipSpace(b, next); i >= len(b) || b[i] != ':' {
			return "", "", false
		}
		i = skipSpace(b, i+1)
		switch string(key) {
		case "kind":
			value, next, ok := plainString(b, i)
			if !ok || haveKind {
				return "", "", false
			}
			kind, haveKind, i = internKind(value), true, next
		case "apiVersion":
			value, next, ok := plainString(b, i)
			if !ok || haveAPIVersion {
				return "", "", false
			}
			apiVersion, haveAPIVersion, i = internAPIVersion(value), true, next
		default:
			if i = skipJSONValue(b, i); i < 0 {
				return "", "", false
			}
		}
		if haveAPIVersion && haveKind {
			return apiVersion, kind, true
		}
		switch i = skipSpace(b, i); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i >= len(b) || b[i] != '}':
			return "", "", false
		}
	}
	return apiVersion, kind, i < len(b)
}

// plainString returns the contents of the JSON string at b[i] when it has no
// escapes, and the index after its closing quote.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			return nil, 0, false
		case '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, 0, false
}

// skipJSONValue returns the index after the JSON value at b[i], or -1.
func skipJSONValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++ // a number, true, false or null
	}
	return i
}

// skipString returns the index after the JSON string at b[i], or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// internKind and internAPIVersion return the common values without
// allocating a string.
func internKind(b []byte) string {
	switch string(b) {
	case "Pod":
		return "Pod"
	case "Node":
		return "Node"
	case NodeUsageSeriesKind:
		return NodeUsageSeriesKind
	case PodUsageSeriesKind:
		return PodUsageSeriesKind
	case "NodeMetrics":
		return "NodeMetrics"
	case "PodMetrics":
		return "PodMetrics"
	case "Namespace":
		return "Namespace"
	case "PodDisruptionBudget":
		return "PodDisruptionBudget"
	case "PriorityClass":
		return "PriorityClass"
	case "PersistentVolumeClaim":
		return "PersistentVolumeClaim"
	}
	return string(b)
}

func internAPIVersion(b []byte) string {
	switch string(b) {
	case "v1":
		return "v1"
	case UsageAPIVersion:
		return UsageAPIVersion
	case "metrics.k8s.io/v1beta1":
		return "metrics.k8s.io/v1beta1"
	case "policy/v1":
		return "policy/v1"
	case "scheduling.k8s.io/v1":
		return "scheduling.k8s.io/v1"
	}
	return string(b)
}

// objectField returns the JSON text of the first field key of the JSON
// object b, or nil (b not an object, no such field, an escaped key).
func objectField(b []byte, key string) []byte {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		k, next, ok := plainString(b, i)
		if !ok {
			return nil
		}
		if i = skipSpace(b, next); i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipSpace(b, i+1)
		end := skipJSONValue(b, i)
		if end < 0 {
			return nil
		}
		if string(k) == key {
			return b[i:end]
		}
		switch i = skipSpace(b, end); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i >= len(b) || b[i] != '}':
			return nil
		}
	}
	return nil
}
