package markdown

import "testing"

func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Differences from kubernetes-sigs/descheduler":                   "differences-from-kubernetes-sigsdescheduler",
		"`workloadBudget`: never take a workload below its availability": "workloadbudget-never-take-a-workload-below-its-availability",
		"What `make test` needs and changes":                             "what-make-test-needs-and-changes",
		"descheduler simulate":                                           "descheduler-simulate",
		"Logging flags (every command)":                                  "logging-flags-every-command",
		"Upstream's Prometheus query (`MetricResource`)":                 "upstreams-prometheus-query-metricresource",
		"Cycle time: what a cycle works out once":                        "cycle-time-what-a-cycle-works-out-once",
	} {
		if got := Anchor(heading); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}
