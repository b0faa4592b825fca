package descheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Untaint removes the soft taints that descheduler instances own (see
// SoftTaintOwnersAnnotation) from every node: the way out when a
// descheduler is uninstalled. Taints nobody owns are never touched.
type Untaint struct {
	// Client talks to the API server (verbs list and patch on nodes).
	Client kubernetes.Interface
	// Instance is the owner whose taints are removed; ignored with All.
	Instance string
	// All removes the taints of every instance.
	All bool
	// DryRun lists what would be removed and changes nothing.
	DryRun bool
}

// Run lists the nodes and removes the owned soft taints, node by node
// (conflict-safe like SoftTaint), dropping the owners' entries from the
// annotation. It returns one TaintRemove action per taint, in node, owner
// and key order, and every failure joined; the other nodes are still
// done.
func (u *Untaint) Run(ctx context.Context) ([]TaintAction, error) {
	list, err := u.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	var actions []TaintAction
	var errs []error
	for i := range list.Items {
		node := &list.Items[i]
		if _, ok := node.Annotations[SoftTaintOwnersAnnotation]; !ok {
			continue
		}
		removed, err := u.node(ctx, node)
		actions = append(actions, removed...)
		if err != nil {
			errs = append(errs, fmt.Errorf("removing soft taints from node %s: %w", node.Name, err))
		}
	}
	return actions, errors.Join(errs...)
}

// node removes the selected owners' taints from one node.
func (u *Untaint) node(ctx context.Context, node *v1.Node) ([]TaintAction, error) {
	var removed []TaintAction
	release := func(nt *nodeTaints) keyChanges {
		removed = nil
		var all keyChanges
		for _, inst := range u.owners(nt) {
			keys := nt.sync(inst, nil)
			for _, k := range keys.Removed {
				removed = append(removed, TaintAction{Node: node.Name, Key: k, Owner: inst, Action: TaintRemove})
			}
			all.Removed = append(all.Removed, keys.Removed...)
		}
		return all
	}
	if u.DryRun {
		nt, err := newNodeTaints(node)
		if err != nil {
			return nil, err
		}
		release(nt)
		return removed, nil
	}
	res, err := patchTaints(ctx, u.Client, node.Name, node, release)
	for i := range removed {
		removed[i].Done = err == nil && !res.vanished
		removed[i].Err = err
	}
	return removed, err
}

// owners returns, sorted, the instances whose taints go from nt.
func (u *Untaint) owners(nt *nodeTaints) []string {
	if !u.All {
		return []string{u.Instance}
	}
	return slices.Sorted(maps.Keys(nt.owners))
}
