package highnodeutilization

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

const gi = int64(1) << 30

func planArgs(t *testing.T, args *Args, snap *snapshot.Snapshot) ([]string, []string) {
	t.Helper()
	args.Default()
	if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
		t.Fatalf("invalid args: %v", errs)
	}
	s, err := New(args, framework.Deps{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cands, err := s.Plan(context.Background(), snap, &nodeutiltest.Evictor{})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	var reasons []string
	for _, c := range cands {
		reasons = append(reasons, c.Reason)
	}
	return nodeutiltest.Names(cands), reasons
}

// (8) Every node requests 4 x 500m = 2000m = 50% > threshold 30%. n1 uses
// 400m = 10% <= 30%; n2 and n3 use 2400m = 60%. Pods use 100m each.
func hnuUsageSnapshot(t *testing.T) *snapshot.Snapshot {
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}}
	var pods []*v1.Pod
	for _, n := range []string{"n1", "n2", "n3"} {
		pods = append(pods, loaded(n, 4, "500m")...)
		m.Nodes[n] = nodeutiltest.Flat(nodeutiltest.Now, 2400, gi)
	}
	m.Nodes["n1"] = nodeutiltest.Flat(nodeutiltest.Now, 400, gi)
	return nodeutiltest.UsageSnapshot(t, nodes("n1", "n2", "n3"), pods, m, nil)
}

func TestPlanByUsage(t *testing.T) {
	args := func(src api.MetricsSource, mode nu.ClassificationMode) *Args {
		return &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 30},
			MetricsUtilization: nodeutiltest.MetricsSource(src), Classification: mode}
	}
	tests := []struct {
		name        string
		args        *Args
		want        []string
		wantReasons []string
	}{{
		// Requests: every node at 50% > 30%: no source.
		name: "Requests: nothing is under threshold",
		args: args(api.SourceRequests, ""),
	}, {
		// Both: n1 is under by usage but not by requests (50%): no source.
		name: "Both: under in both views required",
		args: args(api.SourceKubernetesMetrics, nu.ClassifyBoth),
	}, {
		// Usage: n1 (10%) is drained onto n2 and n3, which have
		// 2 x (4000 - 2000) = 4000m of request room and 2 x 1600m of usage
		// headroom; the 4 pods use their 500m requests (no pod series):
		// 2000m of each. n1's usage 400m - 500m per pod goes below zero,
		// still <= threshold.
		name: "Usage: drains the node idle by usage",
		args: args(api.SourceKubernetesMetrics, nu.ClassifyUsage),
		want: []string{"ns/n1-1", "ns/n1-2", "ns/n1-3", "ns/n1-4"},
		wantReasons: []string{
			"node n1 cpu usage 10% <= threshold 30%; pod uses 500m (its requests: no fresh usage)",
			"node n1 cpu usage 0% <= threshold 30%; pod uses 500m (its requests: no fresh usage)",
			"node n1 cpu usage 0% <= threshold 30%; pod uses 500m (its requests: no fresh usage)",
			"node n1 cpu usage 0% <= threshold 30%; pod uses 500m (its requests: no fresh usage)",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reasons := planArgs(t, tc.args, hnuUsageSnapshot(t))
			if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted:\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantReasons != nil && !reflect.DeepEqual(reasons, tc.wantReasons) {
				t.Errorf("reasons:\n got %q\nwant %q", reasons, tc.wantReasons)
			}
		})
	}
}

// (8) All under 50%: n1 1 x 400m = 10%, n2 2 x 400m = 20%, n3 4 x 400m =
// 40%. Compact, emptiest first: n1 (400m) fits into n2 + n3's free
// 3200 + 2400m; n1 + n2 (1200m) fit into n3's 2400m; at least one
// destination stays: sources n1, n2, destination n3. n3's 2400m takes all
// three pods (1200m).
func TestCompactWhenAllUnderutilized(t *testing.T) {
	pods := concat(loaded("n1", 1, "400m"), loaded("n2", 2, "400m"), loaded("n3", 4, "400m"))
	for _, compact := range []bool{false, true} {
		args := &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 50}, CompactWhenAllUnderutilized: compact}
		got, reasons := planArgs(t, args, nodeutiltest.Snapshot(t, nodes("n1", "n2", "n3"), pods))
		if !compact {
			if len(got) != 0 {
				t.Errorf("compact off: evicted %v, want nothing (all nodes underutilized)", got)
			}
			continue
		}
		if want := []string{"ns/n1-1", "ns/n2-1", "ns/n2-2"}; !reflect.DeepEqual(got, want) {
			t.Errorf("compact: evicted %v, want %v", got, want)
		}
		if want := "node n1 cpu 10% <= threshold 50% (requests)"; len(reasons) == 0 || reasons[0] != want {
			t.Errorf("compact: reasons %q, want first %q", reasons, want)
		}
	}
}

func TestUsageArgs(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantMode nu.ClassificationMode
		wantErrs []string
	}{
		{name: "Requests source defaults to Requests", yaml: `{thresholds: {cpu: 20}}`, wantMode: nu.ClassifyRequests},
		{name: "metrics source defaults to Both",
			yaml: `{thresholds: {cpu: 20}, metricsUtilization: {source: KubernetesMetrics}}`, wantMode: nu.ClassifyBoth},
		{name: "Usage with Prometheus, compact on",
			yaml:     `{thresholds: {cpu: 20}, metricsUtilization: {source: Prometheus}, classification: Usage, compactWhenAllUnderutilized: true}`,
			wantMode: nu.ClassifyUsage},
		{name: "Usage needs a metrics source", yaml: `{thresholds: {cpu: 20}, classification: Usage}`,
			wantMode: nu.ClassifyUsage,
			wantErrs: []string{`args.classification: Invalid value: "Usage": must be Requests when metricsUtilization.source is Requests (there is no usage to classify by)`}},
		{name: "unknown classification", yaml: `{thresholds: {cpu: 20}, metricsUtilization: {source: Prometheus}, classification: usage}`,
			wantMode: "usage",
			wantErrs: []string{`args.classification: Unsupported value: "usage": supported values: "Requests", "Usage", "Both"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			if a.Classification != tc.wantMode {
				t.Errorf("classification %q, want %q", a.Classification, tc.wantMode)
			}
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.wantErrs) {
				t.Errorf("errors %q, want %q", got, tc.wantErrs)
			}
		})
	}
}
