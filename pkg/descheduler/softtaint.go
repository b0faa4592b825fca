package descheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// DefaultSoftTaintKey is the soft taint's key when SoftTaint.Key is empty.
const DefaultSoftTaintKey = "descheduler.usage.io/overutilized"

// The TaintAction kinds.
const (
	// TaintAdd adds the soft taint (or corrects its value).
	TaintAdd = "add"
	// TaintRemove removes the soft taint.
	TaintRemove = "remove"
)

// TaintAction is one change of the soft taint on one node.
type TaintAction struct {
	// Node is the node's name.
	Node string
	// Action is TaintAdd or TaintRemove.
	Action string
	// Done: the node is now as wanted (patched, or found so on re-read).
	// False in dry run, on error, and for a node that vanished (404, not
	// an error).
	Done bool
	// Err is why the action failed.
	Err error
}

// SoftTaint steers the kube-scheduler away from hot nodes with a
// PreferNoSchedule taint (Key=Value) while leaving every other taint alone.
// It needs RBAC verbs get, list and patch on nodes.
//
// Changes are conflict-safe the way the node lifecycle controller does
// them (k8s.io/kubernetes controller.PatchNodeTaints): spec.taints has no
// merge key, so a patch must carry the whole list; the JSON merge patch
// sent also carries the node's metadata.resourceVersion, which the API
// server treats as a precondition. A concurrent change of the node (a
// taint added by someone else) makes it fail with Conflict; the node is
// then read again and the list recomputed (retry.RetryOnConflict), so
// others' taint changes are never clobbered. Only /spec/taints is written:
// no Update of the whole object that could drop fields unknown to this
// client. The first attempt uses the snapshot's node (informer cache).
//
// Nodes that are no longer considered (excluded by the nodeSelector, not
// Ready) lose the taint too. The snapshot holds only their names, so
// SoftTaint remembers the nodes it saw or left tainted and, on its first
// live Sync, lists every node once to find taints a previous process left.
// Use one SoftTaint per process.
type SoftTaint struct {
	// Client talks to the API server.
	Client kubernetes.Interface
	// Key is the taint's key; empty: DefaultSoftTaintKey.
	Key string
	// Value is the taint's value.
	Value string
	// DryRun only reports the actions: no API call at all.
	DryRun bool

	mu      sync.Mutex
	listed  bool
	tainted map[string]bool
}

var _ Tainter = (*SoftTaint)(nil)

func (s *SoftTaint) key() string {
	if s.Key != "" {
		return s.Key
	}
	return DefaultSoftTaintKey
}

// ours reports whether t is the soft taint (by key and effect, the identity
// of a taint), whatever its value.
func (s *SoftTaint) ours(t v1.Taint) bool {
	return t.Key == s.key() && t.Effect == v1.TaintEffectPreferNoSchedule
}

// state returns whether node carries the soft taint, and with our value.
func (s *SoftTaint) state(node *v1.Node) (present, exact bool) {
	for _, t := range node.Spec.Taints {
		if s.ours(t) {
			return true, t.Value == s.Value
		}
	}
	return false, false
}

// Sync makes the soft taint present on exactly the considered nodes of
// snap with want[node] true: it is added where wanted and absent (or
// present with another value), and removed where present and not wanted,
// including nodes missing from want (an empty want removes it everywhere:
// the feature turned off) and nodes the snapshot excludes. Actions are in
// node-name order, considered nodes first. err joins every failed action
// (and a failed initial list); the actions that could be done are done.
func (s *SoftTaint) Sync(ctx context.Context, snap *snapshot.Snapshot, want map[string]bool) (actions []TaintAction, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tainted == nil {
		s.tainted = map[string]bool{}
	}
	var errs []error
	if !s.DryRun && !s.listed {
		if err := s.listTainted(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	type plan struct {
		action TaintAction
		node   *v1.Node // nil: read it from the API
	}
	var plans []plan
	for _, ni := range snap.Nodes() {
		present, exact := s.state(ni.Node)
		if present {
			s.tainted[ni.Name()] = true
		}
		switch wanted := want[ni.Name()]; {
		case wanted && !exact:
			plans = append(plans, plan{TaintAction{Node: ni.Name(), Action: TaintAdd}, ni.Node})
		case !wanted && present:
			plans = append(plans, plan{TaintAction{Node: ni.Name(), Action: TaintRemove}, ni.Node})
		}
	}
	for _, name := range s.excludedTainted(snap) {
		plans = append(plans, plan{TaintAction{Node: name, Action: TaintRemove}, nil})
	}
	for _, p := range plans {
		a := p.action
		if !s.DryRun {
			a.Done, a.Err = s.apply(ctx, a, p.node)
			if a.Err != nil {
				errs = append(errs, a.Err)
			}
		}
		klog.FromContext(ctx).V(2).Info("Soft taint", "node", klog.KRef("", a.Node), "action", a.Action,
			"done", a.Done, "dryRun", s.DryRun, "err", a.Err)
		actions = append(actions, a)
	}
	return actions, errors.Join(errs...)
}

// listTainted remembers every node that carries the soft taint, once.
func (s *SoftTaint) listTainted(ctx context.Context) error {
	list, err := s.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return fmt.Errorf("listing nodes for the soft taint %s: %w", s.key(), err)
	}
	for i := range list.Items {
		if present, _ := s.state(&list.Items[i]); present {
			s.tainted[list.Items[i].Name] = true
		}
	}
	s.listed = true
	return nil
}

// excludedTainted returns, sorted, the remembered tainted nodes that snap
// excludes, and forgets those snap does not know at all (deleted).
func (s *SoftTaint) excludedTainted(snap *snapshot.Snapshot) []string {
	excluded := make(map[string]bool, len(snap.Excluded()))
	for _, ex := range snap.Excluded() {
		excluded[ex.Name] = true
	}
	var out []string
	for name := range s.tainted {
		if _, considered := snap.Node(name); considered {
			continue
		}
		if excluded[name] {
			out = append(out, name)
		} else {
			delete(s.tainted, name)
		}
	}
	slices.Sort(out)
	return out
}

// apply carries out one action, starting from node (nil: read it), and
// re-reading the node after a Conflict.
func (s *SoftTaint) apply(ctx context.Context, a TaintAction, node *v1.Node) (done bool, err error) {
	nodes := s.Client.CoreV1().Nodes()
	vanished := false
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cur := node
		node = nil // every retry reads the node again
		if cur == nil {
			got, err := nodes.Get(ctx, a.Node, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				vanished = true
				return nil
			}
			if err != nil {
				return err
			}
			cur = got
		}
		taints, changed := s.desired(cur.Spec.Taints, a.Action == TaintAdd)
		if !changed {
			done = true
			return nil
		}
		patch, err := taintPatch(cur.ResourceVersion, taints)
		if err != nil {
			return err
		}
		_, err = nodes.Patch(ctx, a.Node, types.MergePatchType, patch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			vanished = true
			return nil
		}
		done = err == nil
		return err
	})
	switch {
	case err != nil:
		return false, fmt.Errorf("%s soft taint %s on node %s: %w", a.Action, s.key(), a.Node, err)
	case vanished:
		delete(s.tainted, a.Node)
		return false, nil
	case a.Action == TaintAdd:
		s.tainted[a.Node] = true
	default:
		delete(s.tainted, a.Node)
	}
	return done, nil
}

// desired returns taints without the soft taint, plus it when add, and
// whether that differs from taints. Other taints keep their order.
func (s *SoftTaint) desired(taints []v1.Taint, add bool) ([]v1.Taint, bool) {
	out := make([]v1.Taint, 0, len(taints)+1)
	for _, t := range taints {
		if !s.ours(t) {
			out = append(out, t)
		}
	}
	if add {
		out = append(out, v1.Taint{Key: s.key(), Value: s.Value, Effect: v1.TaintEffectPreferNoSchedule})
	}
	changed := !slices.EqualFunc(taints, out, func(a, b v1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value })
	return out, changed
}

// taintPatch is a JSON merge patch that replaces spec.taints, conditional
// on resourceVersion (when known).
func taintPatch(resourceVersion string, taints []v1.Taint) ([]byte, error) {
	type meta struct {
		ResourceVersion string `json:"resourceVersion,omitempty"`
	}
	type spec struct {
		Taints []v1.Taint `json:"taints"`
	}
	body := struct {
		Metadata meta `json:"metadata"`
		Spec     spec `json:"spec"`
	}{meta{resourceVersion}, spec{taints}}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the taint patch: %w", err)
	}
	return data, nil
}
