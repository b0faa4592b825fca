package lownodeutilization

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

var now = nodeutiltest.Now

// evicted is an earlier eviction by this strategy of a pod of owner uid
// from node, ago before now, that moved 200m and 128Mi.
func evicted(node, uid string, ago time.Duration) snapshot.Eviction {
	return snapshot.Eviction{Time: now.Add(-ago), Namespace: "ns", Pod: "old", OwnerKind: "ReplicaSet",
		OwnerName: "rs", OwnerUID: types.UID("uid-" + uid), Node: node, Strategy: PluginName, MilliCPU: 200, Memory: 128 << 20}
}

func history(evs ...snapshot.Eviction) *snapshot.History { return snapshot.NewHistory(evs, nil) }

// (5) The hot node of TestPlanUsage (n1 3800m = 95%, d uses 1500m) with
// history. Every pod is owned by ReplicaSet rs (UID uid-ReplicaSet-rs).
func TestCooldowns(t *testing.T) {
	tests := []struct {
		name     string
		hist     *snapshot.History
		cooldown time.Duration // workloadCooldown; 0: the default (off)
		want     []string
	}{{
		// Evicted from n1 5m ago < nodeCooldown 10m: n1 is not a source.
		name: "node cooldown blocks a second eviction from the node",
		hist: history(evicted("n1", "other", 5*time.Minute)),
	}, {
		// 11m ago > 10m: the cooldown is over; 3800m -> d -> 2300m.
		name: "node cooldown over",
		hist: history(evicted("n1", "other", 11*time.Minute)),
		want: []string{"ns/n1-d"},
	}, {
		// rs lost a pod (on n2) 20m ago; workloadCooldown is off by
		// default: another replica of rs may go (budget pacing), and d,
		// created before that eviction, is no replacement of it.
		name: "workload cooldown off by default: a sibling goes",
		hist: history(evicted("n2", "ReplicaSet-rs", 20*time.Minute)),
		want: []string{"ns/n1-d"},
	}, {
		// With workloadCooldown 1h, 20m ago < 1h: none of n1's pods (all
		// of rs) is evicted.
		name:     "workload cooldown blocks a second eviction of the workload",
		hist:     history(evicted("n2", "ReplicaSet-rs", 20*time.Minute)),
		cooldown: time.Hour,
	}, {
		// 45m ago, still < 1h.
		name:     "no second eviction of the workload within the hour",
		hist:     history(evicted("n2", "ReplicaSet-rs", 45*time.Minute)),
		cooldown: time.Hour,
	}, {
		// 61m ago: over.
		name:     "workload cooldown over",
		hist:     history(evicted("n2", "ReplicaSet-rs", 61*time.Minute)),
		cooldown: time.Hour,
		want:     []string{"ns/n1-d"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := usageScenario{nodeReq: "500m", podSeries: true, history: tc.hist}.build(t)
			a := usageArgs(api.SourceKubernetesMetrics, "")
			if tc.cooldown > 0 {
				a.Hysteresis = &nu.Hysteresis{WorkloadCooldown: &metav1.Duration{Duration: tc.cooldown}}
			}
			got, _ := planUsage(t, a, snap)
			if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted %v, want %v", got, tc.want)
			}
		})
	}
}

// Pods evicted within the cooldown count as moved: n1 evicted a 200m pod
// just now, after its newest sample, so every sample of the window still
// shows the pod: its 3800m aggregate counts as 3600m (90%) and the 200m
// are reserved on the destinations (an eviction older than some samples
// counts in proportion: nodeutilization's TestSubtractRecentInProportion).
// The cooldown keeps n1 from being a source but not from being hot: its
// state says Source.
func TestRecentEvictionsCountAsMoved(t *testing.T) {
	snap := usageScenario{nodeReq: "500m", podSeries: true, history: history(evicted("n1", "x", 0))}.build(t)
	s := newStrategy(t, usageArgs(api.SourceKubernetesMetrics, ""))
	views := s.views(snap)
	_, _, hot := s.classify(snap, views)
	if got := views.Nodes[0].Usage.Used.MilliCPU; got != 3600 {
		t.Errorf("n1 usage %dm, want 3600m", got)
	}
	if hot.Reserved.MilliCPU != 200 || hot.Reserved.Memory != 128<<20 {
		t.Errorf("reserved %+v, want 200m and 128Mi", hot.Reserved)
	}
	if st := hot.State("n1"); !st.Source || st.CooldownUntil != now.Add(10*time.Minute) {
		t.Errorf("n1 state %+v, want Source with cooldown until now+10m", st)
	}
}

func newStrategy(t *testing.T, args *Args) *LowNodeUtilization {
	t.Helper()
	return mustNew(t, args).(*LowNodeUtilization)
}

// (7) and NodeStates. Target 80%, releaseMargin 5: release at 75% = 3000m.
func TestNodeStatesAndWantTainted(t *testing.T) {
	source := func(hotSince, sourceSince, updated time.Duration) map[string]map[string]snapshot.NodeState {
		return map[string]map[string]snapshot.NodeState{PluginName: {"n1": {Source: true,
			HotSince: now.Add(-hotSince), SourceSince: now.Add(-sourceSince), Updated: now.Add(-updated)}}}
	}
	tests := []struct {
		name   string
		n1     int64 // n1's flat usage, millicores
		states map[string]map[string]snapshot.NodeState
		want   snapshot.NodeState
	}{{
		// 3800m = 95% at every sample of the 5m window: hot since the
		// first sample (now - 5m), a source from now.
		name: "hot for the whole window: source",
		n1:   3800,
		want: snapshot.NodeState{Source: true, HotSince: now.Add(-5 * time.Minute), SourceSince: now},
	}, {
		// The previous state (updated 1m ago) continues the run.
		name:   "hot before the window: earlier HotSince and SourceSince kept",
		n1:     3800,
		states: source(20*time.Minute, 15*time.Minute, time.Minute),
		want:   snapshot.NodeState{Source: true, HotSince: now.Add(-20 * time.Minute), SourceSince: now.Add(-15 * time.Minute)},
	}, {
		// Updated 30m ago > the 5m window: continuity unknown, ignored.
		name:   "stale previous state ignored",
		n1:     3800,
		states: source(40*time.Minute, 35*time.Minute, 30*time.Minute),
		want:   snapshot.NodeState{Source: true, HotSince: now.Add(-5 * time.Minute), SourceSince: now},
	}, {
		// 3100m = 77.5%: under target, over the 75% release: kept.
		name:   "between release and target, was a source: kept",
		n1:     3100,
		states: source(20*time.Minute, 15*time.Minute, time.Minute),
		want:   snapshot.NodeState{Source: true, SourceSince: now.Add(-15 * time.Minute)},
	}, {
		name: "between release and target, was not a source: not one",
		n1:   3100,
	}, {
		// 2900m = 72.5% <= 75%: released.
		name:   "below release: released",
		n1:     2900,
		states: source(20*time.Minute, 15*time.Minute, time.Minute),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := usageScenario{nodeReq: "500m", podSeries: true, n1: nodeutiltest.Flat(now, tc.n1, gi),
				history: snapshot.NewHistory(nil, tc.states)}
			snap := sc.build(t)
			args := usageArgs(api.SourceKubernetesMetrics, "")
			args.SoftTaint = &nu.SoftTaint{Enabled: true}
			s := newStrategy(t, args)
			if got := s.NodeStates(context.Background(), snap)["n1"]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("n1 state %+v, want %+v", got, tc.want)
			}
			var want map[string]bool
			if tc.want.Source {
				want = map[string]bool{"n1": true}
			}
			if got := s.WantTainted(context.Background(), snap); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Errorf("WantTainted %v, want %v", got, want)
			}
		})
	}
}

func TestSoftTaintDisabled(t *testing.T) {
	s := newStrategy(t, usageArgs(api.SourceKubernetesMetrics, ""))
	if enabled, key, value := s.SoftTaint(); enabled || key != nu.DefaultSoftTaintKey || value != "" {
		t.Errorf("SoftTaint() = %v %q %q, want disabled with the default key", enabled, key, value)
	}
	if got := s.WantTainted(context.Background(), usageScenario{nodeReq: "500m"}.build(t)); got != nil {
		t.Errorf("disabled: WantTainted %v, want nil", got)
	}
	r := newStrategy(t, usageArgs(api.SourceRequests, ""))
	if got := r.NodeStates(context.Background(), usageScenario{nodeReq: "500m"}.build(t)); got != nil {
		t.Errorf("Requests: NodeStates %v, want nil", got)
	}
}

func TestHysteresisAndSoftTaintValidation(t *testing.T) {
	base := `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, `
	tests := []struct {
		name     string
		yaml     string
		wantErrs []string
	}{{
		name: "defaults are valid",
		yaml: base + `metricsUtilization: {source: KubernetesMetrics}}`,
	}, {
		name: "every problem",
		yaml: base + `metricsUtilization: {source: KubernetesMetrics}, hysteresis: {overFor: -1m, releaseMargin: 120, ` +
			`nodeCooldown: -1s, workloadCooldown: -2s, replacementCooldown: -3s}, softTaint: {key: "bad key!", value: "a b"}}`,
		wantErrs: []string{
			`args.hysteresis.overFor: Invalid value: "-1m0s": must not be negative`,
			`args.hysteresis.nodeCooldown: Invalid value: "-1s": must not be negative`,
			`args.hysteresis.workloadCooldown: Invalid value: "-2s": must not be negative`,
			`args.hysteresis.replacementCooldown: Invalid value: "-3s": must not be negative`,
			"args.hysteresis.releaseMargin: Invalid value: 120: must be between 0 and 100",
			`args.softTaint.key: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`args.softTaint.value: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
	}, {
		name: "soft taint needs usage",
		yaml: base + `softTaint: {enabled: true}}`,
		wantErrs: []string{
			"args.softTaint.enabled: Invalid value: true: needs a metrics source (metricsUtilization.source) and classification Usage or Both",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tc.wantErrs)
			}
		})
	}
	a := &Args{Thresholds: nu.Thresholds{"cpu": 20}, TargetThresholds: nu.Thresholds{"cpu": 50},
		MetricsUtilization: nodeutiltest.MetricsSource(api.SourcePrometheus)}
	a.Default()
	want := &nu.Hysteresis{OverFor: &metav1.Duration{Duration: 5 * time.Minute}, ReleaseMargin: a.Hysteresis.ReleaseMargin,
		NodeCooldown: &metav1.Duration{Duration: 10 * time.Minute}, WorkloadCooldown: &metav1.Duration{},
		ReplacementCooldown: &metav1.Duration{Duration: time.Hour}}
	if !reflect.DeepEqual(a.Hysteresis, want) || *a.Hysteresis.ReleaseMargin != 5 {
		t.Errorf("hysteresis defaults %+v, want 5m / 5 / 10m / 0 / 1h", a.Hysteresis)
	}
}

// TestRecentArrivalsCountInFull: n1 (4000m) uses 3800m; n2 uses 1000m in
// every sample of the 5m window (21 samples, every 15s), but pod n2-new
// (1200m, 128Mi) was created 200s ago, so the 7 samples at now-300s ...
// now-210s lack it: 1200m × 7/21 = 400m is added, n2 counts 1400m. n2-new
// replaces a pod of its ReplicaSet that the strategy evicted from n1 201s
// ago (200m, 128Mi): SubtractRecent reserved its share still in n1's
// window, 200m × 7/21 = 67m and 43Mi, which n2 now shows, so Reserved
// drops to 0 (not below).
func TestRecentArrivalsCountInFull(t *testing.T) {
	const mi = int64(1) << 20
	pods := []*v1.Pod{
		pod("ns", "n1-a", "n1", "500m").Obj(),
		pod("ns", "n2-new", "n2", "500m").Created(now.Add(-200 * time.Second)).Obj(),
	}
	m := nodeutiltest.Metrics{
		Nodes: map[string]snapshot.Series{"n1": nodeutiltest.Flat(now, 3800, 1024*mi), "n2": nodeutiltest.Flat(now, 1000, 1024*mi)},
		Pods:  map[types.NamespacedName]snapshot.Series{nodeutiltest.PodKey("ns", "n2-new"): nodeutiltest.Flat(now, 1200, 128*mi)},
	}
	snap := nodeutiltest.UsageSnapshot(t, nodes("n1", "n2"), pods, m, history(evicted("n1", "ReplicaSet-rs", 201*time.Second)))
	s := newStrategy(t, usageArgs(api.SourceKubernetesMetrics, ""))
	views := s.views(snap)
	_, _, hot := s.classify(snap, views)
	for _, u := range views.Nodes {
		want := map[string]int64{"n1": 3800 - 67, "n2": 1400}[u.Name()]
		if got := u.Usage.Used.MilliCPU; got != want {
			t.Errorf("%s usage %dm, want %dm", u.Name(), got, want)
		}
	}
	if hot.Reserved.MilliCPU != 0 || hot.Reserved.Memory != 0 {
		t.Errorf("reserved %+v, want none", hot.Reserved)
	}
}
