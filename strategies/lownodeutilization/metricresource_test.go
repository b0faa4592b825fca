package lownodeutilization

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// The MetricResource scenarios: four nodes of 4000m and 8Gi, each with four
// pods ns/<node>-a..d requesting 500m (2000m = 50%: requests balanced)
// unless req says otherwise, all owned by ReplicaSet rs.
type metricScenario struct {
	mr      map[string]snapshot.Points // MetricResource points per node
	cpu     map[string]snapshot.Series // cpu/memory samples per node
	req     map[string]string          // cpu request of each pod of a node (default 500m)
	history *snapshot.History
}

func (s metricScenario) build(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	names := []string{"n1", "n2", "n3", "n4"}
	var pods []*v1.Pod
	for _, n := range names {
		req := s.req[n]
		if req == "" {
			req = "500m"
		}
		for _, suffix := range []string{"a", "b", "c", "d"} {
			pods = append(pods, pod("ns", n+"-"+suffix, n, req).Obj())
		}
	}
	m := nodeutiltest.Metrics{Nodes: s.cpu, MetricResource: s.mr}
	return nodeutiltest.UsageSnapshot(t, nodes(names...), pods, m, s.history)
}

// flatMR gives each node a flat MetricResource percentage for 10 minutes
// up to now.
func flatMR(pcts map[string]float64) map[string]snapshot.Points {
	out := make(map[string]snapshot.Points, len(pcts))
	for n, p := range pcts {
		out[n] = nodeutiltest.Percent(now, 10*time.Minute, p)
	}
	return out
}

// metricArgs: MetricResource <= low is underutilized, > high overutilized
// (cpu, memory and pods default to 100), upstream's query only.
func metricArgs(low, high float64) *Args {
	return &Args{
		Thresholds:         nu.Thresholds{nu.MetricResource: low},
		TargetThresholds:   nu.Thresholds{nu.MetricResource: high},
		MetricsUtilization: nodeutiltest.PrometheusQuery(false),
	}
}

// mixedArgs: cpu <= 60% / > 80% and MetricResource <= 30% / > 70%, with
// upstream's query and the cpu/memory queries.
func mixedArgs(mode nu.ClassificationMode) *Args {
	return &Args{
		Thresholds:         nu.Thresholds{v1.ResourceCPU: 60, nu.MetricResource: 30},
		TargetThresholds:   nu.Thresholds{v1.ResourceCPU: 80, nu.MetricResource: 70},
		MetricsUtilization: nodeutiltest.PrometheusQuery(true),
		Classification:     mode,
	}
}

func flatCPU(milliCPU map[string]int64) map[string]snapshot.Series {
	out := make(map[string]snapshot.Series, len(milliCPU))
	for n, c := range milliCPU {
		out[n] = nodeutiltest.Flat(now, c, gi)
	}
	return out
}

const oneOnly = "at most one pod per cycle: a pod's share of MetricResource is unknown"

func TestPlanMetricResource(t *testing.T) {
	cold := map[string]float64{"n2": 28, "n3": 28, "n4": 28}
	with := func(m map[string]float64, node string, pct float64) map[string]float64 {
		c := map[string]float64{node: pct}
		for k, v := range m {
			if k != node {
				c[k] = v
			}
		}
		return c
	}
	tests := []struct {
		name        string
		args        *Args
		scenario    metricScenario
		want        []string
		wantReasons []string
	}{{
		// (a) n1 at 92% > 70% at every point of the last 10 minutes: a
		// source, hot since the first point of the 5m window. n2..n4 at
		// 28% <= 30%: destinations (requests 50% <= the defaulted 100%).
		// A pod's share of MetricResource is unknown: one pod, the first
		// in the seed order (equal priority and QoS: by name).
		name:        "(a) one node hot by MetricResource for 10m: exactly one pod from it",
		args:        metricArgs(30, 70),
		scenario:    metricScenario{mr: flatMR(with(cold, "n1", 92))},
		want:        []string{"ns/n1-a"},
		wantReasons: []string{"node n1 MetricResource 92% > target 70% for 5m; " + oneOnly},
	}, {
		// (b) n1 alternates 76% (newest) and 66%: the mean of the 21
		// points in the window, (11 x 76 + 10 x 66) / 21 = 71.2%, is over
		// 70%, but the run over target is the newest point alone (0s <
		// overFor 5m - 15s): never a source.
		name: "(b) flapping around the target: nothing",
		args: metricArgs(30, 70),
		scenario: metricScenario{mr: func() map[string]snapshot.Points {
			m := flatMR(cold)
			m["n1"] = nodeutiltest.Percent(now, 10*time.Minute, 76, 66)
			return m
		}()},
	}, {
		// (b) control: overFor 0 makes the 71.2% mean a source.
		name: "(b) flapping without overFor: one pod",
		args: func() *Args {
			a := metricArgs(30, 70)
			a.Hysteresis = &nu.Hysteresis{OverFor: &metav1.Duration{}}
			return a
		}(),
		scenario: metricScenario{mr: func() map[string]snapshot.Points {
			m := flatMR(cold)
			m["n1"] = nodeutiltest.Percent(now, 10*time.Minute, 76, 66)
			return m
		}()},
		want:        []string{"ns/n1-a"},
		wantReasons: []string{"node n1 MetricResource 71.2% > target 70%; " + oneOnly},
	}, {
		// (c) n1's newest point is 3m old > maxStaleness 2m: stale, so n1
		// is neither source nor destination; nothing else is over.
		name: "(c) stale MetricResource on the hot node: nothing",
		args: metricArgs(30, 70),
		scenario: metricScenario{mr: func() map[string]snapshot.Points {
			m := flatMR(cold)
			m["n1"] = nodeutiltest.Percent(now.Add(-3*time.Minute), 10*time.Minute, 92)
			return m
		}()},
	}, {
		// (c) no MetricResource at all: no node has usable usage, the cycle
		// is skipped.
		name:     "(c) MetricResource missing everywhere: nothing",
		args:     metricArgs(30, 70),
		scenario: metricScenario{},
	}, {
		// (d) n1 92% and n2 85% are sources, n3 25% the only destination,
		// n4 50% appropriate. n1 goes first (92 > 85) and takes n3's one
		// MetricResource slot: n2 gives nothing this cycle.
		name:        "(d) two hot nodes, one destination: one eviction",
		args:        metricArgs(30, 70),
		scenario:    metricScenario{mr: flatMR(map[string]float64{"n1": 92, "n2": 85, "n3": 25, "n4": 50})},
		want:        []string{"ns/n1-a"},
		wantReasons: []string{"node n1 MetricResource 92% > target 70% for 5m; " + oneOnly},
	}, {
		// (d) control: with n4 at 25% too there are two slots, one pod
		// from each hot node.
		name:     "(d) two hot nodes, two destinations: one pod each",
		args:     metricArgs(30, 70),
		scenario: metricScenario{mr: flatMR(map[string]float64{"n1": 92, "n2": 85, "n3": 25, "n4": 25})},
		want:     []string{"ns/n1-a", "ns/n2-a"},
	}, {
		// n1 uses 3800m = 95% cpu and 92% MetricResource; n2 85%
		// MetricResource only; n3 (cpu 25%, 25%) the only destination, n4
		// appropriate (50%). n1's pods have no usage series: each counts
		// its 500m requests: 3800 -> 3300m (82.5% > release 75%) -> 2800m
		// (70%): two cpu-driven evictions (per-pod accounting), which take
		// no MetricResource slot; n1's MetricResource counts as relieved
		// by them. n2 then takes n3's slot: one pod.
		name: "cpu per-pod accounting next to MetricResource",
		args: mixedArgs(""),
		scenario: metricScenario{
			mr:  flatMR(map[string]float64{"n1": 92, "n2": 85, "n3": 25, "n4": 50}),
			cpu: flatCPU(map[string]int64{"n1": 3800, "n2": 1000, "n3": 1000, "n4": 1000}),
		},
		want: []string{"ns/n1-a", "ns/n1-b", "ns/n2-a"},
		wantReasons: []string{
			"node n1 cpu usage 95% > target 80% for 5m; pod uses 500m (its requests: no fresh usage)",
			"node n1 cpu usage 82.5% > target 80% for 5m; pod uses 500m (its requests: no fresh usage)",
			"node n2 MetricResource 85% > target 70% for 5m; " + oneOnly},
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

// (e) Both versus Usage with MetricResource.
func TestMetricResourceBothVersusUsage(t *testing.T) {
	// n1 92% MetricResource, n2..n4 25%; every node uses 1000m = 25% cpu.
	// n2..n4 request 4 x 700m = 2800m = 70% > 60%.
	busy := metricScenario{
		mr:  flatMR(map[string]float64{"n1": 92, "n2": 25, "n3": 25, "n4": 25}),
		cpu: flatCPU(map[string]int64{"n1": 1000, "n2": 1000, "n3": 1000, "n4": 1000}),
		req: map[string]string{"n2": "700m", "n3": "700m", "n4": "700m"},
	}
	// Both: n2..n4 are over 60% by requests, so no destination: nothing.
	if got, _ := planUsage(t, mixedArgs(nu.ClassifyBoth), busy.build(t)); len(got) != 0 {
		t.Errorf("Both: evicted %v, want nothing", got)
	}
	// Usage: n2..n4 are under by usage (cpu 25% <= 60%, MetricResource
	// 25% <= 30%) and have 4000 - 2800 = 1200m of request room for a 500m
	// pod: n1 gives one pod.
	got, reasons := planUsage(t, mixedArgs(nu.ClassifyUsage), busy.build(t))
	if want := []string{"ns/n1-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Usage: evicted %v, want %v", got, want)
	}
	if want := []string{"node n1 MetricResource 92% > target 70% for 5m; " + oneOnly}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("Usage: reasons %q, want %q", reasons, want)
	}
	// With only the query, Both judges cpu by requests: n1 requests 4 x
	// 900m = 90% > 80% at a cold 40% MetricResource; one 900m pod brings
	// it to 2700m = 67.5%. (Usage rejects cpu thresholds with only the
	// query: see TestMetricResourceValidation.)
	a := metricArgs(30, 70)
	a.Thresholds[v1.ResourceCPU], a.TargetThresholds[v1.ResourceCPU] = 60, 80
	requestHot := metricScenario{mr: flatMR(map[string]float64{"n1": 40, "n2": 25, "n3": 25, "n4": 25}),
		req: map[string]string{"n1": "900m"}}
	got, reasons = planUsage(t, a, requestHot.build(t))
	if want := []string{"ns/n1-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Both, query only: evicted %v, want %v", got, want)
	}
	if want := []string{"node n1 cpu 90% > target 80% (requests)"}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("Both, query only: reasons %q, want %q", reasons, want)
	}
}

// Deviation thresholds use the mean MetricResource of the nodes with a
// known value: n1 92%, n2 30%, n3 28%, n4 stale: mean (92 + 30 + 28) / 3 =
// 50%, band 40%..60%: n1 over, n2 and n3 under: one pod from n1. Counting
// n4 as 0% would give a mean of 37.5% and a lower bound of 27.5%, with no
// destination.
func TestMetricResourceDeviation(t *testing.T) {
	a := metricArgs(10, 10)
	a.UseDeviationThresholds = true
	mr := flatMR(map[string]float64{"n1": 92, "n2": 30, "n3": 28})
	mr["n4"] = nodeutiltest.Percent(now.Add(-3*time.Minute), 10*time.Minute, 10)
	got, reasons := planUsage(t, a, metricScenario{mr: mr}.build(t))
	if want := []string{"ns/n1-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("evicted %v, want %v", got, want)
	}
	if want := []string{"node n1 MetricResource 92% > target 60% for 5m; " + oneOnly}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("reasons %q, want %q", reasons, want)
	}
}

// Freshness with the query and the cpu/memory queries: every measured
// series must be fresh. n1's cpu is fresh but its MetricResource stale
// (newest 3m old): unknown. n2's MetricResource is fresh but it has no cpu
// samples: unknown. With the query alone, cpu samples are not needed.
func TestMetricResourceFreshness(t *testing.T) {
	mr := flatMR(map[string]float64{"n2": 20, "n3": 20, "n4": 20})
	mr["n1"] = nodeutiltest.Percent(now.Add(-3*time.Minute), 10*time.Minute, 20)
	s := metricScenario{mr: mr, cpu: flatCPU(map[string]int64{"n1": 1000, "n3": 1000, "n4": 1000})}
	got := newStrategy(t, mixedArgs("")).Classify(t.Context(), s.build(t))
	want := map[string]string{"n1": nu.ClassUnknownUsage, "n2": nu.ClassUnknownUsage, "n3": "underutilized", "n4": "underutilized"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("query and queries: classes %v, want %v", got, want)
	}
	got = newStrategy(t, metricArgs(30, 70)).Classify(t.Context(), s.build(t))
	want = map[string]string{"n1": nu.ClassUnknownUsage, "n2": "underutilized", "n3": "underutilized", "n4": "underutilized"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("query only: classes %v, want %v", got, want)
	}
}

// (g) Hysteresis after an eviction recorded in the history: n1 at 92% as
// in (a). Every pod belongs to ReplicaSet rs (UID uid-ReplicaSet-rs).
func TestMetricResourceCooldowns(t *testing.T) {
	hot := flatMR(map[string]float64{"n1": 92, "n2": 28, "n3": 28, "n4": 28})
	tests := []struct {
		name     string
		hist     *snapshot.History
		cooldown time.Duration // workloadCooldown; 0: the default (off)
		want     []string
	}{{
		// The pod evicted from n1 5m ago is not visible in a per-pod
		// MetricResource (unknown share), so only the node cooldown (10m)
		// keeps n1 from giving another pod while the metric catches up.
		name: "node cooldown: nothing 5m after the last eviction",
		hist: history(evicted("n1", "other", 5*time.Minute)),
	}, {
		name: "node cooldown over after 11m: one pod",
		hist: history(evicted("n1", "other", 11*time.Minute)),
		want: []string{"ns/n1-a"},
	}, {
		// rs lost a pod 20m ago < workloadCooldown 30m.
		name:     "workload cooldown: nothing",
		hist:     history(evicted("n2", "ReplicaSet-rs", 20*time.Minute)),
		cooldown: 30 * time.Minute,
	}, {
		// The same without a workload cooldown (the default): a is older
		// than that eviction, no replacement of it, and may go.
		name: "workload cooldown off: one pod",
		hist: history(evicted("n2", "ReplicaSet-rs", 20*time.Minute)),
		want: []string{"ns/n1-a"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := metricScenario{mr: hot, history: tc.hist}.build(t)
			a := metricArgs(30, 70)
			if tc.cooldown > 0 {
				a.Hysteresis = &nu.Hysteresis{WorkloadCooldown: &metav1.Duration{Duration: tc.cooldown}}
			}
			got, _ := planUsage(t, a, snap)
			if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted %v, want %v", got, tc.want)
			}
		})
	}
	// In the cooldown n1 stays hot: recorded as a source and soft-tainted.
	args := metricArgs(30, 70)
	args.SoftTaint = &nu.SoftTaint{Enabled: true}
	s := newStrategy(t, args)
	snap := metricScenario{mr: hot, history: history(evicted("n1", "other", 5*time.Minute))}.build(t)
	if st := s.NodeStates(t.Context(), snap)["n1"]; !st.Source || !st.HotSince.Equal(now.Add(-5*time.Minute)) {
		t.Errorf("n1 state %+v, want a source hot since now-5m", st)
	}
	if want := map[string]bool{"n1": true}; !reflect.DeepEqual(s.WantTainted(t.Context(), snap), want) {
		t.Errorf("want tainted %v, want %v", s.WantTainted(t.Context(), snap), want)
	}
}

// The release margin: n1, recorded as a source last cycle, is now at 68%:
// under the 70% target but over the release limit 70 - 5 = 65%, so it
// stays a source and keeps the soft taint, but loses no pod: relief goes
// to the target, and n1 is under it.
func TestMetricResourceReleaseMargin(t *testing.T) {
	states := map[string]map[string]snapshot.NodeState{PluginName: {"n1": {Source: true,
		HotSince: now.Add(-20 * time.Minute), SourceSince: now.Add(-15 * time.Minute), Updated: now.Add(-time.Minute)}}}
	hist := snapshot.NewHistory(nil, states)
	snap := metricScenario{mr: flatMR(map[string]float64{"n1": 68, "n2": 28, "n3": 28, "n4": 28}), history: hist}.build(t)
	if got, reasons := planUsage(t, metricArgs(30, 70), snap); len(got) != 0 {
		t.Errorf("evicted %v (%q), want none", got, reasons)
	}
	args := metricArgs(30, 70)
	args.SoftTaint = &nu.SoftTaint{Enabled: true}
	s := newStrategy(t, args)
	if st := s.NodeStates(t.Context(), snap)["n1"]; !st.Source {
		t.Errorf("n1 state %+v, want still a source", st)
	}
	if want := map[string]bool{"n1": true}; !reflect.DeepEqual(s.WantTainted(t.Context(), snap), want) {
		t.Errorf("want tainted %v, want %v", s.WantTainted(t.Context(), snap), want)
	}
	// Not a source before: 68% <= 70% is simply not hot.
	snap = metricScenario{mr: flatMR(map[string]float64{"n1": 68, "n2": 28, "n3": 28, "n4": 28})}.build(t)
	if got, _ := planUsage(t, metricArgs(30, 70), snap); len(got) != 0 {
		t.Errorf("not a source before: evicted %v", got)
	}
}

// The one-pod rule and the destination slots hold per cycle: after an
// eviction the cycle plans again on a working snapshot without the pod
// (after a failed eviction, or for a later strategy), and the metric does
// not show the eviction yet. (d): n1 92% and n2 85% hot, n3 25% a
// destination, n4 a destination (25%) or appropriate (50%).
func TestMetricResourcePerCycle(t *testing.T) {
	tests := []struct {
		name  string
		n4    float64
		first []string // the cycle's first plan
		again []string // planning again without n1-a
	}{{
		// n1 gave its pod and took n3's slot: nothing more this cycle.
		name:  "one destination",
		n4:    50,
		first: []string{"ns/n1-a"},
	}, {
		// Two slots: the first plan relieves both; planning again without
		// n1-a (as if n2-a's eviction had failed) gives n2 the slot left,
		// and n1 nothing.
		name:  "two destinations",
		n4:    25,
		first: []string{"ns/n1-a", "ns/n2-a"},
		again: []string{"ns/n2-a"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := metricScenario{mr: flatMR(map[string]float64{"n1": 92, "n2": 85, "n3": 25, "n4": tc.n4})}.build(t)
			if got, _ := planUsage(t, metricArgs(30, 70), snap); !reflect.DeepEqual(got, tc.first) {
				t.Errorf("first plan: %v, want %v", got, tc.first)
			}
			ni, _ := snap.Node("n1")
			working := snap.WithoutPods(ni.Pods[0].Pod)
			if got, _ := planUsage(t, metricArgs(30, 70), working); !reflect.DeepEqual(got, tc.again) && len(got)+len(tc.again) > 0 {
				t.Errorf("planned again: %v, want %v", got, tc.again)
			}
		})
	}
}
