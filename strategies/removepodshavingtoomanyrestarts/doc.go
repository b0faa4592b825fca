// Package removepodshavingtoomanyrestarts implements the
// RemovePodsHavingTooManyRestarts strategy (extension point Deschedule).
//
// A pod that keeps restarting on one node (a volume that cannot attach, a
// node-specific misconfiguration) may do better elsewhere. For every pod on
// every considered node:
//
//	restarts = Σ containerStatuses[i].restartCount
//	         (+ Σ initContainerStatuses[i].restartCount if includingInitContainers)
//
// The pod is a candidate when all of these hold:
//
//  1. its namespace passes `namespaces` and its labels match `labelSelector`;
//  2. restarts >= podRestartThreshold;
//  3. `states` is empty, or the pod's phase is Running and "Running" is
//     listed, or a container (an init container too with
//     includingInitContainers) is waiting with reason CrashLoopBackOff and
//     "CrashLoopBackOff" is listed;
//  4. the evictor's Filter and PreEvictionFilter accept it.
//
// Candidates are ordered by restarts, most first; ties keep node name,
// namespace and pod name order. Eviction limits are applied by the evictor
// when the plan is executed. The reason reads
// "12 restarts >= threshold 10".
package removepodshavingtoomanyrestarts
