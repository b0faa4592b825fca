// Package podlifetime implements the PodLifeTime strategy (extension point
// Deschedule): pods older than a maximum age are evicted, so long-running
// pods get rescheduled with today's placement, or pods stuck in a state
// (Pending, ImagePullBackOff, ...) are retried elsewhere.
//
// The clock is the snapshot's Now:
//
//	ageSeconds = ⌊(snap.Now − metadata.creationTimestamp) / 1s⌋
//
// A pod on a considered node is a candidate when all of these hold:
//
//  1. its namespace passes `namespaces` and its labels match `labelSelector`;
//  2. it has a creation timestamp (an unknown age is never too old) and
//     ageSeconds > maxPodLifeTimeSeconds;
//  3. `states` is empty, or it lists the pod's phase (Running, Pending,
//     Succeeded, Failed, Unknown), or it lists the waiting reason of one of
//     the pod's containers or init containers (PodInitializing,
//     ContainerCreating, CrashLoopBackOff, ImagePullBackOff, ErrImagePull,
//     CreateContainerConfigError, CreateContainerError, InvalidImageName);
//  4. the evictor's Filter and PreEvictionFilter accept it.
//
// The deprecated `podStatusPhases` (phases only) is merged into `states` by
// Args.Default.
//
// Candidates from all nodes are ordered oldest first, so that when eviction
// limits or PodDisruptionBudgets stop the cycle early the oldest pods have
// gone; equal ages keep node name, namespace and pod name order. Limits are
// applied by the evictor when the plan is executed. The reason reads
// "age 26h > maxPodLifeTimeSeconds 86400" (", state Pending" is appended
// when `states` is set).
package podlifetime
