package simulator

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// DefaultRepeatCooldown is Repeated.Cooldown when the policy has no
// workload cooldown (hysteresis.workloadCooldown is off by default): an
// hour, the window of Loops, so that policies are compared on one scale.
const DefaultRepeatCooldown = time.Hour

// MaxNoise bounds Config.Noise: a factor drawn from [1-Noise, 1+Noise] must
// stay positive.
const MaxNoise = 0.9

// Config is what a simulation runs.
type Config struct {
	// Profiles are the policy's strategies, as the live descheduler runs
	// them.
	Profiles []descheduler.Profile
	// Limits are the policy's cycle-wide eviction limits.
	Limits framework.Limits
	// NodeSelector is the policy's nodeSelector (nil: every node).
	NodeSelector labels.Selector
	// OnCycle, when set, is called after cycle k (from 1) has run, e.g. to
	// show progress.
	OnCycle func(k int)
	// Wall is the real clock that measures how long each simulated cycle
	// takes (logged beside the simulated time); nil logs simulated time only.
	Wall clock.PassiveClock
	// Cycles is the number of cycles (>= 1) and Interval the time between
	// them (> 0).
	Cycles   int
	Interval time.Duration
	// Seed drives every random choice: replacement names, the scheduler
	// model's tie-breaks and the noise.
	Seed uint64
	// Noise in [0, MaxNoise]: every generated sample is multiplied by a
	// factor drawn uniformly from [1-Noise, 1+Noise].
	Noise float64
	// Usage is how usage samples are generated, kept and aggregated.
	Usage UsageConfig
	// History is the eviction history the first cycle starts with (e.g.
	// `--history`); nil: none. The simulation adds to it.
	History *descheduler.State
	// Target says when a node is over target (Stats.NodesOverTarget);
	// nil Thresholds: the figure is not computed.
	Target Target
	// Targets are the targets of every LowNodeUtilization plugin, in
	// profile order, when its profiles have node selectors or it has node
	// pools (one target per pool, then the plugin's own for the nodes in
	// no pool): a node is judged by the first whose Nodes select it and
	// whose Except do not (its own profile's and pool's thresholds), and
	// nodes none selects are not judged. Empty: Target judges every node.
	Targets []Target
	// PodStartup is how long a replacement runs on its node before it is
	// Ready (0: Ready as soon as it is bound). Until then the workload
	// that owns it counts it as unavailable.
	PodStartup time.Duration
	// Budget, when set, tells each workload's budget, so that the summary
	// says which workloads went below it (WorkloadAvailability).
	Budget BudgetFunc
	// RepeatCooldown is the window of Repeated.WithinCooldown; 0:
	// DefaultRepeatCooldown.
	RepeatCooldown time.Duration
}

// UsageConfig is how the simulated metrics pipeline works.
type UsageConfig struct {
	// PollInterval is the time between generated samples (the collector's
	// poll interval).
	PollInterval time.Duration
	// Window is how long samples are kept (the largest window of the
	// plugins), and Aggregate how the report aggregates them (the first
	// usage plugin's window configuration).
	Window    time.Duration
	Aggregate window.Config
	// Measures are the series the report judges a node's usage by (the
	// first usage plugin's); zero means cpu and memory.
	Measures usage.Measures
}

// Target is the overutilization target of a LowNodeUtilization plugin
// (Config.Target: the first plugin's), or of one of its node pools.
type Target struct {
	// Thresholds are its targetThresholds, percent per resource.
	Thresholds map[v1.ResourceName]float64
	// Deviation: the thresholds are points above the mean over the
	// considered nodes (useDeviationThresholds).
	Deviation bool
	// Requests and Usage say which views count: a node is over target when
	// it is over in a view that counts (usage only where it is known).
	Requests, Usage bool
	// Profile is the name of the profile with that plugin: its
	// DefaultEvictor says which pods the lower bound may count.
	Profile string
	// Nodes is the profile's nodeSelector, with a node pool's selector
	// added: the nodes this target judges (see Config.Targets); nil:
	// every node.
	Nodes labels.Selector
	// Except are selectors of nodes this target does not judge although
	// Nodes selects them: the other pools' selectors for a pool's target
	// (a node two pools select is in neither), every pool's for the
	// target of the nodes in no pool.
	Except []labels.Selector
	// Pool names the node pool this target judges ("" for a plugin's own
	// target); a Config.Targets entry with a Pool gets a PoolSummary.
	Pool string
}

// targets returns the targets nodes are judged by: Targets, else Target
// alone (none without target thresholds).
func (c *Config) targets() []Target {
	if len(c.Targets) > 0 {
		return c.Targets
	}
	if len(c.Target.Thresholds) == 0 {
		return nil
	}
	return []Target{c.Target}
}

// scopeOf returns the index of the first of targets whose Nodes select n
// and whose Except do not, -1 when none does.
func scopeOf(targets []Target, n *v1.Node) int {
	set := labels.Set(n.Labels)
	for i, t := range targets {
		if t.Judges(set) {
			return i
		}
	}
	return -1
}

// Judges reports whether t judges a node with labels set: Nodes (nil:
// every node) selects it and none of Except does.
func (t *Target) Judges(set labels.Set) bool {
	if t.Nodes != nil && !t.Nodes.Matches(set) {
		return false
	}
	for _, ex := range t.Except {
		if ex.Matches(set) {
			return false
		}
	}
	return true
}

// allNodes reports whether targets are one target that judges every node.
func allNodes(targets []Target) bool {
	return len(targets) == 1 && targets[0].Nodes == nil && len(targets[0].Except) == 0
}

// validate reports every problem of c.
func (c *Config) validate() error {
	var errs []error
	if c.Cycles < 1 {
		errs = append(errs, fmt.Errorf("cycles must be at least 1, not %d", c.Cycles))
	}
	if c.Interval <= 0 {
		errs = append(errs, fmt.Errorf("interval must be positive, not %v", c.Interval))
	}
	if c.Noise < 0 || c.Noise > MaxNoise {
		errs = append(errs, fmt.Errorf("noise must be between 0 and %v (a fraction), not %v", MaxNoise, c.Noise))
	}
	if c.PodStartup < 0 {
		errs = append(errs, fmt.Errorf("pod startup must not be negative, not %v", c.PodStartup))
	}
	if c.Usage.PollInterval <= 0 || c.Usage.Window <= 0 {
		errs = append(errs, fmt.Errorf("usage poll interval (%v) and window (%v) must be positive",
			c.Usage.PollInterval, c.Usage.Window))
	}
	return errors.Join(errs...)
}

func (c *Config) repeatCooldown() time.Duration {
	if c.RepeatCooldown > 0 {
		return c.RepeatCooldown
	}
	return DefaultRepeatCooldown
}

// outcomeWindow is how long after an eviction its outcome is judged: the
// usage window of the first usage plugin (the aggregated usage before it
// still holds the evicted pod), else the longest window, else 0 (the
// next state).
func (c *Config) outcomeWindow() time.Duration {
	if c.Usage.Aggregate.Window > 0 {
		return c.Usage.Aggregate.Window
	}
	return c.Usage.Window
}
