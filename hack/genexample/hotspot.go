package main

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// hotspotCluster is the usage demo: 8 nodes of 8 cpu whose requests are
// perfectly balanced (6 pods of 500m each = 37.5%), but the pods of
// hot-node-1 burn 1100m each, so the node sits at about 87% cpu usage for
// the whole 10 minutes of samples, while the others run at about 30%. The
// same usage is also given as upstream's MetricResource percentages, for
// hotspot-prometheus-query.yaml.
// Request-based descheduling sees nothing to do; usage-based relieves
// hot-node-1 only.
func hotspotCluster() snapshot.Objects {
	objs := snapshot.Objects{NodeMetrics: map[string]snapshot.Series{}, PodMetrics: map[types.NamespacedName]snapshot.Series{},
		NodeMetricResource: map[string]snapshot.Points{}}
	objs.Namespaces = []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}}
	for i := 1; i <= 8; i++ {
		node := fmt.Sprintf("hot-node-%d", i)
		objs.Nodes = append(objs.Nodes, b.MakeNode(node).Capacity("8", "32Gi", 110).Obj())
		perPod := int64(400) // millicores each pod uses
		if i == 1 {
			perPod = 1100
		}
		var nodeCPU int64 = 300 // system daemons
		for k := 0; k < 6; k++ {
			name := fmt.Sprintf("checkout-%d-%d", i, k)
			objs.Pods = append(objs.Pods, b.MakePod("shop", name).Node(node).Req("500m", "1Gi").
				OwnedBy("ReplicaSet", "checkout-6b8").Label("app", "checkout").Created(now.Add(-2*time.Hour)).Obj())
			objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: name}] = series(perPod+int64(k*10), 700<<20)
			nodeCPU += perPod + int64(k*10)
		}
		objs.NodeMetrics[node] = series(nodeCPU, 8<<30)
		objs.NodeMetricResource[node] = metricResource(objs.NodeMetrics[node], 8000)
	}
	return objs
}

// metricResource is what upstream's Prometheus query form would report for
// the node: its cpu usage as a percentage of allocatable (8000m), per sample.
func metricResource(s snapshot.Series, allocMilliCPU int64) snapshot.Points {
	out := make(snapshot.Points, len(s))
	for i, smp := range s {
		out[i] = snapshot.Point{Time: smp.Time, Value: float64(smp.MilliCPU) * 100 / float64(allocMilliCPU)}
	}
	return out
}

// series is 10 minutes of samples every 15 s ending at now, with a small
// deterministic wobble of ±2% so that aggregation has something to do.
func series(milliCPU, memory int64) snapshot.Series {
	var s snapshot.Series
	for t := 40; t >= 0; t-- {
		wobble := milliCPU * int64(t%5-2) / 100
		s = append(s, snapshot.Sample{Time: now.Add(-time.Duration(t) * 15 * time.Second),
			MilliCPU: milliCPU + wobble, Memory: memory})
	}
	return s
}
