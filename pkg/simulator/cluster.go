package simulator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/simulator/scheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// cluster is the simulated cluster: its objects, the scheduler model's
// view of them and the usage model. It is the descheduler.Source of the
// simulation's Runner.
type cluster struct {
	clock           clock.PassiveClock
	nodes           map[string]*v1.Node
	order           []string // node names, sorted
	pods            *podSet
	pdbs            []*policyv1.PodDisruptionBudget
	priorityClasses []*schedulingv1.PriorityClass
	namespaces      []*v1.Namespace
	pvcs            []*v1.PersistentVolumeClaim
	sched           *scheduler.Scheduler
	state           *scheduler.Cluster
	usage           *usageModel
	names           *rand.Rand
	created         int
	pending         []pendingPod
	// cycle is the number of the cycle being applied; moves are the
	// simulated evictions so far, with their replacements' nodes.
	cycle int
	moves []Move
	// startup is how long a bound replacement runs before it is Ready;
	// starting are the bound pods not Ready yet, with when they will be.
	startup  time.Duration
	starting map[types.NamespacedName]time.Time
	// work are the workload objects, their status following the pods.
	work *workloads
}

var _ descheduler.Source = (*cluster)(nil)

// pendingPod is a pod waiting for a node.
type pendingPod struct {
	key    types.NamespacedName
	owner  string
	since  time.Time
	reason string
	// move is the index in cluster.moves of the eviction this pod
	// replaces; -1 for a pod that replaces none.
	move int
}

// newCluster builds the simulated cluster from a snapshot's objects at
// start.
func newCluster(objs snapshot.Objects, start time.Time, cfg *Config, clk clock.PassiveClock) (*cluster, error) {
	sched, err := scheduler.New(scheduler.Config{Rand: rand.New(rand.NewPCG(cfg.Seed, streamScheduler))})
	if err != nil {
		return nil, fmt.Errorf("building the scheduler model: %w", err)
	}
	u, err := newUsageModel(objs, start, cfg)
	if err != nil {
		return nil, fmt.Errorf("building the usage model: %w", err)
	}
	c := &cluster{clock: clk, nodes: make(map[string]*v1.Node, len(objs.Nodes)), pods: newPodSet(len(objs.Pods)),
		pdbs: objs.PDBs, priorityClasses: objs.PriorityClasses, namespaces: objs.Namespaces,
		pvcs:  objs.PersistentVolumeClaims,
		sched: sched, usage: u, names: rand.New(rand.NewPCG(cfg.Seed, streamNames)),
		startup: cfg.PodStartup, starting: map[types.NamespacedName]time.Time{}, work: newWorkloads(objs)}
	for _, n := range objs.Nodes {
		if _, dup := c.nodes[n.Name]; dup {
			return nil, fmt.Errorf("node %q appears twice", n.Name)
		}
		c.nodes[n.Name] = n
		c.order = append(c.order, n.Name)
	}
	slices.Sort(c.order)
	for _, p := range objs.Pods {
		if !c.pods.add(p) {
			return nil, fmt.Errorf("pod %s appears twice", keyOf(p))
		}
		if p.Spec.NodeName == "" && !snapshot.IsTerminal(p) {
			c.pending = append(c.pending, pendingPod{key: keyOf(p), owner: ownerString(p),
				since: p.CreationTimestamp.Time, reason: "pending in the snapshot", move: -1})
		}
	}
	c.state = scheduler.NewCluster(objs.Nodes, objs.Pods, objs.Namespaces)
	return c, nil
}

// Objects implements descheduler.Source: the cluster now, with the usage
// samples in the window.
func (c *cluster) Objects() (snapshot.Objects, error) {
	exp, points := c.usage.export(c.clock.Now())
	nodes := make([]*v1.Node, 0, len(c.order))
	for _, name := range c.order {
		nodes = append(nodes, c.nodes[name])
	}
	objs := snapshot.Objects{Nodes: nodes, Pods: c.pods.all(), PDBs: c.pdbs, PriorityClasses: c.priorityClasses,
		Namespaces: c.namespaces, PersistentVolumeClaims: c.pvcs, NodeMetrics: exp.Nodes, PodMetrics: exp.Pods, NodeMetricResource: points}
	c.work.objects(&objs)
	return objs, nil
}

// apply carries out a cycle's simulated evictions at now: evicted pods
// leave and their replacements are created (pending). settle places them.
func (c *cluster) apply(cycle int, rep *descheduler.Report, now time.Time) error {
	c.cycle = cycle
	for _, rec := range rep.Records {
		if rec.Result == evictor.ResultSimulated {
			if err := c.evict(rec.Pod, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// settle offers every pending pod (oldest first) to the scheduler model,
// after a cycle's evictions.
func (c *cluster) settle(ctx context.Context) {
	c.usage.prune()
	c.schedulePending(ctx)
}

// evict removes pod and queues its replacement, if a controller owns it.
func (c *cluster) evict(pod *v1.Pod, now time.Time) error {
	cur, ok := c.pods.get(keyOf(pod))
	if !ok || cur.UID != pod.UID {
		return nil
	}
	c.pods.remove(keyOf(cur))
	delete(c.starting, keyOf(cur))
	if cur.Spec.NodeName != "" && !snapshot.IsTerminal(cur) {
		c.state.Unbind(cur)
	}
	ref := metav1.GetControllerOf(cur)
	if snapshot.IsTerminal(cur) || ref == nil {
		c.recordMove(cur, "")
		c.usage.forget(keyOf(cur))
		return nil
	}
	r := c.replacement(cur, ref, now)
	mv := c.recordMove(cur, keyOf(r).String())
	c.usage.move(keyOf(cur), keyOf(r))
	c.pods.add(r)
	if ref.Kind == "DaemonSet" {
		c.placed(mv, cur.Spec.NodeName)
		return c.bind(r, cur.Spec.NodeName, now)
	}
	c.pending = append(c.pending, pendingPod{key: keyOf(r), owner: ownerString(r), since: now, move: mv})
	return nil
}

// schedulePending offers every pending pod, oldest first, to the
// scheduler model; those that fit nowhere stay pending with its reason.
func (c *cluster) schedulePending(ctx context.Context) {
	logger := klog.FromContext(ctx)
	kept := c.pending[:0]
	for _, pp := range c.pending {
		pod, ok := c.pods.get(pp.key)
		if !ok || pod.Spec.NodeName != "" {
			continue
		}
		d, err := c.sched.Schedule(c.state, pod)
		if err == nil {
			err = c.bind(pod, d.Node, c.clock.Now())
		}
		if err != nil {
			var unsched *scheduler.UnschedulableError
			if !errors.As(err, &unsched) {
				logger.Error(err, "Placing a simulated pod", "pod", pp.key)
			}
			pp.reason = err.Error()
			kept = append(kept, pp)
			continue
		}
		c.placed(pp.move, d.Node)
		logger.V(4).Info("Simulated pod placed", "pod", pp.key, "node", d.Node, "feasible", d.Feasible)
	}
	c.pending = kept
}

// bind puts a copy of pod on node, running since now and Ready once the
// pod startup time has passed (at once when it is 0; see promote).
func (c *cluster) bind(pod *v1.Pod, node string, now time.Time) error {
	b := *pod
	b.Spec.NodeName = node
	readyAt := now.Add(c.startup)
	b.Status = runningStatus(pod, now, readyAt, c.startup == 0)
	if err := c.state.Bind(&b); err != nil {
		return fmt.Errorf("binding %s to %s: %w", keyOf(pod), node, err)
	}
	c.pods.replace(&b)
	if c.startup > 0 {
		c.starting[keyOf(&b)] = readyAt
	}
	return nil
}

// promote makes Ready every starting pod whose startup time has passed at
// now, from the moment it passed.
func (c *cluster) promote(now time.Time) {
	for k, readyAt := range c.starting {
		if readyAt.After(now) {
			continue
		}
		delete(c.starting, k)
		if pod, ok := c.pods.get(k); ok {
			p := *pod
			p.Status = runningStatus(pod, pod.Status.StartTime.Time, readyAt, true)
			c.pods.replace(&p)
		}
	}
}

// refreshWorkloads makes the starting pods Ready whose time has come,
// recomputes the workload objects' status at now (rolloutsDone: see
// workloads.refresh) and returns the workloads' levels.
func (c *cluster) refreshWorkloads(now time.Time, rolloutsDone bool) []level {
	c.promote(now)
	if c.work.empty() {
		return nil
	}
	counts := countPods(c.pods)
	c.work.refresh(counts, now, rolloutsDone)
	return c.work.levels(counts, now)
}

// levels returns the workloads' levels at now.
func (c *cluster) levels(now time.Time) []level {
	if c.work.empty() {
		return nil
	}
	return c.work.levels(countPods(c.pods), now)
}

// pendingReport lists the pending pods for the result.
func (c *cluster) pendingReport() []Pending {
	out := make([]Pending, 0, len(c.pending))
	for _, pp := range c.pending {
		reason := pp.reason
		if reason == "" {
			reason = "not yet scheduled"
		}
		out = append(out, Pending{Pod: pp.key.String(), Owner: pp.owner, Since: pp.since.UTC(), Reason: reason})
	}
	return out
}

// ownerString names a pod's controller "Kind/namespace/name" ("Pod/…"
// for a bare pod).
func ownerString(p *v1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return ref.Kind + "/" + p.Namespace + "/" + ref.Name
	}
	return "Pod/" + p.Namespace + "/" + p.Name
}
