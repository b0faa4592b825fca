package prometheus

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/collectors"
)

// TestResultErrors: a bad query or bad series is reported; everything else
// in the poll is still stored.
func TestResultErrors(t *testing.T) {
	node := func(instance, v string) value { return value{map[string]string{"instance": instance}, v} }
	override := func(query string, vals ...value) func(string, time.Time) []value {
		return func(q string, at time.Time) []value {
			if q == query {
				return vals
			}
			return cluster(q, at)
		}
	}
	tests := []struct {
		name  string
		eval  func(string, time.Time) []value
		raw   map[string][2]string
		query string // upstream query, instead of the usage queries
		want  string
		// stored are the nodes that still get samples (n1, n2 otherwise).
		stored []string
	}{
		{
			name: "error response",
			raw: map[string][2]string{collectors.DefaultNodeCPUQuery: {"400",
				`{"status":"error","errorType":"bad_data","error":"1:12: parse error: unexpected \")\""}`}},
			want: `query nodeCPU: bad_data: 1:12: parse error: unexpected ")"`, // no node CPU at all
		},
		{
			name: "scalar result",
			raw: map[string][2]string{collectors.DefaultNodeMemoryQuery: {"200",
				`{"status":"success","data":{"resultType":"scalar","result":[1735732800,"1"]}}`}},
			want: "query nodeMemory: result of type scalar, want a vector or matrix",
		},
		{
			name:   "missing node label",
			eval:   override(collectors.DefaultNodeCPUQuery, value{map[string]string{"job": "node"}, "1"}, node("n2:9100", "1")),
			want:   `skipped 1 item: query nodeCPU: series {job="node"} has no label instance`,
			stored: []string{"n2"},
		},
		{
			name:   "missing pod label",
			eval:   override(collectors.DefaultPodCPUQuery, value{map[string]string{"pod": "web-1"}, "1"}),
			want:   `skipped 1 item: query podCPU: series {pod="web-1"} lacks label namespace or pod`,
			stored: []string{"n1", "n2"},
		},
		{
			name:   "NaN",
			eval:   override(collectors.DefaultNodeCPUQuery, node("n1:9100", "NaN"), node("n2:9100", "1")),
			want:   "skipped 1 item: node n1: cpu is NaN",
			stored: []string{"n2"},
		},
		{
			name:   "infinite",
			eval:   override(collectors.DefaultNodeCPUQuery, node("n1:9100", "+Inf"), node("n2:9100", "1")),
			want:   "skipped 1 item: node n1: cpu is +Inf",
			stored: []string{"n2"},
		},
		{
			name:   "negative usage",
			eval:   override(collectors.DefaultNodeMemoryQuery, node("n1:9100", "-5"), node("n2:9100", "1")),
			want:   "skipped 1 item: node n1: memory is negative (-5)",
			stored: []string{"n2"},
		},
		{
			name: "two series for one node",
			eval: override(collectors.DefaultNodeMemoryQuery, value{map[string]string{"instance": "n1:9100", "job": "a"}, "1"},
				value{map[string]string{"instance": "n1:9100", "job": "b"}, "1"}, node("n2:9100", "1")),
			// The first series is kept.
			want:   "skipped 1 item: query nodeMemory: more than one series for node n1 (aggregate by instance)",
			stored: []string{"n1", "n2"},
		},
		{
			name:  "upstream value out of range",
			query: "q",
			eval: func(string, time.Time) []value {
				return []value{node("n1", "1.2"), node("n2", "0.5"), node("n3", "NaN")}
			},
			want:   "skipped 2 items: query: node n1: value 1.2 is not between 0 and 1; query: node n3: value NaN is not between 0 and 1",
			stored: []string{"n2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := defaultQueries()
			if tc.query != "" {
				q = collectors.PrometheusQueries{Query: tc.query, NodeLabel: "instance"}
			}
			h := newHarness(t, Connection{}, q)
			if tc.eval != nil {
				h.prom.eval = tc.eval
			}
			if tc.raw != nil {
				h.prom.raw = tc.raw
			}
			err := h.poll(t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if h.c.Status().LastError != err {
				t.Fatalf("status %+v", h.c.Status())
			}
			for _, n := range []string{"n1", "n2", "n3"} {
				stored := len(h.c.NodeSeries(n)) > 0
				if tc.query != "" {
					stored = len(h.c.NodeResourcePercent(n)) > 0
				}
				if want := slices.Contains(tc.stored, n); stored != want {
					t.Errorf("node %s stored: %v, want %v", n, stored, want)
				}
			}
		})
	}
}
