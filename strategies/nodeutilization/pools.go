package nodeutilization

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// PoolRef is what every node pool of Low/HighNodeUtilization has: its name
// and its node selector.
type PoolRef struct {
	Name         string
	NodeSelector *api.ProfileNodeSelector
}

// RefsOf returns the names and selectors of pools.
func RefsOf[P interface{ Ref() PoolRef }](pools []P) []PoolRef {
	refs := make([]PoolRef, len(pools))
	for i, p := range pools {
		refs[i] = p.Ref()
	}
	return refs
}

// SourceOf returns the source of mu (empty when mu is nil).
func SourceOf(mu *collectors.MetricsUtilization) api.MetricsSource {
	if mu == nil {
		return ""
	}
	return mu.Source
}

// ValidatePoolRefs checks the names and selectors of nodePools (at path):
// every name present, a DNS-1123 label (it becomes a metric label value)
// and unique; every selector present, not empty and valid; and no
// selector that provably overlaps an earlier pool's
// (api.SelectorsProvablyOverlap), reported at the later pool.
func ValidatePoolRefs(pools []PoolRef, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	valid := make([]labels.Selector, len(pools))
	for i, p := range pools {
		pp := path.Index(i)
		switch {
		case p.Name == "":
			errs = append(errs, field.Required(pp.Child("name"), "every pool needs a name (it labels logs, metrics and outputs)"))
		default:
			if msgs := validation.IsDNS1123Label(p.Name); len(msgs) > 0 {
				errs = append(errs, field.Invalid(pp.Child("name"), p.Name, strings.Join(msgs, "; ")))
			}
			if j, dup := seen[p.Name]; dup {
				errs = append(errs, field.Duplicate(pp.Child("name"), fmt.Sprintf("%s (also nodePools[%d])", p.Name, j)))
			} else {
				seen[p.Name] = i
			}
		}
		sp := pp.Child("nodeSelector")
		if p.NodeSelector.Empty() {
			errs = append(errs, field.Required(sp, "a pool must select its nodes, e.g. \"pool=batch\"; "+
				"nodes in no pool are classified with the plugin's own thresholds"))
			continue
		}
		if serr := p.NodeSelector.Validate(sp); len(serr) > 0 {
			errs = append(errs, serr...)
			continue
		}
		sel, err := p.NodeSelector.Selector()
		if err != nil {
			continue // reported by Validate
		}
		valid[i] = sel
		for j := 0; j < i; j++ {
			if valid[j] != nil && api.SelectorsProvablyOverlap(valid[j], sel) {
				errs = append(errs, field.Invalid(sp, p.NodeSelector.String(), fmt.Sprintf(
					"overlaps nodePools[%d] (%q): a node with only the labels these selectors name can match both; "+
						"give each pool its own value of one label key, e.g. pool=%s", j, valid[j].String(), orPool(p.Name, pools[:i]))))
				break
			}
		}
	}
	return errs
}

// ValidatePoolCounts checks the fields every pool of both plugins may set
// besides its thresholds: numberOfNodes >= 0 and classification (when
// set) valid for source, below path (the pool).
func ValidatePoolCounts(numberOfNodes *int, mode ClassificationMode, source api.MetricsSource, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if numberOfNodes != nil && *numberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), *numberOfNodes, "must be greater than or equal to 0"))
	}
	if mode != "" {
		errs = append(errs, ValidateClassification(mode, source, path.Child("classification"))...)
	}
	return errs
}

// orPool is the pool name to suggest as a label value: name, unless it is
// empty or an earlier pool's.
func orPool(name string, earlier []PoolRef) string {
	for _, e := range earlier {
		if e.Name == name {
			return "<name>"
		}
	}
	if name == "" {
		return "<name>"
	}
	return name
}

// Pools splits the nodes of a strategy into its node pools: the named
// pools in policy order and, when the plugin has thresholds of its own,
// the unnamed rest (the nodes no pool selects). A node more than one pool
// selects is in none (Split reports it).
type Pools struct {
	names     []string
	selectors []labels.Selector
	rest      bool

	mu    sync.Mutex
	split *PoolSplit
}

// NewPools returns the pools of refs (validated selectors); rest adds the
// unnamed pool of the nodes no pool selects.
func NewPools(refs []PoolRef, rest bool) (*Pools, error) {
	p := &Pools{rest: rest}
	for i, r := range refs {
		sel, err := r.NodeSelector.Selector()
		if err != nil {
			return nil, fmt.Errorf("nodePools[%d].nodeSelector: %w", i, err)
		}
		p.names = append(p.names, r.Name)
		p.selectors = append(p.selectors, sel)
	}
	return p, nil
}

// PoolSplit is the split of one snapshot lineage into pools.
type PoolSplit struct {
	// restrictions restrict the lineage to each pool's nodes, in policy
	// order, the rest last.
	restrictions []*snapshot.Restriction
	// Pool is the index of each node's pool (len(names) for the rest);
	// nodes in no pool and conflicting nodes are absent.
	Pool map[string]int
	// Conflicts are the nodes more than one pool selects, with the names
	// of those pools, sorted by node name.
	Conflicts []PoolConflict
}

// PoolConflict is a node that more than one pool selects.
type PoolConflict struct {
	Node  string
	Pools []string
}

// PoolPart is one pool's share of a snapshot.
type PoolPart struct {
	// Index is the pool's index in nodePools (len(nodePools) for the rest).
	Index int
	// Name is the pool's name ("" for the rest).
	Name string
	// Snap holds the pool's nodes alone.
	Snap *snapshot.Snapshot
}

// Split returns each pool's part of snap (pools without nodes left out)
// and the split of its lineage. Splits are cached per lineage, so every
// call of one cycle shares the pools' memoized aggregates.
func (p *Pools) Split(snap *snapshot.Snapshot) ([]PoolPart, *PoolSplit) {
	p.mu.Lock()
	s := p.split
	if s == nil || len(s.restrictions) == 0 || !s.restrictions[0].Of(snap) {
		s = p.newSplit(snap)
		p.split = s
	}
	p.mu.Unlock()
	var parts []PoolPart
	for i, r := range s.restrictions {
		rs, err := r.Restrict(snap)
		if err != nil || len(rs.Nodes()) == 0 {
			continue
		}
		parts = append(parts, PoolPart{Index: i, Name: p.Name(i), Snap: rs})
	}
	return parts, s
}

// Forget drops the cached split, so that a finished cycle's snapshots are
// not kept alive until the next one.
func (p *Pools) Forget() {
	p.mu.Lock()
	p.split = nil
	p.mu.Unlock()
}

// Name returns the name of pool i ("" for the rest).
func (p *Pools) Name(i int) string {
	if i < len(p.names) {
		return p.names[i]
	}
	return ""
}

// Members returns the pool name of every node of snap in a named pool.
func (p *Pools) Members(snap *snapshot.Snapshot) map[string]string {
	_, s := p.Split(snap)
	out := make(map[string]string, len(s.Pool))
	for node, i := range s.Pool {
		if i < len(p.names) {
			out[node] = p.names[i]
		}
	}
	return out
}

func (p *Pools) newSplit(snap *snapshot.Snapshot) *PoolSplit {
	s := &PoolSplit{Pool: map[string]int{}}
	for _, ni := range snap.Origin().Nodes() {
		set := labels.Set(ni.Node.Labels)
		var in []int
		for i, sel := range p.selectors {
			if sel.Matches(set) {
				in = append(in, i)
			}
		}
		switch {
		case len(in) == 1:
			s.Pool[ni.Name()] = in[0]
		case len(in) == 0 && p.rest:
			s.Pool[ni.Name()] = len(p.names)
		case len(in) > 1:
			c := PoolConflict{Node: ni.Name()}
			for _, i := range in {
				c.Pools = append(c.Pools, p.names[i])
			}
			s.Conflicts = append(s.Conflicts, c)
		}
	}
	sort.Slice(s.Conflicts, func(i, j int) bool { return s.Conflicts[i].Node < s.Conflicts[j].Node })
	n := len(p.names)
	if p.rest {
		n++
	}
	for i := 0; i < n; i++ {
		i := i
		s.restrictions = append(s.restrictions, snapshot.NewRestrictionFunc(snap, func(node *v1.Node) bool {
			got, ok := s.Pool[node.Name]
			return ok && got == i
		}))
	}
	return s
}

// LogConflicts warns about every node more than one pool selects; such a
// node is left out of the strategy until its labels or the selectors
// change.
func LogConflicts(logger klog.Logger, s *PoolSplit) {
	for _, c := range s.Conflicts {
		logger.Info("Warning: node matches more than one node pool; leaving it out", "node", c.Node, "pools", c.Pools)
	}
}

// ShareEvictor returns a view of ev whose Budget and WorkloadPlan are one
// private copy shared by every call, so that the pools planned one after
// the other in one Plan count each other's candidates against the
// cycle's eviction limits, workload budgets and PodDisruptionBudgets.
func ShareEvictor(ev framework.Evictor) framework.Evictor {
	s := &sharedEvictor{Evictor: ev, budget: ev.Budget()}
	if wp, ok := ev.(framework.WorkloadPlanner); ok {
		s.plan = wp.WorkloadPlan()
	}
	return s
}

type sharedEvictor struct {
	framework.Evictor
	budget *framework.Budget
	plan   framework.WorkloadPlan
}

func (s *sharedEvictor) Budget() *framework.Budget            { return s.budget }
func (s *sharedEvictor) WorkloadPlan() framework.WorkloadPlan { return s.plan }
