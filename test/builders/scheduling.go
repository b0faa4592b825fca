package builders

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RequireNodeLabel adds a requirement "key In values" to the pod's first
// required node selector term (creating the affinity and the term). Calling
// it twice ANDs the requirements.
func (b *PodBuilder) RequireNodeLabel(key string, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{}}}
	}
	term := &na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0]
	term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{
		Key: key, Operator: v1.NodeSelectorOpIn, Values: values})
	return b
}

// PreferNodeLabel adds a preferred node affinity term "key In values" with
// the given weight (1-100).
func (b *PodBuilder) PreferNodeLabel(weight int32, key string, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.PreferredSchedulingTerm{Weight: weight, Preference: v1.NodeSelectorTerm{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}}})
	return b
}

func (b *PodBuilder) nodeAffinity() *v1.NodeAffinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &v1.Affinity{}
	}
	if b.p.Spec.Affinity.NodeAffinity == nil {
		b.p.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	return b.p.Spec.Affinity.NodeAffinity
}

// Container adds a container with an image and no requests.
func (b *PodBuilder) Container(name, image string) *PodBuilder {
	b.p.Spec.Containers = append(b.p.Spec.Containers, v1.Container{Name: name, Image: image})
	return b
}

// OwnerRef adds an owner reference that is not the controller.
func (b *PodBuilder) OwnerRef(kind, name string) *PodBuilder {
	b.p.OwnerReferences = append(b.p.OwnerReferences, metav1.OwnerReference{
		APIVersion: apiVersionFor(kind), Kind: kind, Name: name, UID: types.UID("uid-" + kind + "-" + name)})
	return b
}

// OwnerUID replaces the UID of the pod's last owner reference, e.g. to model
// a controller deleted and recreated under the same name.
func (b *PodBuilder) OwnerUID(uid string) *PodBuilder {
	if n := len(b.p.OwnerReferences); n > 0 {
		b.p.OwnerReferences[n-1].UID = types.UID(uid)
	}
	return b
}
