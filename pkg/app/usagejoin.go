package app

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// withUsage adds the collectors' samples to the objects of another source.
type withUsage struct {
	inner descheduler.Source
	set   *collectorSet
	// mu guards pruned: when each collector's stores were last pruned (by
	// index in set.collectors).
	mu     sync.Mutex
	pruned []time.Time
}

// Objects returns the inner source's objects with NodeMetrics and
// PodMetrics holding the in-window samples of every collector, and
// NodeMetricResource its MetricResource percentages (the upstream
// Prometheus query). Series of nodes and pods that no longer exist are
// first pruned from the stores, at most once per window of the store:
// their series end within a window anyway (the poller sweeps them), the
// snapshot only reads the series of the pods it holds, and checking
// 150,000 pods every cycle costs about 70 ms at 5,000 nodes. A node or pod served by two collectors
// keeps the series of the first (in order of first use by the policy's
// plugins): series are never mixed. When the inner source brought no pod
// series, every pod series comes from a store, which keeps them in time
// order: the objects say so (PodMetricsSorted), and the snapshot does not
// check 150,000 series again.
func (w *withUsage) Objects() (snapshot.Objects, error) {
	objs, err := w.inner.Objects()
	if err != nil {
		return objs, err
	}
	objs.PodMetricsSorted = len(objs.PodMetrics) == 0
	now := w.set.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pruned) != len(w.set.collectors) {
		w.pruned = make([]time.Time, len(w.set.collectors))
	}
	var live *liveKeys
	for i, c := range w.set.collectors {
		if w.pruned[i].IsZero() || now.Sub(w.pruned[i]) >= c.Store().Window() {
			if live == nil {
				live = newLiveKeys(objs)
			}
			c.Store().Prune(live.node, live.pod)
			c.MetricResource().Prune(live.node)
			w.pruned[i] = now
		}
		exp := c.Store().Export(now)
		objs.NodeMetrics = mergeSeries(objs.NodeMetrics, exp.Nodes)
		objs.PodMetrics = mergeSeries(objs.PodMetrics, exp.Pods)
		objs.NodeMetricResource = mergeSeries(objs.NodeMetricResource, c.MetricResource().Export(now))
	}
	return objs, nil
}

// liveKeys are the nodes and pods of a cycle's objects, for pruning.
type liveKeys struct {
	nodes map[string]struct{}
	pods  map[types.NamespacedName]struct{}
}

func newLiveKeys(objs snapshot.Objects) *liveKeys {
	l := &liveKeys{nodes: make(map[string]struct{}, len(objs.Nodes)),
		pods: make(map[types.NamespacedName]struct{}, len(objs.Pods))}
	for _, n := range objs.Nodes {
		l.nodes[n.Name] = struct{}{}
	}
	for _, p := range objs.Pods {
		l.pods[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = struct{}{}
	}
	return l
}

func (l *liveKeys) node(name string) bool { _, ok := l.nodes[name]; return ok }

func (l *liveKeys) pod(key types.NamespacedName) bool { _, ok := l.pods[key]; return ok }

// mergeSeries adds the series of from whose keys dst does not have yet and
// returns dst. An empty dst is replaced by from itself, which the caller
// then owns (the stores' exports are new maps), instead of copying it key
// by key; nil maps become empty ones.
func mergeSeries[K comparable, S any](dst, from map[K]S) map[K]S {
	if len(dst) == 0 {
		if from == nil {
			return map[K]S{}
		}
		return from
	}
	for k, s := range from {
		if _, ok := dst[k]; !ok {
			dst[k] = s
		}
	}
	return dst
}
