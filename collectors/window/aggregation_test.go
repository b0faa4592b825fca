package window

import "testing"

func TestParseAggregation(t *testing.T) {
	valid := []struct {
		in   string
		want Aggregation
	}{
		{"mean", Aggregation{Method: MethodMean}},
		{"ewma", Aggregation{Method: MethodEWMA}},
		{"max", Aggregation{Method: MethodMax}},
		{"p0", Aggregation{Method: MethodQuantile, Percentile: 0}},
		{"p95", Aggregation{Method: MethodQuantile, Percentile: 95}},
		{"p99.9", Aggregation{Method: MethodQuantile, Percentile: 99.9}},
		{"p100", Aggregation{Method: MethodQuantile, Percentile: 100}},
	}
	for _, tc := range valid {
		got, err := ParseAggregation(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseAggregation(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	for _, in := range []string{"", "Mean", "P95", "p", "p101", "p100.1", "p-1", "p+5", "p1e2", "pNaN", "pInf",
		"p95.", "p.5", "median", " p95"} {
		if got, err := ParseAggregation(in); err == nil {
			t.Errorf("ParseAggregation(%q) = %+v, want an error", in, got)
		}
	}
}
