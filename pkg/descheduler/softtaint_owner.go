package descheduler

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// SoftTaintOwnersAnnotation is the node annotation that says which
// descheduler instance owns which soft taint of the node. Its value is a
// JSON object: instance name -> taint key -> taint value, e.g.
//
//	{"kube-system/descheduler":{"descheduler.usage.io/overutilized":""}}
//
// A PreferNoSchedule taint is owned by an instance when the annotation
// lists it under that instance with the taint's current value; any other
// taint (an administrator's with the same key, or one whose value was
// changed by hand) belongs to somebody else and is never touched. Entries
// whose taint is gone are dropped at the next write of the node, and an
// instance that adds a taint drops the other instances' entries for its
// key, so a taint removed by hand and added again belongs only to the
// instance that added it again.
const SoftTaintOwnersAnnotation = "descheduler.usage.io/soft-taint-owners"

// maxInstanceName bounds an instance name (a DNS subdomain's length).
const maxInstanceName = 253

var instanceNameRE = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$`)

// ValidateInstanceName checks an instance name: 1 to 253 characters,
// letters, digits, '-', '_', '.' and '/', starting and ending with a
// letter or digit (e.g. "kube-system/descheduler").
func ValidateInstanceName(name string) error {
	if len(name) == 0 || len(name) > maxInstanceName || !instanceNameRE.MatchString(name) {
		return fmt.Errorf("instance name %q must be 1-%d characters of letters, digits, '-', '_', '.' and '/', "+
			"starting and ending with a letter or digit", name, maxInstanceName)
	}
	return nil
}

// taintOwners is the decoded SoftTaintOwnersAnnotation.
type taintOwners map[string]map[string]string

// parseOwners decodes the node's owners annotation (empty when absent).
func parseOwners(node *v1.Node) (taintOwners, error) {
	raw, ok := node.Annotations[SoftTaintOwnersAnnotation]
	if !ok || raw == "" {
		return taintOwners{}, nil
	}
	var o taintOwners
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return nil, fmt.Errorf("node %s: annotation %s: %w", node.Name, SoftTaintOwnersAnnotation, err)
	}
	if o == nil {
		o = taintOwners{}
	}
	return o, nil
}

// encode returns the annotation's value; nil when nobody owns anything
// (the annotation is then removed).
func (o taintOwners) encode() (*string, error) {
	if len(o) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(o) // map keys are sorted: a stable value
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", SoftTaintOwnersAnnotation, err)
	}
	s := string(data)
	return &s, nil
}

// nodeTaints is a node's taints and taint owners being changed; the node
// object itself is never modified.
type nodeTaints struct {
	taints []v1.Taint
	owners taintOwners
	// listed are the instances the annotation named before stale entries
	// were dropped: an instance listed with only stale entries still
	// writes the node, which drops them from the annotation.
	listed map[string]bool
}

// newNodeTaints copies the taints and owners of node, without the owner
// entries whose taint the node no longer carries with that value (removed
// or changed by hand): such an entry owns nothing, and kept it would let
// its instance take a taint another instance adds later with the same key
// and value. A write of the node drops them from the annotation.
func newNodeTaints(node *v1.Node) (*nodeTaints, error) {
	owners, err := parseOwners(node)
	if err != nil {
		return nil, err
	}
	n := &nodeTaints{taints: slices.Clone(node.Spec.Taints), owners: make(taintOwners, len(owners)),
		listed: make(map[string]bool, len(owners))}
	for inst, keys := range owners {
		n.listed[inst] = true
		n.owners[inst] = maps.Clone(keys)
		n.owned(inst)
	}
	return n, nil
}

// keyChanges are the soft-taint keys one instance changed on one node.
type keyChanges struct {
	// Added are the keys added, or whose value was corrected.
	Added []string
	// Removed are the keys removed.
	Removed []string
	// Foreign are wanted keys left alone: the node already carries a
	// PreferNoSchedule taint with that key that this instance does not
	// own (an administrator's, or another instance's).
	Foreign []string
}

func (c keyChanges) empty() bool { return len(c.Added) == 0 && len(c.Removed) == 0 }

// find returns the index of the PreferNoSchedule taint with key (-1: none).
func (n *nodeTaints) find(key string) int {
	return slices.IndexFunc(n.taints, func(t v1.Taint) bool {
		return t.Key == key && t.Effect == v1.TaintEffectPreferNoSchedule
	})
}

// owned returns the taints instance owns on the node (key -> value): those
// the annotation lists under instance that the node carries with that
// value. Entries that no longer match a taint are dropped from the owners.
func (n *nodeTaints) owned(instance string) map[string]string {
	out := map[string]string{}
	for key, value := range n.owners[instance] {
		if i := n.find(key); i >= 0 && n.taints[i].Value == value {
			out[key] = value
		}
	}
	n.setOwned(instance, out)
	return out
}

func (n *nodeTaints) setOwned(instance string, keys map[string]string) {
	if len(keys) == 0 {
		delete(n.owners, instance)
		return
	}
	n.owners[instance] = keys
}

// sync makes the taints instance owns on the node exactly want (key ->
// value): owned taints not wanted are removed, owned taints with another
// value get the wanted one, wanted taints are added where the node has no
// PreferNoSchedule taint with that key. Taints it does not own are kept.
func (n *nodeTaints) sync(instance string, want map[string]string) keyChanges {
	var c keyChanges
	owned := n.owned(instance)
	for _, key := range slices.Sorted(maps.Keys(owned)) {
		value, wanted := want[key]
		i := n.find(key)
		switch {
		case !wanted:
			n.taints = slices.Delete(n.taints, i, i+1)
			delete(owned, key)
			c.Removed = append(c.Removed, key)
		case value != owned[key]:
			n.taints[i].Value = value
			owned[key] = value
			c.Added = append(c.Added, key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if _, ok := owned[key]; ok {
			continue
		}
		if n.find(key) >= 0 {
			c.Foreign = append(c.Foreign, key)
			continue
		}
		n.taints = append(n.taints, v1.Taint{Key: key, Value: want[key], Effect: v1.TaintEffectPreferNoSchedule})
		owned[key] = want[key]
		n.disown(instance, key)
		c.Added = append(c.Added, key)
	}
	slices.Sort(c.Added)
	n.setOwned(instance, owned)
	return c
}

// disown drops every other instance's entry for key: a taint an instance
// has just added is its alone.
func (n *nodeTaints) disown(instance, key string) {
	for inst, keys := range n.owners {
		if inst == instance {
			continue
		}
		if _, ok := keys[key]; ok {
			delete(keys, key)
			n.setOwned(inst, keys)
		}
	}
}

// changed reports whether the taints or the owners differ from node's.
func (n *nodeTaints) changed(node *v1.Node) (bool, error) {
	if !slices.EqualFunc(node.Spec.Taints, n.taints, func(a, b v1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		return true, nil
	}
	before, err := parseOwners(node)
	if err != nil {
		return false, err
	}
	return !ownersEqual(before, n.owners), nil
}

func ownersEqual(a, b taintOwners) bool {
	return maps.EqualFunc(a, b, func(x, y map[string]string) bool { return maps.Equal(x, y) })
}

// OwnedSoftTaintKeys returns, sorted, the keys of the node's soft taints
// owned by any instance (as SoftTaintOwnersAnnotation records them); none
// when the annotation is absent or unreadable.
func OwnedSoftTaintKeys(node *v1.Node) []string {
	nt, err := newNodeTaints(node)
	if err != nil {
		return nil
	}
	keys := map[string]bool{}
	for inst := range nt.owners {
		for k := range nt.owned(inst) {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}
