// Package removefailedpods implements the RemoveFailedPods strategy
// (extension point Deschedule): pods in phase Failed are evicted so their
// controllers (or the users) see them gone and the node is tidy.
//
// The clock is the snapshot's Now:
//
//	ageSeconds = ⌊(snap.Now − metadata.creationTimestamp) / 1s⌋
//
// A pod on a considered node is a candidate when all of these hold:
//
//  1. status.phase is Failed;
//  2. its namespace passes `namespaces` and its labels match `labelSelector`;
//  3. none of its owner references has a kind listed in `excludeOwnerKinds`;
//  4. ageSeconds >= minPodLifetimeSeconds (default 3600; a pod without a
//     creation timestamp passes only a minimum of 0);
//  5. `reasons` is empty, or one of them equals status.reason or the
//     waiting or terminated reason of a container (an init container too
//     with includingInitContainers);
//  6. `exitCodes` is empty, or one of them equals the exit code of a
//     terminated container (an init container too with
//     includingInitContainers);
//  7. the evictor's Filter and PreEvictionFilter accept it.
//
// Conditions 5 and 6 both apply when both lists are set. Candidates keep
// node name, namespace and pod name order; limits are applied by the
// evictor when the plan is executed. The reason names the matched reason
// and exit code (or, for an empty list, the first reason and the first
// non-zero exit code the pod reports) and the age:
// "failed (reason OOMKilled, exit code 137), age 2h".
package removefailedpods
