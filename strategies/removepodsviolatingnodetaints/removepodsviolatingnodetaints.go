package removepodsviolatingnodetaints

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemovePodsViolatingNodeTaints"

// Plugin returns the registry entry of RemovePodsViolatingNodeTaints (a
// Deschedule plugin).
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	if errs := a.Validate(field.NewPath("args")); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", PluginName, errs.ToAggregate())
	}
	m, err := a.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	return &RemovePodsViolatingNodeTaints{preferNoSchedule: a.IncludePreferNoSchedule, match: m,
		excluded: newTaintSet(a.ExcludedTaints), included: newTaintSet(a.IncludedTaints)}, nil
}

// RemovePodsViolatingNodeTaints evicts pods that do not tolerate a
// NoSchedule (optionally PreferNoSchedule) taint of their node.
type RemovePodsViolatingNodeTaints struct {
	preferNoSchedule bool
	match            podfilter.Matcher
	excluded         taintSet
	included         taintSet
}

var _ framework.Strategy = (*RemovePodsViolatingNodeTaints)(nil)

// Name returns PluginName.
func (s *RemovePodsViolatingNodeTaints) Name() string { return PluginName }

// Plan returns, node by node, the pods that do not tolerate one of the
// node's considered taints.
func (s *RemovePodsViolatingNodeTaints) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx)
	var out []framework.Candidate
	var taints []v1.Taint
	for _, ni := range snap.Nodes() {
		taints = s.consideredTaints(taints[:0], ni.Node)
		if len(taints) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("planning %s: %w", PluginName, err)
		}
		for _, pi := range ni.Pods {
			if c, ok := s.check(logger, pi.Pod, ni.Name(), taints, ev); ok {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// check returns the candidate for pod when it does not tolerate one of
// taints and passes the filters.
func (s *RemovePodsViolatingNodeTaints) check(logger klog.Logger, pod *v1.Pod, node string, taints []v1.Taint,
	ev framework.Evictor) (framework.Candidate, bool) {
	if snapshot.IsTerminal(pod) || !s.match.Match(pod) {
		return framework.Candidate{}, false
	}
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(taints, pod.Spec.Tolerations, nil)
	if !untolerated {
		return framework.Candidate{}, false
	}
	ts := predicates.TaintString(taint)
	if !podfilter.Evictable(ev, pod) {
		logger.V(4).Info("Pod violates a taint but is not evictable", "pod", klog.KObj(pod), "node", node, "taint", ts)
		return framework.Candidate{}, false
	}
	if v := logger.V(2); v.Enabled() {
		v.Info("Pod does not tolerate a node taint", "pod", klog.KObj(pod), "node", node, "taint", ts)
	}
	return framework.Candidate{Pod: pod, Node: node, Reason: "taint " + ts + " not tolerated"}, true
}

// consideredTaints appends to buf the node's taints this strategy enforces:
// effect NoSchedule (and PreferNoSchedule when enabled), in includedTaints
// when that list is set, and not in excludedTaints.
func (s *RemovePodsViolatingNodeTaints) consideredTaints(buf []v1.Taint, node *v1.Node) []v1.Taint {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if s.considered(t) {
			buf = append(buf, *t)
		}
	}
	return buf
}

func (s *RemovePodsViolatingNodeTaints) considered(t *v1.Taint) bool {
	switch {
	case t.Effect == v1.TaintEffectNoSchedule:
	case t.Effect == v1.TaintEffectPreferNoSchedule && s.preferNoSchedule:
	default:
		return false
	}
	if len(s.included) > 0 && !s.included.has(t) {
		return false
	}
	return !s.excluded.has(t)
}

// taintRef is one parsed "key" (anyValue) or "key=value" entry.
type taintRef struct {
	key      string
	value    string
	anyValue bool
}

// taintSet matches taints against parsed entries without allocating.
type taintSet map[taintRef]struct{}

func newTaintSet(entries []string) taintSet {
	set := make(taintSet, len(entries))
	for _, e := range entries {
		key, value, hasValue := strings.Cut(e, "=")
		set[taintRef{key: key, value: value, anyValue: !hasValue}] = struct{}{}
	}
	return set
}

// has reports whether an entry names the taint's key, or its key and value.
func (s taintSet) has(t *v1.Taint) bool {
	if _, ok := s[taintRef{key: t.Key, anyValue: true}]; ok {
		return true
	}
	_, ok := s[taintRef{key: t.Key, value: t.Value}]
	return ok
}
