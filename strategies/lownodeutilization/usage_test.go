package lownodeutilization

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

const gi = int64(1) << 30

// The usage scenarios: four nodes of 4000m and 8Gi. Every node requests
// 4 x 500m = 2000m = 50% (requests balanced). Thresholds: cpu <= 60% is
// underutilized, > 80% (3200m) overutilized; memory and pods 100.
func usageArgs(source api.MetricsSource, mode nu.ClassificationMode) *Args {
	return &Args{
		Thresholds:         nu.Thresholds{v1.ResourceCPU: 60},
		TargetThresholds:   nu.Thresholds{v1.ResourceCPU: 80},
		MetricsUtilization: nodeutiltest.MetricsSource(source),
		Classification:     mode,
	}
}

// usageScenario: n1 uses 3800m (95%); its pods a, b, c, d use 500m, 800m,
// 1000m, 1500m. n2..n4 use 1000m (25%) and request nodeReq each.
type usageScenario struct {
	nodeReq   string // cpu request of each of the 4 pods on n2..n4
	n1        snapshot.Series
	podSeries bool // n1's pods have usage series
	staleAll  bool // every node's samples end 10m ago
	history   *snapshot.History
}

func (s usageScenario) build(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	names := []string{"n1", "n2", "n3", "n4"}
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}, Pods: map[types.NamespacedName]snapshot.Series{}}
	end := nodeutiltest.Now
	if s.staleAll {
		end = end.Add(-10 * time.Minute)
	}
	var pods []*v1.Pod
	for i, n := range names {
		req := s.nodeReq
		if i == 0 {
			req = "500m"
		}
		for j, suffix := range []string{"a", "b", "c", "d"} {
			pods = append(pods, pod("ns", n+"-"+suffix, n, req).Obj())
			if i == 0 && s.podSeries {
				m.Pods[nodeutiltest.PodKey("ns", n+"-"+suffix)] = nodeutiltest.Flat(end, []int64{500, 800, 1000, 1500}[j], gi/8)
			}
		}
		m.Nodes[n] = nodeutiltest.Flat(end, 1000, gi)
	}
	m.Nodes["n1"] = s.n1
	if s.n1 == nil {
		m.Nodes["n1"] = nodeutiltest.Flat(end, 3800, gi)
	}
	return nodeutiltest.UsageSnapshot(t, nodes(names...), pods, m, s.history)
}

func planUsage(t *testing.T, args *Args, snap *snapshot.Snapshot) ([]string, []string) {
	t.Helper()
	s := mustNew(t, args)
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

func TestPlanUsage(t *testing.T) {
	tests := []struct {
		name        string
		args        *Args
		scenario    usageScenario
		want        []string
		wantReasons []string
	}{{
		// (1) Requests: every node 2000m = 50% <= 60%: all underutilized,
		// none over: nothing.
		name:     "requests balanced, source Requests: nothing",
		args:     usageArgs(api.SourceRequests, ""),
		scenario: usageScenario{nodeReq: "500m", podSeries: true},
	}, {
		// (1) Both: n1 95% > 80% by usage: source. n2..n4 50% requests and
		// 25% usage, under 60% in both: destinations. 3800 - 3200 = 600m to
		// move: d (1500m, most relief among equal priority and QoS) alone
		// brings n1 to 2300m = 57.5%. One eviction, from n1 only.
		name:        "requests balanced, one node hot by usage: the minimum from the hot node",
		args:        usageArgs(api.SourceKubernetesMetrics, ""),
		scenario:    usageScenario{nodeReq: "500m", podSeries: true},
		want:        []string{"ns/n1-d"},
		wantReasons: []string{"node n1 cpu usage 95% > target 80% for 5m; pod uses 1500m"},
	}, {
		// (3) every series ends 10m ago > maxStaleness 2m: no node has
		// usable usage, the cycle is skipped.
		name:     "stale samples everywhere: nothing",
		args:     usageArgs(api.SourceKubernetesMetrics, ""),
		scenario: usageScenario{nodeReq: "500m", podSeries: true, staleAll: true},
	}, {
		// (3) n1's samples end 10m ago: n1 is unknown-usage, neither source
		// nor destination; no other node is over.
		name: "stale hot node: nothing",
		args: usageArgs(api.SourceKubernetesMetrics, ""),
		scenario: usageScenario{nodeReq: "500m", podSeries: true,
			n1: nodeutiltest.Flat(nodeutiltest.Now.Add(-10*time.Minute), 3800, gi)},
	}, {
		// (4) n1's pods have no series: each counts its 500m requests.
		// 3800 -> 3300m (82.5% > 80) -> 2800m (70%): two evictions, by name.
		name:     "missing pod usage falls back to requests",
		args:     usageArgs(api.SourceKubernetesMetrics, ""),
		scenario: usageScenario{nodeReq: "500m"},
		want:     []string{"ns/n1-a", "ns/n1-b"},
		wantReasons: []string{"node n1 cpu usage 95% > target 80% for 5m; pod uses 500m (its requests: no fresh usage)",
			"node n1 cpu usage 82.5% > target 80% for 5m; pod uses 500m (its requests: no fresh usage)"},
	}, {
		// (2) n1 alternates 3500m (87.5%) / 3000m (75%), 3500m newest: the
		// mean (11 x 3500 + 10 x 3000) / 21 = 3262m = 81.6% is over 80%,
		// but the run of samples over target is only the newest one (0s <
		// overFor 5m - 15s): never a source.
		name: "usage flapping around target: nothing",
		args: usageArgs(api.SourceKubernetesMetrics, ""),
		scenario: usageScenario{nodeReq: "500m", podSeries: true,
			n1: nodeutiltest.Alternating(nodeutiltest.Now, 3500, 3000, gi)},
	}, {
		// (2) control: the same flapping with overFor 0 is a source by its
		// 81.6% mean; d (1500m) brings it to 1762m = 44%.
		name: "flapping without overFor: evicts",
		args: func() *Args {
			a := usageArgs(api.SourceKubernetesMetrics, "")
			a.Hysteresis = &nu.Hysteresis{OverFor: &metav1.Duration{}}
			return a
		}(),
		scenario: usageScenario{nodeReq: "500m", podSeries: true,
			n1: nodeutiltest.Alternating(nodeutiltest.Now, 3500, 3000, gi)},
		want:        []string{"ns/n1-d"},
		wantReasons: []string{"node n1 cpu usage 81.6% > target 80%; pod uses 1500m"},
	}, {
		// (9) n2..n4 request 4 x 700m = 2800m = 70% > 60%: under by usage
		// only. Both: no destination, nothing.
		name:     "Both: destinations must be under in requests too",
		args:     usageArgs(api.SourcePrometheus, nu.ClassifyBoth),
		scenario: usageScenario{nodeReq: "700m", podSeries: true},
	}, {
		// (9) Usage: n2..n4 (25% usage) are destinations; n2 has
		// 4000 - 2800 = 1200m of request room >= 500m: d moves as in (1).
		name:        "Usage: destinations by usage with request room",
		args:        usageArgs(api.SourcePrometheus, nu.ClassifyUsage),
		scenario:    usageScenario{nodeReq: "700m", podSeries: true},
		want:        []string{"ns/n1-d"},
		wantReasons: []string{"node n1 cpu usage 95% > target 80% for 5m; pod uses 1500m"},
	}, {
		// (9) Usage: n2..n4 request 4 x 1000m = 100%: no request room for
		// any 500m pod, so nothing moves although usage headroom is there.
		name:     "Usage: no destination with request room",
		args:     usageArgs(api.SourcePrometheus, nu.ClassifyUsage),
		scenario: usageScenario{nodeReq: "1000m", podSeries: true},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reasons := planUsage(t, tc.args, tc.scenario.build(t))
			if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted:\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantReasons != nil && !reflect.DeepEqual(reasons, tc.wantReasons) {
				t.Errorf("reasons:\n got %q\nwant %q", reasons, tc.wantReasons)
			}
		})
	}
}

// Both classifies a node over by requests only as a source; Usage does not.
// n1 requests 4 x 900m = 3600m = 90% > 80% but uses 1000m = 25%; n2..n4
// request 50% and use 25%.
func TestBothVersusUsageRequestHotspot(t *testing.T) {
	build := func(t *testing.T) *snapshot.Snapshot {
		var pods []*v1.Pod
		m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}}
		for _, n := range []string{"n1", "n2", "n3", "n4"} {
			req := "500m"
			if n == "n1" {
				req = "900m"
			}
			pods = append(pods, loaded(n, 4, req)...)
			m.Nodes[n] = nodeutiltest.Flat(nodeutiltest.Now, 1000, gi)
		}
		return nodeutiltest.UsageSnapshot(t, nodes("n1", "n2", "n3", "n4"), pods, m, nil)
	}
	// Both: n1 3600 -> 2700m = 67.5% <= 80% after one 900m pod; its usage
	// is unknown per pod, so the reason is the request view's.
	got, reasons := planUsage(t, usageArgs(api.SourceKubernetesMetrics, nu.ClassifyBoth), build(t))
	if want := []string{"ns/n1-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Both: evicted %v, want %v", got, want)
	}
	if want := []string{"node n1 cpu 90% > target 80% (requests)"}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("Both: reasons %q, want %q", reasons, want)
	}
	if got, _ := planUsage(t, usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage), build(t)); len(got) != 0 {
		t.Errorf("Usage: evicted %v, want nothing", got)
	}
}

func TestClassifyUnknownUsage(t *testing.T) {
	snap := usageScenario{nodeReq: "500m", n1: nodeutiltest.Flat(nodeutiltest.Now.Add(-10*time.Minute), 3800, gi)}.build(t)
	args := usageArgs(api.SourceKubernetesMetrics, "")
	args.Default()
	s, err := New(args, depsNone)
	if err != nil {
		t.Fatal(err)
	}
	got := s.(*LowNodeUtilization).Classify(context.Background(), snap)
	want := map[string]string{"n1": nu.ClassUnknownUsage, "n2": "underutilized", "n3": "underutilized", "n4": "underutilized"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("classes %v, want %v", got, want)
	}
}
