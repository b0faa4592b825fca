package window

import (
	"fmt"
	"strconv"
	"strings"
)

// Method is how the samples of a window are reduced to one value.
type Method int

// The aggregation methods.
const (
	// MethodMean is the arithmetic mean of the samples.
	MethodMean Method = iota
	// MethodEWMA is the mean weighted by sample age with a half-life:
	// w = 2^(−age ÷ halfLife).
	MethodEWMA
	// MethodMax is the largest sample.
	MethodMax
	// MethodQuantile is the empirical quantile Aggregation.Percentile.
	MethodQuantile
)

// Aggregation is a parsed aggregation; the zero value is the mean.
type Aggregation struct {
	Method Method
	// Percentile, between 0 and 100, is the quantile of MethodQuantile.
	Percentile float64
}

// AggregationHelp describes the accepted aggregation strings.
const AggregationHelp = `must be "mean", "ewma", "max" or "pNN" with NN between 0 and 100 (e.g. "p95", "p99.9")`

// ParseAggregation parses "mean", "ewma", "max" or "pNN", where NN is a
// decimal number between 0 and 100 ("p50", "p95", "p99.9"; "p100" equals
// "max"). Case matters, as for every other policy value.
func ParseAggregation(s string) (Aggregation, error) {
	switch s {
	case "mean":
		return Aggregation{Method: MethodMean}, nil
	case "ewma":
		return Aggregation{Method: MethodEWMA}, nil
	case "max":
		return Aggregation{Method: MethodMax}, nil
	}
	num, ok := strings.CutPrefix(s, "p")
	if !ok || !isDecimal(num) {
		return Aggregation{}, fmt.Errorf("aggregation %q: %s", s, AggregationHelp)
	}
	p, err := strconv.ParseFloat(num, 64)
	if err != nil || p > 100 {
		return Aggregation{}, fmt.Errorf("aggregation %q: %s", s, AggregationHelp)
	}
	return Aggregation{Method: MethodQuantile, Percentile: p}, nil
}

// isDecimal reports whether s is digits with at most one dot between
// digits ("95", "99.9"), which rules out signs, exponents, "NaN" and "Inf".
func isDecimal(s string) bool {
	intPart, frac, hasDot := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasDot || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// String returns the policy spelling of a.
func (a Aggregation) String() string {
	switch a.Method {
	case MethodEWMA:
		return "ewma"
	case MethodMax:
		return "max"
	case MethodQuantile:
		return "p" + strconv.FormatFloat(a.Percentile, 'f', -1, 64)
	default:
		return "mean"
	}
}
