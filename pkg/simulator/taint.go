package simulator

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// taints applies the soft taint to the simulated cluster's nodes, with the
// semantics of descheduler.SoftTaint.Sync: present (with the configured
// value) on exactly the wanted considered nodes, absent everywhere else.
type taints struct {
	c          *cluster
	key, value string
}

var _ descheduler.Tainter = (*taints)(nil)

// newTaints returns the applier for profiles, or nil when no strategy can
// use a soft taint (as the live descheduler decides).
func newTaints(c *cluster, profiles []descheduler.Profile) descheduler.Tainter {
	key, value, enabled, capable := descheduler.SoftTaintConfig(profiles)
	if !enabled && !capable {
		return nil
	}
	if !enabled {
		key, value = descheduler.DefaultSoftTaintKey, ""
	}
	return &taints{c: c, key: key, value: value}
}

// Sync implements descheduler.Tainter; every action succeeds.
func (t *taints) Sync(_ context.Context, snap *snapshot.Snapshot, want map[string]bool) ([]descheduler.TaintAction, error) {
	var actions []descheduler.TaintAction
	for _, name := range t.c.order {
		node := t.c.nodes[name]
		_, considered := snap.Node(name)
		w := want[name] && considered
		i := slices.IndexFunc(node.Spec.Taints, t.ours)
		switch {
		case w && (i < 0 || node.Spec.Taints[i].Value != t.value):
			t.set(node, append(withoutIndex(node.Spec.Taints, i),
				v1.Taint{Key: t.key, Value: t.value, Effect: v1.TaintEffectPreferNoSchedule}))
			actions = append(actions, descheduler.TaintAction{Node: name, Action: descheduler.TaintAdd, Done: true})
		case !w && i >= 0:
			t.set(node, withoutIndex(node.Spec.Taints, i))
			actions = append(actions, descheduler.TaintAction{Node: name, Action: descheduler.TaintRemove, Done: true})
		}
	}
	return actions, nil
}

// ours reports whether tn is the soft taint (key and effect identify it).
func (t *taints) ours(tn v1.Taint) bool {
	return tn.Key == t.key && tn.Effect == v1.TaintEffectPreferNoSchedule
}

// set replaces node by a copy with the given taints (node objects are
// shared with earlier snapshots and never modified).
func (t *taints) set(node *v1.Node, taints []v1.Taint) {
	n := *node
	n.Spec.Taints = taints
	t.c.nodes[n.Name] = &n
	t.c.state.SetNode(&n)
}

// withoutIndex returns a new slice of taints without index i (i < 0: all).
func withoutIndex(taints []v1.Taint, i int) []v1.Taint {
	out := make([]v1.Taint, 0, len(taints)+1)
	for j, tn := range taints {
		if j != i {
			out = append(out, tn)
		}
	}
	return out
}
