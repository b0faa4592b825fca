package scenario

import (
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Defaults filled in by Params.Default.
const (
	DefaultPodsPerNode    = 30
	DefaultHotFraction    = 0.1
	DefaultZones          = 3
	DefaultUsageWindow    = 10 * time.Minute
	DefaultSampleInterval = time.Minute
)

// Limits checked by Params.Validate.
const (
	// MaxNodes bounds the cluster size (node names have at least five digits).
	MaxNodes = 100_000
	// MaxPodsPerNode leaves room under the nodes' 110-pod capacity for the
	// placement constraints.
	MaxPodsPerNode = 100
	// MaxZones bounds the zones (placement scans them for every pod).
	MaxZones = 100
	// MaxPods bounds Nodes × PodsPerNode (a million pods take about 3 GB).
	MaxPods = 1_000_000
	// MaxSamplesPerSeries bounds UsageWindow / SampleInterval + 1, so that a
	// long window at a short interval cannot ask for billions of samples.
	MaxSamplesPerSeries = 1000
)

// DefaultNow is the default end of the usage samples: a fixed time, so that
// generated files are reproducible.
var DefaultNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// Params describe the cluster to generate. Equal Params generate deeply
// equal Objects.
type Params struct {
	// Nodes is the number of nodes (no default).
	Nodes int
	// PodsPerNode is the mean number of live pods per node, DaemonSet pods
	// included: the cluster holds exactly Nodes × PodsPerNode live pods
	// plus about 0.1% Failed ones.
	PodsPerNode int
	// HotFraction is the share of nodes hot by real usage: round(HotFraction
	// × Nodes) nodes run at 87-93% cpu usage while requesting no more than
	// the others.
	HotFraction float64
	// RequestsSkew is 0 for requests spread evenly (every node at about the
	// same requested cpu %) up to 1 for strongly skewed requests (a few
	// nodes full, many nearly empty).
	RequestsSkew float64
	// Zones is the number of zones; nodes are assigned round robin.
	Zones int
	// Seed seeds every random choice.
	Seed int64
	// Now is the time of the newest usage sample; simulate at this time.
	Now time.Time
	// UsageWindow is how much usage history to generate.
	UsageWindow time.Duration
	// SampleInterval is the time between two usage samples.
	SampleInterval time.Duration
	// Realistic gives pods and nodes what real ones carry besides what the
	// model decides (env, probes, volumes, annotations, managedFields,
	// container status IDs, node images: about 4 KB per pod as protobuf, 7 KB
	// as JSON), for
	// memory measurements. It changes no decision: the other fields and
	// objects are as without it.
	Realistic bool
}

// Default fills every zero field that has a default: PodsPerNode 30,
// HotFraction 0.1, Zones 3, Now DefaultNow, UsageWindow 10m, SampleInterval
// 1m. Nodes, RequestsSkew and Seed have none (zero is a valid value of the
// last two). A HotFraction of 0 (no hot node) must therefore be set after
// Default is called.
func (p *Params) Default() {
	if p.PodsPerNode == 0 {
		p.PodsPerNode = DefaultPodsPerNode
	}
	if p.HotFraction == 0 {
		p.HotFraction = DefaultHotFraction
	}
	if p.Zones == 0 {
		p.Zones = DefaultZones
	}
	if p.Now.IsZero() {
		p.Now = DefaultNow
	}
	if p.UsageWindow == 0 {
		p.UsageWindow = DefaultUsageWindow
	}
	if p.SampleInterval == 0 {
		p.SampleInterval = DefaultSampleInterval
	}
}

// Validate returns every problem of p, each with its field path (the
// Params field name in lower camel case).
func (p Params) Validate() field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, intRange(p.Nodes, 1, MaxNodes, field.NewPath("nodes"))...)
	errs = append(errs, intRange(p.PodsPerNode, 1, MaxPodsPerNode, field.NewPath("podsPerNode"))...)
	if len(errs) == 0 && p.Nodes*p.PodsPerNode > MaxPods {
		errs = append(errs, field.Invalid(field.NewPath("podsPerNode"), p.PodsPerNode,
			fmt.Sprintf("nodes × podsPerNode = %d exceeds %d pods", p.Nodes*p.PodsPerNode, MaxPods)))
	}
	errs = append(errs, fraction(p.HotFraction, field.NewPath("hotFraction"))...)
	errs = append(errs, fraction(p.RequestsSkew, field.NewPath("requestsSkew"))...)
	errs = append(errs, validateZones(p.Zones, p.Nodes, field.NewPath("zones"))...)
	errs = append(errs, validateTimes(p)...)
	return errs
}

func intRange(v, lo, hi int, path *field.Path) field.ErrorList {
	if v < lo || v > hi {
		return field.ErrorList{field.Invalid(path, v, fmt.Sprintf("must be between %d and %d", lo, hi))}
	}
	return nil
}

func fraction(v float64, path *field.Path) field.ErrorList {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return field.ErrorList{field.Invalid(path, v, "must be between 0 and 1")}
	}
	return nil
}

func validateZones(zones, nodes int, path *field.Path) field.ErrorList {
	if zones < 1 || zones > MaxZones {
		return field.ErrorList{field.Invalid(path, zones, fmt.Sprintf("must be between 1 and %d", MaxZones))}
	}
	if nodes >= 1 && zones > nodes {
		return field.ErrorList{field.Invalid(path, zones, fmt.Sprintf("must not exceed the %d nodes (a zone needs a node)", nodes))}
	}
	return nil
}

// validateTimes checks Now, the window and the interval. Snapshot files
// keep times to the second, so all three must be whole seconds.
func validateTimes(p Params) field.ErrorList {
	var errs field.ErrorList
	now, window, interval := field.NewPath("now"), field.NewPath("usageWindow"), field.NewPath("sampleInterval")
	if p.Now.IsZero() {
		errs = append(errs, field.Required(now, "the time of the newest usage sample"))
	} else if p.Now.Nanosecond() != 0 {
		errs = append(errs, field.Invalid(now, p.Now.Format(time.RFC3339Nano), "must be a whole second"))
	}
	intervalOK := p.SampleInterval > 0 && p.SampleInterval%time.Second == 0
	if !intervalOK {
		errs = append(errs, field.Invalid(interval, p.SampleInterval.String(), "must be a positive whole number of seconds"))
	}
	switch {
	case p.UsageWindow <= 0 || p.UsageWindow%time.Second != 0:
		errs = append(errs, field.Invalid(window, p.UsageWindow.String(), "must be a positive whole number of seconds"))
	case !intervalOK:
	case p.UsageWindow < p.SampleInterval:
		errs = append(errs, field.Invalid(window, p.UsageWindow.String(),
			fmt.Sprintf("must be at least sampleInterval %s", p.SampleInterval)))
	case int64(p.UsageWindow/p.SampleInterval) >= MaxSamplesPerSeries:
		errs = append(errs, field.Invalid(window, p.UsageWindow.String(),
			fmt.Sprintf("gives more than %d samples per series at sampleInterval %s", MaxSamplesPerSeries, p.SampleInterval)))
	}
	return errs
}

// samplesPerSeries is the number of samples of every series: one at Now and
// one every SampleInterval before it, back to Now − UsageWindow.
func (p Params) samplesPerSeries() int { return int(p.UsageWindow/p.SampleInterval) + 1 }
