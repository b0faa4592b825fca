package scheduler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Config configures a Scheduler.
type Config struct {
	// Rand breaks ties between equally scored nodes; required (seeded by the caller).
	Rand *rand.Rand
}

// Scheduler is kube-scheduler's default profile as a model: the filters and
// scores described in the package documentation, applied to every node of a
// Cluster in name order. A Scheduler is not safe for concurrent use (its
// Rand and its reused buffers).
type Scheduler struct {
	rand    *rand.Rand
	scratch scratch
}

// scratch holds the per-call buffers sized by the node count, reused
// between Schedule calls.
type scratch struct {
	feasible []*nodeRecord
	totals   []int64
	buf      []int64
	affMatch []bool
}

// resize returns s with length n, reusing its array when large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// New returns a Scheduler. cfg.Rand is required: it is the only source of
// randomness, used to break ties between nodes with the same total score.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Rand == nil {
		return nil, errors.New("scheduler config: Rand is required")
	}
	return &Scheduler{rand: cfg.Rand}, nil
}

// Decision is where a pod goes.
type Decision struct {
	Node     string // chosen node
	Feasible int    // nodes that passed every filter
	Score    int64  // weighted total of the chosen node
}

// UnschedulableError says that no node passed the filters. Reasons counts,
// per reason, the nodes whose first failing filter gave it; a node that
// NodeResourcesFit rejects for several resources counts once per resource,
// as in kube-scheduler.
type UnschedulableError struct {
	Nodes   int
	Reasons map[string]int
}

// Error reads like kube-scheduler's FailedScheduling message, e.g.
// "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu."
// The "<count> <reason>" items are sorted as strings, as kube-scheduler sorts them.
func (e *UnschedulableError) Error() string {
	if e.Nodes == 0 {
		return "no nodes available to schedule pods"
	}
	items := make([]string, 0, len(e.Reasons))
	for reason, n := range e.Reasons {
		items = append(items, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(items)
	msg := fmt.Sprintf("0/%d nodes are available:", e.Nodes)
	if len(items) > 0 {
		msg += " " + strings.Join(items, ", ") + "."
	}
	return msg
}

// Schedule runs the filters and scores for pod (pod.Spec.NodeName is ignored)
// against c and returns the chosen node. It does not bind. When no node
// passes, it returns an *UnschedulableError. Any other error means the pod
// itself is invalid (a selector that does not parse).
//
// The pod is scheduled as a new pod: a bound pod with the same namespace
// and name is counted like any other existing pod, so Unbind it first.
func (s *Scheduler) Schedule(c *Cluster, pod *v1.Pod) (Decision, error) {
	ps, err := newPodState(c, pod, &s.scratch)
	if err != nil {
		return Decision{}, fmt.Errorf("scheduling pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	feasible, reasons := ps.filterAll()
	if len(feasible) == 0 {
		return Decision{}, &UnschedulableError{Nodes: len(c.order), Reasons: reasons}
	}
	totals := ps.scoreAll(feasible)
	i := s.pick(totals)
	return Decision{Node: feasible[i].node.Name, Feasible: len(feasible), Score: totals[i]}, nil
}

// pick returns the index of a node with the maximal total, chosen uniformly
// among ties with the injected Rand (drawn only when there is a tie).
func (s *Scheduler) pick(totals []int64) int {
	best := totals[0]
	ties := 0
	for _, t := range totals {
		switch {
		case t > best:
			best, ties = t, 1
		case t == best:
			ties++
		}
	}
	k := 0
	if ties > 1 {
		k = s.rand.IntN(ties)
	}
	for i, t := range totals {
		if t == best {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return 0
}
