package snapshot

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// loadState is what a loader has accumulated: the objects, the duplicate
// indexes of their usage series and the skipped kinds. A list whose kind
// is not known yet when its items arrive is loaded into a separate state
// that is merged once the list turns out to be one (see jsonDoc).
type loadState struct {
	objs       Objects
	nodeDups   dupIndex[string]
	podDups    dupIndex[types.NamespacedName]
	metricDups dupIndex[string]
	skipped    map[string]int
	// kinds lists skipped kinds in order of first appearance.
	kinds []string
}

func newState() *loadState {
	return &loadState{
		objs: Objects{
			NodeMetrics:        map[string]Series{},
			PodMetrics:         map[types.NamespacedName]Series{},
			NodeMetricResource: map[string]Points{},
		},
		nodeDups:   dupIndex[string]{},
		podDups:    dupIndex[types.NamespacedName]{},
		metricDups: dupIndex[string]{},
		skipped:    map[string]int{},
	}
}

// skip counts n skipped objects of kind k ("group/version Kind").
func (st *loadState) skip(k string, n int) {
	if st.skipped[k] == 0 {
		st.kinds = append(st.kinds, k)
	}
	st.skipped[k] += n
}

// merge appends everything of o after what st holds, as if o's objects had
// been loaded into st in their order.
func (st *loadState) merge(o *loadState) {
	st.objs.Nodes = append(st.objs.Nodes, o.objs.Nodes...)
	st.objs.Pods = append(st.objs.Pods, o.objs.Pods...)
	st.objs.PDBs = append(st.objs.PDBs, o.objs.PDBs...)
	st.objs.PriorityClasses = append(st.objs.PriorityClasses, o.objs.PriorityClasses...)
	st.objs.Namespaces = append(st.objs.Namespaces, o.objs.Namespaces...)
	st.objs.PersistentVolumeClaims = append(st.objs.PersistentVolumeClaims, o.objs.PersistentVolumeClaims...)
	st.objs.Deployments = append(st.objs.Deployments, o.objs.Deployments...)
	st.objs.ReplicaSets = append(st.objs.ReplicaSets, o.objs.ReplicaSets...)
	st.objs.StatefulSets = append(st.objs.StatefulSets, o.objs.StatefulSets...)
	st.objs.DaemonSets = append(st.objs.DaemonSets, o.objs.DaemonSets...)
	st.objs.Jobs = append(st.objs.Jobs, o.objs.Jobs...)
	st.objs.ReplicationControllers = append(st.objs.ReplicationControllers, o.objs.ReplicationControllers...)
	for k, s := range o.objs.NodeMetrics {
		addRun(st.objs.NodeMetrics, st.nodeDups, k, s, sampleTime)
	}
	for k, s := range o.objs.PodMetrics {
		addRun(st.objs.PodMetrics, st.podDups, k, s, sampleTime)
	}
	for k, p := range o.objs.NodeMetricResource {
		addRun(st.objs.NodeMetricResource, st.metricDups, k, p, pointTime)
	}
	for _, k := range o.kinds {
		st.skip(k, o.skipped[k])
	}
}

// instant is a time as a map key (time.Time holds a location pointer).
type instant struct {
	sec  int64
	nsec int32
}

func instantOf(t time.Time) instant { return instant{sec: t.Unix(), nsec: int32(t.Nanosecond())} }

func sampleTime(s Sample) time.Time { return s.Time }

func pointTime(p Point) time.Time { return p.Time }

// dupIndex finds duplicate times cheaply. A series whose times only ever
// increased (what collectors and writers produce) needs no index: a time
// after its last one is new. The first time that is not after the last
// builds the set of the series' times, which is kept from then on.
type dupIndex[K comparable] map[K]map[instant]struct{}

// addRun appends vals to series[key], leaving out every value at a time the
// series already holds (the first value for a time is kept). A new series
// gets exactly len(vals) capacity. vals is not retained.
func addRun[K comparable, S ~[]T, T any](series map[K]S, dups dupIndex[K], key K, vals []T, at func(T) time.Time) {
	if len(vals) == 0 {
		return
	}
	s := series[key]
	set, indexed := dups[key]
	if !indexed && increasing(vals, at) && (len(s) == 0 || at(s[len(s)-1]).Before(at(vals[0]))) {
		if s == nil {
			s = make(S, 0, len(vals))
		}
		series[key] = append(s, vals...)
		return
	}
	if !indexed {
		set = make(map[instant]struct{}, len(s)+len(vals))
		for _, v := range s {
			set[instantOf(at(v))] = struct{}{}
		}
		dups[key] = set
	}
	for _, v := range vals {
		t := instantOf(at(v))
		if _, dup := set[t]; dup {
			continue
		}
		set[t] = struct{}{}
		s = append(s, v)
	}
	series[key] = s
}

// increasing reports whether the times of vals strictly increase.
func increasing[T any](vals []T, at func(T) time.Time) bool {
	for i := 1; i < len(vals); i++ {
		if !at(vals[i-1]).Before(at(vals[i])) {
			return false
		}
	}
	return true
}
