package report

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// blockedResult is the eviction result of an eviction a
// PodDisruptionBudget forbade.
const blockedResult = "blocked_by_pdb"

// point is one position on the shared x axis: a cycle's start, or the end
// state one interval after the last cycle.
type point struct {
	// x is the cycle number; the end state is the last cycle's plus one.
	x float64
	// start is true for a cycle start, false for the end state.
	start bool
	nodes []explain.Node
	stats simulator.Stats
	// blocked counts the cycle's evictions a PodDisruptionBudget forbade.
	blocked int
}

// timeline returns the points of res: every cycle's start, then the end
// state when res has one (a zero End, as a hand-built Result may have, is
// left out).
func timeline(res *simulator.Result) []point {
	pts := make([]point, 0, len(res.Cycles)+1)
	for _, c := range res.Cycles {
		p := point{x: float64(c.Cycle), start: true, nodes: c.Nodes, stats: c.Stats}
		for _, e := range c.Evictions {
			if e.Result == blockedResult {
				p.blocked++
			}
		}
		pts = append(pts, p)
	}
	if len(res.Cycles) > 0 && (len(res.End.Nodes) > 0 || !res.End.Time.IsZero()) {
		last := res.Cycles[len(res.Cycles)-1].Cycle
		pts = append(pts, point{x: float64(last + 1), nodes: res.End.Nodes, stats: res.End.Stats})
	}
	return pts
}

// series is one node's usage of one resource over the points.
type series struct {
	name string
	// vals is the usage % of allocatable per point; NaN where it is
	// unknown (usage missing or stale, or the node not considered then).
	vals []float64
	// known counts the points with known usage; max is the highest of them
	// (NaN when none is known).
	known int
	max   float64
	// over is true when the node was over the resource's target, or
	// classified overutilized, at some cycle start.
	over bool
}

// resource is a resource the report charts per node, named as in
// Summary.Target.
type resource string

// The charted resources.
const (
	cpuRes resource = "cpu"
	memRes resource = "memory"
)

// title is how chart titles name r.
func (r resource) title() string {
	if r == cpuRes {
		return "CPU"
	}
	return "Memory"
}

// target returns the resource's target percentage in res, if it has one.
func (r resource) target(res *simulator.Result) (float64, bool) {
	t, ok := res.Summary.Target[string(r)]
	return t, ok
}

// value returns the node's usage % of r, if known and finite.
func (r resource) value(n explain.Node) (float64, bool) {
	if n.Usage == nil {
		return 0, false
	}
	v := n.Usage.Memory
	if r == cpuRes {
		v = n.Usage.CPU
	}
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return 0, false
	}
	return *v, true
}

// cpuTarget returns the cpu target percentage of res, if it has one.
func cpuTarget(res *simulator.Result) (float64, bool) { return cpuRes.target(res) }

// nodeSeries returns every node that appears at some point, in name order,
// with its usage of r per point. A node is over target when, at a cycle
// start, its usage exceeds target (hasTarget) or, for cpu, its
// classification is overutilized (the classes' first threshold is cpu's;
// a memory chart marks only nodes over the memory target).
func nodeSeries(pts []point, r resource, target float64, hasTarget bool) []series {
	index := map[string]int{}
	var out []series
	for i, p := range pts {
		for _, n := range p.nodes {
			k, ok := index[n.Name]
			if !ok {
				k = len(out)
				index[n.Name] = k
				out = append(out, newSeries(n.Name, len(pts)))
			}
			s := &out[k]
			if p.start && r == cpuRes && n.Classification == framework.ClassOverutilized {
				s.over = true
			}
			v, known := r.value(n)
			if !known {
				continue
			}
			s.vals[i] = v
			s.known++
			if s.known == 1 || v > s.max {
				s.max = v
			}
			if p.start && hasTarget && v > target {
				s.over = true
			}
		}
	}
	slices.SortFunc(out, func(a, b series) int { return cmp.Compare(a.name, b.name) })
	return out
}

func newSeries(name string, n int) series {
	return series{name: name, vals: nans(n), max: math.NaN()}
}

// nans returns n NaNs.
func nans(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// anyKnown reports whether some node has known usage at some point.
func anyKnown(ss []series) bool {
	return slices.ContainsFunc(ss, func(s series) bool { return s.known > 0 })
}

// interesting returns at most limit nodes with known usage, most interesting
// first: nodes over target before the others, then by highest maximum,
// then by name.
func interesting(ss []series, limit int) []series {
	var cand []series
	for _, s := range ss {
		if s.known > 0 {
			cand = append(cand, s)
		}
	}
	slices.SortStableFunc(cand, func(a, b series) int {
		if a.over != b.over {
			if a.over {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.max, a.max); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	return cand[:min(limit, len(cand))]
}

// band is the min, mean, max and population stddev of the usage over the
// nodes with known usage per point; NaN at points where no node's usage is
// known.
type band struct {
	lo, mean, hi, sd []float64
}

// usageBand computes the band over ss, which all have one value per point.
func usageBand(ss []series, points int) band {
	b := band{lo: make([]float64, points), mean: make([]float64, points), hi: make([]float64, points),
		sd: make([]float64, points)}
	vals := make([]float64, 0, len(ss))
	for i := range points {
		vals = vals[:0]
		for _, s := range ss {
			if !math.IsNaN(s.vals[i]) {
				vals = append(vals, s.vals[i])
			}
		}
		if len(vals) == 0 {
			b.lo[i], b.mean[i], b.hi[i], b.sd[i] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			continue
		}
		b.lo[i], b.mean[i], b.hi[i] = floats.Min(vals), stat.Mean(vals, nil), floats.Max(vals)
		b.sd[i] = stat.PopStdDev(vals, nil)
	}
	return b
}

// xy is one plotted point.
type xy struct{ x, y float64 }

// runs splits the points (xs[i], ys[i]) into maximal runs without NaN, so
// that an unknown value leaves a gap in a line instead of reading as zero.
func runs(xs, ys []float64) [][]xy {
	var out [][]xy
	var cur []xy
	for i, y := range ys {
		if math.IsNaN(y) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, xy{xs[i], y})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// xs returns the x positions of pts.
func xs(pts []point) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.x
	}
	return out
}

// figure returns, per point, value of the spread that spread picks from the
// point's stats; NaN where spread returns nil (no node's usage known).
func figure(pts []point, spread func(*simulator.Stats) *simulator.Spread, value func(simulator.Spread) float64) []float64 {
	out := make([]float64, len(pts))
	for i := range pts {
		out[i] = math.NaN()
		if s := spread(&pts[i].stats); s != nil {
			out[i] = value(*s)
		}
	}
	return out
}
