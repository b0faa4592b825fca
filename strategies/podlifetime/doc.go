// Package podlifetime implements the PodLifeTime strategy (extension point
// Deschedule): pods older than a maximum age, or stuck in a state
// (Pending, ImagePullBackOff, OOMKilled, ...), with a condition (e.g.
// PodScheduled=False for an hour) or an exit code, are evicted so that
// they get rescheduled.
//
// The clock is the snapshot's Now:
//
//	ageSeconds = ⌊(snap.Now − metadata.creationTimestamp) / 1s⌋
//
// A pod on a considered node is a candidate when all of these hold (a
// criterion that is not set holds; at least one of 2-5 must be set):
//
//  1. its namespace passes `namespaces`, its labels match `labelSelector`,
//     and its owner references pass `ownerKinds` (include: some owner has
//     a listed kind; exclude: no owner has one);
//  2. `maxPodLifeTimeSeconds`: it has a creation timestamp (an unknown age
//     is never too old) and ageSeconds > maxPodLifeTimeSeconds;
//  3. `states` lists its phase (Running, Pending, Succeeded, Failed,
//     Unknown), its status.reason (NodeAffinity, NodeLost, Shutdown,
//     UnexpectedAdmissionError), or the waiting reason (PodInitializing,
//     ContainerCreating, CrashLoopBackOff, ImagePullBackOff, ErrImagePull,
//     CreateContainerConfigError, CreateContainerError, InvalidImageName)
//     or terminated reason (OOMKilled, Error, Completed, DeadlineExceeded,
//     Evicted, ContainerCannotRun, StartError) of one of its containers;
//     init containers count only with `includingInitContainers`, ephemeral
//     containers only with `includingEphemeralContainers`;
//  4. `conditions`: one of its status conditions matches one of the
//     filters (type, status and reason, each when set, and with
//     minTimeSinceLastTransitionSeconds a lastTransitionTime at least that
//     many whole seconds before Now);
//  5. `exitCodes`: a terminated container (init containers with
//     `includingInitContainers`; ephemeral containers never) exited with a
//     listed code;
//  6. the evictor's Filter and PreEvictionFilter accept it.
//
// The deprecated `podStatusPhases` (phases only) is merged into `states` by
// Args.Default.
//
// Candidates from all nodes are ordered oldest first, so that when eviction
// limits or PodDisruptionBudgets stop the cycle early the oldest pods have
// gone; equal ages keep node name, namespace and pod name order. Limits are
// applied by the evictor when the plan is executed. The reason reads
// "age 26h > maxPodLifeTimeSeconds 86400" followed by what else matched
// (", state Pending", ", condition PodScheduled=False", ", exit code 137");
// without maxPodLifeTimeSeconds it starts with "age 26h".
package podlifetime
