package evictor

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// nodeFit answers "does this pod fit at least one other node" for one
// snapshot, caching per scheduling template.
//
// Cache key reasoning. Whether a pod fits a node it is NOT running on
// depends only on the node and on the pod's scheduling template: the
// fields TemplateKey encodes (requests, namespace, nodeSelector, affinity,
// tolerations, topology spread, and labels when some pod on a target has
// required anti-affinity); the pod's identity matters only on its own
// node, which nodeFit never considers. The key is the template itself, not
// the controller: a StatefulSet mid-rollout runs two templates, a webhook
// or a VerticalPodAutoscaler mutates pods one by one, and pods of one owner
// may carry different nodeSelectors, while pods of different owners with
// one template share an entry.
//
// Per group, the first pod scans the target nodes in name order, skipping
// its own node, and stops after two fitting nodes. Two are enough: any
// later pod of the group sits on at most one of them. When fewer than two
// fit, the scan covered every node except the first pod's own node, so a
// later pod on another node needs one check of that node only. Each group
// therefore costs at most one pass over the nodes per snapshot and every
// further pod O(1), instead of O(nodes) per pod.
//
// A pod asking for more cpu, memory or pod slots than the freest target
// has fits nowhere; that O(1) test answers a full cluster without a scan.
type nodeFit struct {
	snap    *snapshot.Snapshot
	nodeSel labels.Selector // nil: every considered node
	targets []*snapshot.NodeInfo
	maxFree resources.List // per resource, the most any schedulable target has free (no Scalar)
	// groups are keyed by TemplateKey.
	groups map[string]*fitEntry
	// labelsMatter: some non-terminal pod on a target has required pod
	// anti-affinity, so a pod's labels decide where it fits. Found on the
	// first key built (labelsKnown), as pods that ask more than any
	// target has free need no key.
	labelsMatter, labelsKnown bool
	// keyBuf is TemplateKey's scratch space.
	keyBuf []byte
}

// fitEntry is what is known about one group.
type fitEntry struct {
	// fits holds the nodes known to fit a pod of the group (as a
	// newcomer): two when the first scan stopped early, fewer when it
	// went through every target but its own node.
	fits []string
	// unchecked is, after a full scan, the scanning pod's own node while it
	// has not been evaluated for another pod of the group; "" once
	// evaluated, when it is no target, or when the scan stopped early.
	unchecked string
}

func newNodeFit(selector string, snap *snapshot.Snapshot) (*nodeFit, error) {
	f := &nodeFit{snap: snap, groups: map[string]*fitEntry{}}
	if selector != "" {
		sel, err := labels.Parse(selector)
		if err != nil {
			return nil, err
		}
		f.nodeSel = sel
	}
	for _, ni := range snap.Nodes() {
		if !f.isTarget(ni) {
			continue
		}
		f.targets = append(f.targets, ni)
		if !ni.Unschedulable() {
			free := predicates.Free(ni)
			f.maxFree.MilliCPU = max(f.maxFree.MilliCPU, free.MilliCPU)
			f.maxFree.Memory = max(f.maxFree.Memory, free.Memory)
			f.maxFree.Pods = max(f.maxFree.Pods, free.Pods)
		}
	}
	return f, nil
}

// mayFitSomewhere is a necessary condition for fitting any target.
func (f *nodeFit) mayFitSomewhere(req resources.List) bool {
	return resources.Fits(resources.List{MilliCPU: req.MilliCPU, Memory: req.Memory, Pods: req.Pods}, f.maxFree)
}

func (f *nodeFit) isTarget(ni *snapshot.NodeInfo) bool {
	return f.nodeSel == nil || f.nodeSel.Matches(labels.Set(ni.Node.Labels))
}

// PreEvictionFilter reports whether pod passes namespaceLabelSelector
// (NamespaceAllowed) and nodeFit: always true when nodeFit is off;
// otherwise the pod must fit at least one considered node
// other than its own that matches the evictor's nodeSelector (schedulable,
// nodeSelector and required node affinity, NoSchedule/NoExecute taints,
// requests within allocatable minus requested, required pod anti-affinity).
func (e *DefaultEvictor) PreEvictionFilter(pod *v1.Pod) bool {
	if !e.NamespaceAllowed(pod) {
		return false
	}
	if e.nodeFit == nil {
		return true
	}
	return e.nodeFit.fitsOther(pod)
}

func (f *nodeFit) fitsOther(pod *v1.Pod) bool {
	pi := f.podInfo(pod)
	if !f.mayFitSomewhere(pi.Requests) {
		return false
	}
	pl := &placement{pi: pi, affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
	own := pod.Spec.NodeName
	key, err := TemplateKey(f.keyBuf[:0], pl.pi, f.withLabels())
	f.keyBuf = key
	if err != nil {
		found, _ := f.scan(pl, own, 1)
		return len(found) > 0
	}
	ent, ok := f.groups[string(key)]
	if !ok {
		found, complete := f.scan(pl, own, 2)
		ent = &fitEntry{fits: found}
		if complete {
			if _, ok := f.target(own); ok {
				ent.unchecked = own
			}
		}
		f.groups[string(key)] = ent
		return len(found) > 0
	}
	return f.answer(ent, pl, own)
}

// withLabels reports whether template keys include labels (labelsMatter),
// scanning the targets' pods once.
func (f *nodeFit) withLabels() bool {
	if !f.labelsKnown {
		f.labelsKnown = true
		for _, ni := range f.targets {
			for _, pi := range ni.Pods {
				if !snapshot.IsTerminal(pi.Pod) && hasRequiredAntiAffinity(pi.Pod) {
					f.labelsMatter = true
					return true
				}
			}
		}
	}
	return f.labelsMatter
}

// answer decides for a pod on node own from a group's entry, checking the
// one node the entry may not know yet. An incomplete entry holds two
// distinct fitting nodes, one of which is not own, so past the loop the
// entry is complete.
func (f *nodeFit) answer(ent *fitEntry, pl *placement, own string) bool {
	for _, n := range ent.fits {
		if n != own {
			return true
		}
	}
	if ent.unchecked == "" || ent.unchecked == own {
		return false
	}
	ni, _ := f.target(ent.unchecked)
	ent.unchecked = ""
	if ni == nil || !pl.fits(ni) {
		return false
	}
	ent.fits = append(ent.fits, ni.Name())
	return true
}

// scan evaluates targets other than own in name order until limit fit;
// complete reports whether it went through all of them.
func (f *nodeFit) scan(pl *placement, own string, limit int) (found []string, complete bool) {
	for _, ni := range f.targets {
		if ni.Name() == own || !pl.fits(ni) {
			continue
		}
		found = append(found, ni.Name())
		if len(found) == limit {
			return found, false
		}
	}
	return found, true
}

// target returns the named node when it is a considered node that matches
// the evictor's nodeSelector.
func (f *nodeFit) target(name string) (*snapshot.NodeInfo, bool) {
	ni, ok := f.snap.Node(name)
	if !ok || !f.isTarget(ni) {
		return nil, false
	}
	return ni, true
}

// placement is a pod prepared for repeated node checks: its requests come
// from the snapshot and its required node affinity is parsed once.
type placement struct {
	pi       *snapshot.PodInfo
	affinity nodeaffinity.RequiredNodeAffinity
}

// placement looks the pod up in the snapshot (its requests are computed
// there already) and falls back to computing them.
func (f *nodeFit) placement(pod *v1.Pod) *placement {
	return &placement{pi: f.podInfo(pod), affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
}

func (f *nodeFit) podInfo(pod *v1.Pod) *snapshot.PodInfo {
	if ni, ok := f.snap.Node(pod.Spec.NodeName); ok {
		i, found := slices.BinarySearchFunc(ni.Pods, pod, func(pi *snapshot.PodInfo, p *v1.Pod) int {
			return cmp.Or(cmp.Compare(pi.Pod.Namespace, p.Namespace), cmp.Compare(pi.Pod.Name, p.Name))
		})
		if found && ni.Pods[i].Pod.UID == pod.UID {
			return ni.Pods[i]
		}
	}
	return &snapshot.PodInfo{Pod: pod, Requests: resources.PodRequests(pod)}
}

// fits is predicates.FitsNode(pl.pi, ni) == "" with the node affinity
// parsed once per pod instead of once per node; the checks and their order
// are the same (a test asserts the equivalence).
func (pl *placement) fits(ni *snapshot.NodeInfo) bool {
	if ni.Unschedulable() {
		return false
	}
	if ok, err := pl.affinity.Match(ni.Node); err != nil || !ok {
		return false
	}
	if _, bad := predicates.UntoleratedTaint(pl.pi.Pod, ni.Node); bad {
		return false
	}
	return predicates.FitsRequests(pl.pi.Requests, ni) && !predicates.AntiAffinityConflict(pl.pi.Pod, ni)
}
