package simulator

import (
	"context"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// taints applies the soft taints to the simulated cluster's nodes, with
// the semantics of descheduler.SoftTaint.Sync: each wanted taint present
// (with its value) on the wanted considered nodes, and every taint the
// simulation put on a node (or a descheduler instance owned in the
// snapshot, see descheduler.SoftTaintOwnersAnnotation) removed once it is
// no longer wanted there. Other taints are never touched; a wanted key
// such a taint already has is left to it.
type taints struct {
	c *cluster
	// mine is, per node, the keys of the taints the simulation put there.
	mine map[string]map[string]bool
}

var _ descheduler.Tainter = (*taints)(nil)

// newTaints returns the applier for profiles, or nil when no strategy can
// use a soft taint.
func newTaints(c *cluster, profiles []descheduler.Profile) descheduler.Tainter {
	if _, _, enabled, capable := descheduler.SoftTaintConfig(profiles); !enabled && !capable {
		return nil
	}
	return &taints{c: c, mine: map[string]map[string]bool{}}
}

// Sync implements descheduler.Tainter; every action succeeds.
func (t *taints) Sync(_ context.Context, snap *snapshot.Snapshot, wants []descheduler.TaintWant) ([]descheduler.TaintAction, error) {
	var actions []descheduler.TaintAction
	for _, name := range t.c.order {
		want := map[string]string{}
		if _, considered := snap.Node(name); considered {
			for _, w := range wants {
				if _, seen := want[w.Key]; !seen && w.Nodes[name] {
					want[w.Key] = w.Value
				}
			}
		}
		actions = append(actions, t.syncNode(name, want)...)
	}
	return actions, nil
}

// syncNode makes the simulation's taints on node name exactly want.
func (t *taints) syncNode(name string, want map[string]string) []descheduler.TaintAction {
	node := t.c.nodes[name]
	taints := slices.Clone(node.Spec.Taints)
	mine := t.mine[name]
	if mine == nil {
		// The simulated descheduler plays the live one: the taints the
		// snapshot's node says a descheduler instance owns are its own.
		mine = map[string]bool{}
		for _, k := range descheduler.OwnedSoftTaintKeys(node) {
			mine[k] = true
		}
	}
	var actions []descheduler.TaintAction
	keys := slices.Sorted(maps.Keys(mine))
	for k := range want {
		if !mine[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		i := slices.IndexFunc(taints, func(tn v1.Taint) bool {
			return tn.Key == key && tn.Effect == v1.TaintEffectPreferNoSchedule
		})
		value, wanted := want[key]
		switch {
		case mine[key] && !wanted:
			if i >= 0 {
				taints = slices.Delete(taints, i, i+1)
			}
			delete(mine, key)
			actions = append(actions, descheduler.TaintAction{Node: name, Key: key, Action: descheduler.TaintRemove, Done: true})
		case wanted && i >= 0 && !mine[key], wanted && i >= 0 && taints[i].Value == value:
			// Not ours, or already as wanted.
		case wanted && i >= 0:
			taints[i].Value = value
			actions = append(actions, descheduler.TaintAction{Node: name, Key: key, Action: descheduler.TaintAdd, Done: true})
		case wanted:
			taints = append(taints, v1.Taint{Key: key, Value: value, Effect: v1.TaintEffectPreferNoSchedule})
			mine[key] = true
			actions = append(actions, descheduler.TaintAction{Node: name, Key: key, Action: descheduler.TaintAdd, Done: true})
		}
	}
	t.mine[name] = mine
	if len(actions) > 0 {
		t.set(node, taints)
	}
	return actions
}

// set replaces node by a copy with the given taints (node objects are
// shared with earlier snapshots and never modified).
func (t *taints) set(node *v1.Node, taints []v1.Taint) {
	n := *node
	n.Spec.Taints = taints
	t.c.nodes[n.Name] = &n
	t.c.state.SetNode(&n)
}
