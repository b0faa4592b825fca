package builders

import (
	v1 "k8s.io/api/core/v1"
)

// ContainerStatusBuilder builds a v1.ContainerStatus. New statuses are
// running, ready, with no restarts.
type ContainerStatusBuilder struct{ s v1.ContainerStatus }

// MakeContainerStatus starts a running container status named name.
func MakeContainerStatus(name string) *ContainerStatusBuilder {
	return &ContainerStatusBuilder{s: v1.ContainerStatus{Name: name, Image: name + ":1", Ready: true,
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
}

// Restarts sets the restart count.
func (b *ContainerStatusBuilder) Restarts(n int32) *ContainerStatusBuilder {
	b.s.RestartCount = n
	return b
}

// Waiting sets the state to waiting with a reason (e.g. CrashLoopBackOff).
func (b *ContainerStatusBuilder) Waiting(reason string) *ContainerStatusBuilder {
	b.s.Ready = false
	b.s.State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}
	return b
}

// Terminated sets the state to terminated with a reason and exit code.
func (b *ContainerStatusBuilder) Terminated(reason string, exitCode int32) *ContainerStatusBuilder {
	b.s.Ready = false
	b.s.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: reason, ExitCode: exitCode}}
	return b
}

// Obj returns the built status.
func (b *ContainerStatusBuilder) Obj() v1.ContainerStatus { return *b.s.DeepCopy() }

// WithContainer adds a container (spec and status): the spec container is
// named after the status and uses its image.
func (b *PodBuilder) WithContainer(st *ContainerStatusBuilder) *PodBuilder {
	s := st.Obj()
	b.ensureStatus()
	b.p.Spec.Containers = append(b.p.Spec.Containers, v1.Container{Name: s.Name, Image: s.Image})
	b.p.Status.ContainerStatuses = append(b.p.Status.ContainerStatuses, s)
	return b
}

// WithInitContainer adds an init container (spec and status).
func (b *PodBuilder) WithInitContainer(st *ContainerStatusBuilder) *PodBuilder {
	s := st.Obj()
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, v1.Container{Name: s.Name, Image: s.Image})
	b.p.Status.InitContainerStatuses = append(b.p.Status.InitContainerStatuses, s)
	return b
}
