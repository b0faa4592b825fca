package descheduler

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// DefaultSoftTaintKey is the soft taint's key when a strategy names none.
const DefaultSoftTaintKey = "descheduler.usage.io/overutilized"

// DefaultInstanceName is the instance name when neither --instance-name
// nor a lease namespace is known.
const DefaultInstanceName = "descheduler"

// The TaintAction kinds.
const (
	// TaintAdd adds the soft taint (or corrects its value).
	TaintAdd = "add"
	// TaintRemove removes the soft taint.
	TaintRemove = "remove"
)

// TaintAction is one change of one soft taint on one node.
type TaintAction struct {
	// Node is the node's name.
	Node string
	// Key is the taint's key.
	Key string
	// Owner is the instance owning the taint (set by Untaint only).
	Owner string
	// Action is TaintAdd or TaintRemove.
	Action string
	// Done: the node is now as wanted (patched, or found so on re-read).
	// False in dry run, on error, and for a node that vanished (404, not
	// an error).
	Done bool
	// Err is why the action failed.
	Err error
}

// TaintWant is one soft taint the policy asks for in this cycle.
type TaintWant struct {
	// Key and Value are the taint's (its effect is PreferNoSchedule).
	Key, Value string
	// Nodes are the considered nodes that should carry it now.
	Nodes map[string]bool
}

// SoftTaint steers the kube-scheduler away from hot nodes with
// PreferNoSchedule taints while leaving every other taint alone. It needs
// RBAC verbs get, list and patch on nodes.
//
// Ownership is explicit: the node annotation SoftTaintOwnersAnnotation
// records, per instance name, the soft taints (key and value) the
// instance put on the node. SoftTaint only removes or changes taints its
// Instance owns, so instances sharded by nodeSelector never undo each
// other's work, and an administrator's PreferNoSchedule taint with the
// same key is neither removed nor replaced (the node then simply keeps
// the administrator's taint).
//
// Changes are conflict-safe the way the node lifecycle controller does
// them (k8s.io/kubernetes controller.PatchNodeTaints): spec.taints has no
// merge key, so a patch must carry the whole list; the JSON merge patch
// sent also carries the node's metadata.resourceVersion, which the API
// server treats as a precondition. A concurrent change of the node makes
// it fail with Conflict; the node is then read again and the change
// recomputed (retry.RetryOnConflict), so others' changes are never
// clobbered. Only /spec/taints and the owners annotation are written. The
// first attempt uses the snapshot's node (informer cache).
//
// Owned taints that are no longer wanted are removed wherever they are:
// on the considered nodes, and on nodes the snapshot excludes (outside
// the nodeSelector, not Ready). The snapshot holds only the excluded
// nodes' names, so SoftTaint remembers the nodes where it owns a taint
// and, on its first live Sync (and after Relist), lists every node once
// to find the taints an earlier process of the same instance left. Use
// one SoftTaint per process.
type SoftTaint struct {
	// Client talks to the API server.
	Client kubernetes.Interface
	// Instance names the owner of the taints (see ValidateInstanceName).
	Instance string
	// DryRun only reports the actions: no API call at all.
	DryRun bool

	mu     sync.Mutex
	listed bool
	owns   map[string]bool
}

var _ Tainter = (*SoftTaint)(nil)

// Relist makes the next Sync list every node again, e.g. when this
// process becomes the leader after another process of the same instance
// led (and may have tainted nodes this one does not know about).
func (s *SoftTaint) Relist() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listed = false
}

// taintPlan is the change of one node.
type taintPlan struct {
	name string
	node *v1.Node // nil: read it from the API
	want map[string]string
	keys keyChanges
}

// Sync makes the soft taints this instance owns exactly wants: each
// want's taint present on its wanted considered nodes (unless a taint
// with its key that is not ours is there), and every other owned taint
// removed, including those whose key no longer appears in wants (a key
// changed, a profile or the soft taint dropped from the policy) and those
// on nodes the snapshot excludes. Actions are in node-name order,
// considered nodes first, then by key. err joins every failed action (and
// a failed initial list); the actions that could be done are done.
func (s *SoftTaint) Sync(ctx context.Context, snap *snapshot.Snapshot, wants []TaintWant) ([]TaintAction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owns == nil {
		s.owns = map[string]bool{}
	}
	var errs []error
	if !s.DryRun && !s.listed {
		if err := s.listOwned(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	plans, err := s.plan(ctx, snap, wants)
	errs = append(errs, err)
	var actions []TaintAction
	for _, p := range plans {
		keys, done, err := p.keys, false, error(nil)
		if !s.DryRun {
			done, keys, err = s.apply(ctx, p)
			errs = append(errs, err)
		}
		for _, a := range actionsOf(p.name, keys, done, err) {
			klog.FromContext(ctx).V(2).Info("Soft taint", "node", klog.KRef("", a.Node), "key", a.Key,
				"action", a.Action, "done", a.Done, "dryRun", s.DryRun, "err", a.Err)
			actions = append(actions, a)
		}
	}
	return actions, errors.Join(errs...)
}

// plan returns the nodes to change: considered nodes whose owned taints
// differ from wants, then remembered excluded nodes (all their owned
// taints go). Nodes the snapshot does not know at all (deleted) are
// forgotten.
func (s *SoftTaint) plan(ctx context.Context, snap *snapshot.Snapshot, wants []TaintWant) ([]taintPlan, error) {
	var plans []taintPlan
	var errs []error
	for _, ni := range snap.Nodes() {
		want := wantOn(wants, ni.Name())
		nt, err := newNodeTaints(ni.Node)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Listed as its own even when the taint is gone: the write then
		// drops the stale entry.
		if !nt.listed[s.Instance] && len(want) == 0 {
			delete(s.owns, ni.Name())
			continue
		}
		s.owns[ni.Name()] = true
		keys := nt.sync(s.Instance, want)
		if len(keys.Foreign) > 0 {
			klog.FromContext(ctx).V(2).Info("Soft taint left to its owner", "node", klog.KObj(ni.Node), "keys", keys.Foreign)
		}
		if changed, err := nt.changed(ni.Node); err != nil || changed {
			plans = append(plans, taintPlan{name: ni.Name(), node: ni.Node, want: want, keys: keys})
		}
	}
	excluded := make(map[string]bool, len(snap.Excluded()))
	for _, ex := range snap.Excluded() {
		excluded[ex.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(s.owns)) {
		if _, considered := snap.Node(name); considered {
			continue
		}
		if !excluded[name] {
			delete(s.owns, name)
			continue
		}
		plans = append(plans, taintPlan{name: name})
	}
	return plans, errors.Join(errs...)
}

// wantOn returns the taints wanted on node: key -> value (the first want
// of a key wins).
func wantOn(wants []TaintWant, node string) map[string]string {
	out := map[string]string{}
	for _, w := range wants {
		if _, seen := out[w.Key]; !seen && w.Nodes[node] {
			out[w.Key] = w.Value
		}
	}
	return out
}

// actionsOf turns one node's key changes into actions.
func actionsOf(node string, keys keyChanges, done bool, err error) []TaintAction {
	var out []TaintAction
	for _, k := range keys.Removed {
		out = append(out, TaintAction{Node: node, Key: k, Action: TaintRemove, Done: done, Err: err})
	}
	for _, k := range keys.Added {
		out = append(out, TaintAction{Node: node, Key: k, Action: TaintAdd, Done: done, Err: err})
	}
	slices.SortStableFunc(out, func(a, b TaintAction) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// listOwned remembers every node where this instance owns a soft taint.
func (s *SoftTaint) listOwned(ctx context.Context) error {
	list, err := s.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return fmt.Errorf("listing nodes for the soft taints of %s: %w", s.Instance, err)
	}
	for i := range list.Items {
		if owners, err := parseOwners(&list.Items[i]); err == nil && len(owners[s.Instance]) > 0 {
			s.owns[list.Items[i].Name] = true
		}
	}
	s.listed = true
	return nil
}

// apply carries out one plan, starting from p.node (nil: read it), and
// recomputing the change on the node read again after a Conflict. It
// returns whether the node is now as wanted and the keys changed by the
// last attempt.
func (s *SoftTaint) apply(ctx context.Context, p taintPlan) (bool, keyChanges, error) {
	res, err := patchTaints(ctx, s.Client, p.name, p.node, func(nt *nodeTaints) keyChanges {
		return nt.sync(s.Instance, p.want)
	})
	if res.nt != nil {
		p.keys = res.keys
	}
	switch {
	case err != nil:
		return false, p.keys, fmt.Errorf("soft taints of %s on node %s: %w", s.Instance, p.name, err)
	case res.vanished:
		delete(s.owns, p.name)
		return false, p.keys, nil
	case len(res.nt.owners[s.Instance]) > 0:
		s.owns[p.name] = true
	default:
		delete(s.owns, p.name)
	}
	return true, res.keys, nil
}

// patchResult is the outcome of patchTaints.
type patchResult struct {
	nt       *nodeTaints // the node's taints and owners as written
	keys     keyChanges  // the change of the last attempt
	vanished bool        // the node is gone (404)
}

// patchTaints applies change to the node (starting from node, nil: read
// it) with a conditional patch, re-reading the node and recomputing the
// change after each Conflict. An unchanged node is not patched.
func patchTaints(ctx context.Context, client kubernetes.Interface, name string, node *v1.Node,
	change func(*nodeTaints) keyChanges) (patchResult, error) {
	nodes := client.CoreV1().Nodes()
	var res patchResult
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cur := node
		node = nil // every retry reads the node again
		if cur == nil {
			got, err := nodes.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				res.vanished = true
				return nil
			}
			if err != nil {
				return err
			}
			cur = got
		}
		nt, err := newNodeTaints(cur)
		if err != nil {
			return err
		}
		res.nt, res.keys = nt, change(nt)
		changed, err := nt.changed(cur)
		if err != nil || !changed {
			return err
		}
		patch, err := taintPatch(cur.ResourceVersion, nt)
		if err != nil {
			return err
		}
		_, err = nodes.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			res.vanished = true
			return nil
		}
		return err
	})
	return res, err
}

// taintPatch is a JSON merge patch that replaces spec.taints and sets (or
// removes) the owners annotation, conditional on resourceVersion (when
// known).
func taintPatch(resourceVersion string, nt *nodeTaints) ([]byte, error) {
	owners, err := nt.owners.encode()
	if err != nil {
		return nil, err
	}
	type meta struct {
		ResourceVersion string             `json:"resourceVersion,omitempty"`
		Annotations     map[string]*string `json:"annotations"`
	}
	type spec struct {
		Taints []v1.Taint `json:"taints"`
	}
	body := struct {
		Metadata meta `json:"metadata"`
		Spec     spec `json:"spec"`
	}{meta{resourceVersion, map[string]*string{SoftTaintOwnersAnnotation: owners}}, spec{nt.taints}}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the taint patch: %w", err)
	}
	return data, nil
}
