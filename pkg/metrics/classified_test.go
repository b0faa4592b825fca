package metrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

// TestClassifiedResetsEveryClass: a class reported in one cycle and absent
// from the next reads 0 then, whichever class it is; the usage strategies'
// "unknown-usage" is not one of the three classes every classifying
// strategy reports.
func TestClassifiedResetsEveryClass(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const name = "descheduler_nodes_classified"
	gauge := func(strategy, class string) float64 {
		t.Helper()
		return value(t, scrape(t, reg), name, map[string]string{"strategy": strategy, "class": class})
	}
	// Cycle 1: n1's usage is unknown, n2 is hot.
	m.Classified("p", "LowNodeUtilization", map[string]string{"n1": "unknown-usage", "n2": framework.ClassOverutilized})
	if got := gauge("LowNodeUtilization", "unknown-usage"); got != 1 {
		t.Fatalf("cycle 1: unknown-usage = %v, want 1", got)
	}
	// Cycle 2: n1's usage is back (appropriate); unknown-usage reads 0.
	m.Classified("p", "LowNodeUtilization", map[string]string{"n1": framework.ClassAppropriate, "n2": framework.ClassOverutilized})
	for class, want := range map[string]float64{"unknown-usage": 0, framework.ClassAppropriate: 1,
		framework.ClassOverutilized: 1, framework.ClassUnderutilized: 0} {
		if got := gauge("LowNodeUtilization", class); got != want {
			t.Errorf("cycle 2: %s = %v, want %v", class, got, want)
		}
	}
	// Another strategy's classes are its own: HighNodeUtilization never
	// reported unknown-usage, so it has no such series.
	m.Classified("p", "HighNodeUtilization", map[string]string{"n1": framework.ClassUnderutilized})
	if n := len(scrape(t, reg)[name].GetMetric()); n != 7 {
		t.Errorf("%d series, want 7 (4 classes of LowNodeUtilization, 3 of HighNodeUtilization)", n)
	}
}
