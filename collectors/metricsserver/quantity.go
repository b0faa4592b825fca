package metricsserver

import (
	"bytes"
	"math"
	"math/bits"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// quantity is one usage value as it appears in a metrics.k8s.io response
// (`"250m"`, `"2097152Ki"`, `null`, or a bare number), read the way
// resource.Quantity's UnmarshalJSON reads it: null is zero, surrounding
// quotes are dropped (escapes are not interpreted), spaces are trimmed and
// the rest must parse as a quantity.
type quantity struct {
	// milli is the value in thousandths, rounded up (Quantity.MilliValue).
	milli int64
	// value is the value rounded up to an integer (Quantity.Value).
	value int64
	// negative is set for a value below zero (Quantity.Sign() < 0).
	negative bool
}

// quantityText returns the canonical form (Quantity.String) of a raw
// value that parseQuantity accepted; empty (absent) and null are "0".
func quantityText(raw []byte) string {
	var q resource.Quantity
	if len(raw) > 0 {
		_ = q.UnmarshalJSON(raw)
	}
	return q.String()
}

// decimalExponent is the power of ten of each decimal suffix.
var decimalExponent = [256]int8{'n': -9, 'u': -6, 'm': -3, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18}

// parseQuantity reads one usage value from its raw JSON bytes. Plain
// digits with a common suffix are converted without allocating; anything
// else (signs, fractions, exponents, values near the int64 range) goes
// through resource.ParseQuantity, so the result always equals the
// Quantity's own.
func parseQuantity(raw []byte) (quantity, error) {
	if string(raw) == "null" {
		return quantity{}, nil
	}
	s := raw
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	s = bytes.TrimSpace(s)
	if q, ok := fastQuantity(s); ok {
		return q, nil
	}
	parsed, err := resource.ParseQuantity(string(s))
	if err != nil {
		return quantity{}, err
	}
	return quantity{milli: parsed.MilliValue(), value: parsed.Value(), negative: parsed.Sign() < 0}, nil
}

// fastQuantity converts digits followed by an optional suffix (n u m "" k
// M G T P E, Ki Mi Gi Ti Pi Ei) when both results fit in an int64 with
// room; ok is false for every other form.
func fastQuantity(s []byte) (quantity, bool) {
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits > 15 {
		return quantity{}, false
	}
	var n uint64
	for _, c := range s[:digits] {
		n = n*10 + uint64(c-'0')
	}
	switch suffix := s[digits:]; {
	case len(suffix) == 0:
		return scaledDecimal(n, 0)
	case len(suffix) == 1 && decimalExponent[suffix[0]] != 0:
		return scaledDecimal(n, int(decimalExponent[suffix[0]]))
	case len(suffix) == 2 && suffix[1] == 'i':
		shift := strings.IndexByte("KMGTPE", suffix[0])
		if shift < 0 {
			return quantity{}, false
		}
		hi, v := bits.Mul64(n, 1<<(10*(shift+1)))
		if hi != 0 || v > math.MaxInt64/1000 {
			return quantity{}, false
		}
		return quantity{milli: int64(v) * 1000, value: int64(v)}, true
	}
	return quantity{}, false
}

// scaledDecimal returns n·10^exp as milli and whole values, rounded up.
func scaledDecimal(n uint64, exp int) (quantity, bool) {
	milli, ok := scale10(n, exp+3)
	if !ok {
		return quantity{}, false
	}
	value, ok := scale10(n, exp)
	if !ok {
		return quantity{}, false
	}
	return quantity{milli: milli, value: value}, true
}

// scale10 returns n·10^exp rounded up, and false if it exceeds int64.
func scale10(n uint64, exp int) (int64, bool) {
	for ; exp > 0; exp-- {
		if n > math.MaxInt64/10 {
			return 0, false
		}
		n *= 10
	}
	for ; exp < 0 && n > 0; exp++ {
		n = (n + 9) / 10
	}
	return int64(n), true
}
