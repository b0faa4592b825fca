// Package fakes holds test doubles of the framework contracts, shared by
// the strategies' tests.
package fakes

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Evictor is a framework.Evictor for tests. Pods are named by
// "namespace/name". The zero value lets every pod through with an
// unlimited budget.
type Evictor struct {
	// Deny lists pods that fail Filter (e.g. priority above the threshold,
	// a DaemonSet pod, local storage).
	Deny map[string]bool
	// NoFit lists pods that fail PreEvictionFilter (nodeFit).
	NoFit map[string]bool
	// Limits are the eviction limits Budget starts from; the zero value
	// is unlimited.
	Limits framework.Limits
}

var _ framework.Evictor = Evictor{}

// Key returns the "namespace/name" key used by Deny and NoFit.
func Key(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }

// Filter reports whether the pod is not in Deny.
func (e Evictor) Filter(pod *v1.Pod) bool { return !e.Deny[Key(pod)] }

// PreEvictionFilter reports whether the pod is not in NoFit.
func (e Evictor) PreEvictionFilter(pod *v1.Pod) bool { return !e.NoFit[Key(pod)] }

// Budget returns a fresh budget for Limits.
func (e Evictor) Budget() *framework.Budget { return framework.NewBudget(e.Limits) }
