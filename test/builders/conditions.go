package builders

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition adds a status condition; a zero lastTransition leaves
// lastTransitionTime unset.
func (b *PodBuilder) Condition(t v1.PodConditionType, status v1.ConditionStatus, reason string, lastTransition time.Time) *PodBuilder {
	c := v1.PodCondition{Type: t, Status: status, Reason: reason}
	if !lastTransition.IsZero() {
		c.LastTransitionTime = metav1.NewTime(lastTransition)
	}
	b.p.Status.Conditions = append(b.p.Status.Conditions, c)
	return b
}

// WithEphemeralContainer adds an ephemeral container (spec and status):
// the spec container is named after the status and uses its image.
func (b *PodBuilder) WithEphemeralContainer(st *ContainerStatusBuilder) *PodBuilder {
	s := st.Obj()
	b.p.Spec.EphemeralContainers = append(b.p.Spec.EphemeralContainers, v1.EphemeralContainer{
		EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: s.Name, Image: s.Image}})
	b.p.Status.EphemeralContainerStatuses = append(b.p.Status.EphemeralContainerStatuses, s)
	return b
}
