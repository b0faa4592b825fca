package removeduplicates

import (
	"encoding/json"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// template is what decides where a pod may run: its nodeSelector, its
// required node affinity and its tolerations. Pods with equal templates
// have the same feasible nodes.
type template struct {
	// pod stands for every pod with this template.
	pod *v1.Pod
	key string
}

// duplicateTemplates returns the distinct templates of the group's
// duplicates: every pod but the first on its node (pods are ordered by
// node), as upstream, which looks only at the pods it may evict.
func duplicateTemplates(pods []member) []template {
	var out []template
	for i := 1; i < len(pods); i++ {
		if pods[i].node != pods[i-1].node {
			continue
		}
		pod := pods[i].pod.Pod
		key := templateKey(pod)
		if !slices.ContainsFunc(out, func(t template) bool { return t.key == key }) {
			out = append(out, template{pod: pod, key: key})
		}
	}
	return out
}

// templateKey renders the template canonically: nodeSelector (map keys
// sorted by encoding/json), the required node affinity, and the
// tolerations in sorted order (their order does not matter).
func templateKey(pod *v1.Pod) string {
	tols := make([]string, len(pod.Spec.Tolerations))
	for i := range pod.Spec.Tolerations {
		b, _ := json.Marshal(pod.Spec.Tolerations[i])
		tols[i] = string(b)
	}
	slices.Sort(tols)
	var required *v1.NodeSelector
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	b, _ := json.Marshal(struct {
		NodeSelector map[string]string
		Required     *v1.NodeSelector
		Tolerations  []string
	}{pod.Spec.NodeSelector, required, tols})
	return string(b)
}

// feasibleNodes counts the nodes in the union, over the templates, of the
// considered nodes each template could run on: schedulable, matching its
// nodeSelector and required node affinity, and with every
// NoSchedule/NoExecute taint tolerated. As upstream, a template that fits
// fewer than two nodes adds nothing. Free resources are deliberately not
// checked (see the package documentation). Where a template could run
// depends on the nodes alone, so fits keeps it for the snapshot lineage.
func feasibleNodes(templates []template, nodes []*snapshot.NodeInfo, fits *templateFits) int {
	if len(templates) == 1 {
		if n := len(fits.of(templates[0], nodes)); n >= 2 {
			return n
		}
		return 0
	}
	union := make([]bool, len(nodes))
	for _, t := range templates {
		f := fits.of(t, nodes)
		if len(f) < 2 {
			continue
		}
		for _, i := range f {
			union[i] = true
		}
	}
	n := 0
	for _, in := range union {
		if in {
			n++
		}
	}
	return n
}

// templateFits are, per template key, the positions of the nodes the
// template could run on.
type templateFits struct {
	byKey map[string][]int32
}

// of returns the positions of the nodes t could run on, working them out
// on first use.
func (f *templateFits) of(t template, nodes []*snapshot.NodeInfo) []int32 {
	if fits, ok := f.byKey[t.key]; ok {
		return fits
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(t.pod)
	var fits []int32
	for i, ni := range nodes {
		if couldRun(t.pod, affinity, ni) {
			fits = append(fits, int32(i))
		}
	}
	if f.byKey == nil {
		f.byKey = map[string][]int32{}
	}
	f.byKey[t.key] = fits
	return fits
}

func couldRun(pod *v1.Pod, affinity nodeaffinity.RequiredNodeAffinity, ni *snapshot.NodeInfo) bool {
	if ni.Unschedulable() {
		return false
	}
	if ok, err := affinity.Match(ni.Node); err != nil || !ok {
		return false
	}
	_, untolerated := predicates.UntoleratedTaint(pod, ni.Node)
	return !untolerated
}
