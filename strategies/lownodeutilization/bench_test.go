package lownodeutilization

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// benchCluster builds nodes x 30 pods: every 10th node at 30 x 120m = 90%
// cpu (over 50%), three in ten at 30 x 20m = 15% (under 20%), the rest at
// 30 x 60m = 45%. Each over node needs ceil((3600-2000)/120) = 14 evictions.
func benchCluster(nodes int) ([]*v1.Node, []*v1.Pod) {
	ns := make([]*v1.Node, 0, nodes)
	pods := make([]*v1.Pod, 0, nodes*30)
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		ns = append(ns, builders.MakeNode(name).Obj())
		cpu := "60m"
		switch i % 10 {
		case 0:
			cpu = "120m"
		case 1, 2, 3:
			cpu = "20m"
		}
		tmpl := builders.MakePod("ns", "tmpl").Node(name).Req(cpu, "64Mi").OwnedBy("ReplicaSet", "rs").Obj()
		for j := 0; j < 30; j++ {
			p := tmpl.DeepCopy()
			p.Name = fmt.Sprintf("%s-p%02d", name, j)
			pods = append(pods, p)
		}
	}
	return ns, pods
}

func benchPlan(b *testing.B, nodes int) {
	ns, pods := benchCluster(nodes)
	benchRun(b, nodeutiltest.Snapshot(b, ns, pods), nodes/10*14, benchArgs(nil))
}

// benchUsage gives every node and pod a series of 6 samples (one a minute
// over the 5m window) equal to its requests, so usage classifies like
// requests (classification Both). Each over node needs 15 evictions: by
// usage it is relieved down to target - releaseMargin = 45% = 1800m,
// ceil((3600 - 1800) / 120) = 15 (the default hysteresis; hot for the
// whole window, so over overFor).
func benchUsage(b *testing.B, nodes int) {
	ns, pods := benchCluster(nodes)
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}, Pods: map[types.NamespacedName]snapshot.Series{}}
	perNode := map[string]int64{}
	for _, p := range pods {
		cpu := p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		m.Pods[nodeutiltest.PodKey(p.Namespace, p.Name)] = minuteSeries(cpu, 64<<20)
		perNode[p.Spec.NodeName] += cpu
	}
	for _, n := range ns {
		m.Nodes[n.Name] = minuteSeries(perNode[n.Name], 30*64<<20)
	}
	snap := nodeutiltest.UsageSnapshot(b, ns, pods, m, nil)
	benchRun(b, snap, nodes/10*15, benchArgs(nodeutiltest.MetricsSource(api.SourceKubernetesMetrics)))
}

func minuteSeries(milliCPU, memory int64) snapshot.Series {
	out := make(snapshot.Series, 0, 6)
	for i := 5; i >= 0; i-- {
		out = append(out, snapshot.Sample{Time: nodeutiltest.Now.Add(-time.Duration(i) * time.Minute),
			MilliCPU: milliCPU, Memory: memory})
	}
	return out
}

// benchMetricResource gives every node six MetricResource points (one a
// minute over the 5m window) at its cpu requests' percentage (90%, 15% or
// 45%), with upstream's query alone and MetricResource thresholds 20 / 50:
// 500 sources per 5,000 nodes give one pod each (a pod's share of
// MetricResource is unknown), and the 1,500 destinations have a slot for
// each.
func benchMetricResource(b *testing.B, nodes int) {
	ns, pods := benchCluster(nodes)
	m := nodeutiltest.Metrics{MetricResource: map[string]snapshot.Points{}}
	for i, n := range ns {
		pct := 45.0
		switch i % 10 {
		case 0:
			pct = 90
		case 1, 2, 3:
			pct = 15
		}
		pts := make(snapshot.Points, 0, 6)
		for k := 5; k >= 0; k-- {
			pts = append(pts, snapshot.Point{Time: nodeutiltest.Now.Add(-time.Duration(k) * time.Minute), Value: pct})
		}
		m.MetricResource[n.Name] = pts
	}
	snap := nodeutiltest.UsageSnapshot(b, ns, pods, m, nil)
	benchRun(b, snap, nodes/10, &Args{Thresholds: nu.Thresholds{nu.MetricResource: 20},
		TargetThresholds: nu.Thresholds{nu.MetricResource: 50}, MetricsUtilization: nodeutiltest.PrometheusQuery(false)})
}

// benchArgs: memory: 30 x 64Mi = 1920Mi of 8Gi = 23.4%, so memory
// thresholds sit above it.
func benchArgs(mu *collectors.MetricsUtilization) *Args {
	return &Args{
		Thresholds:         nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 30},
		TargetThresholds:   nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 60},
		MetricsUtilization: mu,
	}
}

func benchRun(b *testing.B, snap *snapshot.Snapshot, want int, args *Args) {
	args.Default()
	s, err := New(args, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	ev := &nodeutiltest.Evictor{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cands, err := s.Plan(context.Background(), snap, ev)
		if err != nil || len(cands) != want {
			b.Fatalf("Plan: %d candidates, want %d, err %v", len(cands), want, err)
		}
	}
}

// BenchmarkLowNodeUtilization5000 plans on 5,000 nodes and 150,000 pods.
func BenchmarkLowNodeUtilization5000(b *testing.B) { benchPlan(b, 5000) }

// BenchmarkLowNodeUtilization1000 is the same at a fifth of the size, to
// show that the cost grows linearly.
func BenchmarkLowNodeUtilization1000(b *testing.B) { benchPlan(b, 1000) }

// BenchmarkLowNodeUtilizationUsage5000 is BenchmarkLowNodeUtilization5000
// with a metrics source (classification Both) and usage series for every
// node and pod.
func BenchmarkLowNodeUtilizationUsage5000(b *testing.B) { benchUsage(b, 5000) }

// BenchmarkLowNodeUtilizationMetricResource5000 is the same cluster with
// upstream's Prometheus query: MetricResource points for every node.
func BenchmarkLowNodeUtilizationMetricResource5000(b *testing.B) { benchMetricResource(b, 5000) }
