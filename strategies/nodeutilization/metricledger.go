package nodeutilization

// metricLedger is the MetricResource accounting of a ViewLedger. A pod's
// share of its node's MetricResource is unknown (the query measures the
// node as a whole), so nothing is subtracted pod by pod; instead:
//
//   - LowNodeUtilization (a usage target): a source counts as relieved of
//     MetricResource once it gave up a pod this cycle (whatever pod goes
//     takes some of the node's load), so a node that is a source only
//     because of MetricResource gives up at most one pod per cycle, as
//     upstream does. And since the destinations' MetricResource headroom
//     cannot be reduced per pod either, every destination takes at most one
//     MetricResource-driven eviction per cycle (an eviction that relieves
//     nothing else: see ViewLedger.relief): the slots are the number of
//     destinations. The node cooldown then keeps a relieved node from being
//     picked again before the metric shows the eviction.
//   - HighNodeUtilization (no target: sources are drained): all the pods of
//     a source together carry at most its whole MetricResource, so a source
//     is drained only when its percentage (in basis points) fits into the
//     destinations' MetricResource headroom, sum over destinations of
//     (100% - used), and is reserved from it when its first pod leaves;
//     planning stops when the headroom reaches 0. The bound treats
//     percentage points of different nodes alike, which is exact for nodes
//     of one size and conservative for moves onto larger nodes.
type metricLedger struct {
	// high is true for HighNodeUtilization's accounting.
	high bool
	// slots are the MetricResource-driven evictions the destinations can
	// still take (LowNodeUtilization).
	slots int
	// headroom is the destinations' free MetricResource in basis points
	// (HighNodeUtilization).
	headroom int64
	// gave are the sources a pod was taken from this cycle.
	gave map[string]bool
}

// metricInput is the input of newMetricLedger.
type metricInput struct {
	// dests and sources are request views paired with usage views that
	// measure MetricResource.
	dests, sources []*NodeUtil
	// removed counts the pods evicted from each node earlier in the cycle
	// (Views.Removed).
	removed map[string]int
	// target is the usage target (LowNodeUtilization).
	target Thresholds
	// high selects HighNodeUtilization's accounting.
	high bool
}

// newMetricLedger returns the accounting of in. The rules hold per cycle,
// not per plan: a strategy plans again after a failed eviction, and later
// strategies plan, on a working snapshot from which the cycle's evictions
// are gone (Views.Removed) while the metric does not show them yet. So a
// source that already lost pods this cycle counts as having given up its
// pod (LowNodeUtilization) or as reserved (HighNodeUtilization), and every
// such source still over target by MetricResource is taken to have used a
// destination slot (conservative: its eviction may have been cpu-driven).
func newMetricLedger(in metricInput) *metricLedger {
	m := &metricLedger{high: in.high, slots: len(in.dests), gave: map[string]bool{}}
	for _, d := range in.dests {
		if d.Usage != nil {
			m.headroom += d.Usage.Capacity.Get(MetricResource) - d.Usage.Used.Get(MetricResource)
		}
	}
	for _, s := range in.sources {
		if in.removed[s.Name()] == 0 || s.Usage == nil {
			continue
		}
		if in.high {
			m.move(s, false)
			continue
		}
		m.gave[s.Name()] = true
		if limit, ok := in.target[MetricResource]; ok && s.Usage.Percent(MetricResource) > limit {
			m.slots--
		}
	}
	return m
}

// spent reports whether src's MetricResource needs no more relief this
// cycle: it gave up a pod, or no destination slot is left
// (LowNodeUtilization).
func (m *metricLedger) spent(src *NodeUtil) bool {
	return m.gave[src.Name()] || (!m.high && m.slots <= 0)
}

// move records that a pod left src; driven: MetricResource alone made it
// go (it takes a destination slot).
func (m *metricLedger) move(src *NodeUtil, driven bool) {
	if m.high && !m.gave[src.Name()] {
		m.headroom -= src.Usage.Used.Get(MetricResource)
	}
	m.gave[src.Name()] = true
	if driven && !m.high {
		m.slots--
	}
}

// fits reports whether the destinations can take all of src's
// MetricResource (HighNodeUtilization): already reserved, or at most the
// headroom.
func (m *metricLedger) fits(src *NodeUtil) bool {
	return m.gave[src.Name()] || src.Usage.Used.Get(MetricResource) <= m.headroom
}

// exhausted reports whether the destinations' MetricResource headroom is
// used up (HighNodeUtilization).
func (m *metricLedger) exhausted() bool { return m.high && m.headroom <= 0 }
