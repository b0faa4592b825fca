package nodeutilization

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// Bands are the bands of the two views. Use is unused in mode Requests.
type Bands struct {
	// Req is the band of the request view.
	Req Band
	// Use is the band of the usage view.
	Use Band
	// UsageOver, when set, decides whether a node is over by usage instead
	// of IsOver(u.Usage, Use.High) (the hysteresis: Hot.UsageSource).
	UsageOver func(u *NodeUtil) bool
}

// usageOver reports whether u is over by usage.
func (b Bands) usageOver(u *NodeUtil) bool {
	if b.UsageOver != nil {
		return b.UsageOver(u)
	}
	return IsOver(u.Usage, b.Use.High)
}

// LowBands computes the bands of nodes: static (the thresholds as given)
// or, with deviation, around the mean of each view over nodes (the usage
// mean over the usage views only, so MetricResource's mean is over the
// nodes with a known value). The request band leaves MetricResource out
// (RequestThresholds); the usage band keeps only what the usage view can
// judge (UsageThresholds with m).
func LowBands(nodes []*NodeUtil, low, high Thresholds, deviation bool, m usage.Measures) Bands {
	reqLow, reqHigh := RequestThresholds(low), RequestThresholds(high)
	if !deviation {
		return Bands{Req: StaticBand(reqLow, reqHigh), Use: usageBand(StaticBand(low, high), m)}
	}
	return Bands{Req: DeviationBand(nodes, reqLow, reqHigh),
		Use: usageBand(DeviationBand(UsageViews(nodes), UsageThresholds(low, m), UsageThresholds(high, m)), m)}
}

// usageBand restricts b to what the usage view judges (UsageThresholds).
func usageBand(b Band, m usage.Measures) Band {
	return Band{Low: UsageThresholds(b.Low, m), High: UsageThresholds(b.High, m)}
}

// under reports whether u is at or below limits in the view(s) of mode:
// both views for Both, only one otherwise.
func under(u *NodeUtil, mode ClassificationMode, req, use Thresholds) bool {
	switch mode {
	case ClassifyUsage:
		return IsUnder(u.Usage, use)
	case ClassifyBoth:
		return IsUnder(u, req) && IsUnder(u.Usage, use)
	default:
		return IsUnder(u, req)
	}
}

// over reports whether u is above the High limits in some view of mode.
func over(u *NodeUtil, mode ClassificationMode, b Bands) bool {
	switch mode {
	case ClassifyUsage:
		return b.usageOver(u)
	case ClassifyBoth:
		return IsOver(u, b.Req.High) || b.usageOver(u)
	default:
		return IsOver(u, b.Req.High)
	}
}

// ClassifyLowViews is ClassifyLow over the views of mode: underutilized
// when schedulable and under band.Low in every view of the mode (Both:
// both), overutilized when over band.High in some view of the mode (Both:
// either; by usage as b.UsageOver says when set). Mode Requests is
// exactly ClassifyLow.
func ClassifyLowViews(nodes []*NodeUtil, mode ClassificationMode, b Bands) Classification {
	if mode == ClassifyRequests || mode == "" {
		return ClassifyLow(nodes, b.Req)
	}
	var c Classification
	for _, u := range nodes {
		switch {
		case !u.Info.Unschedulable() && under(u, mode, b.Req.Low, b.Use.Low):
			c.Under = append(c.Under, u)
		case over(u, mode, b):
			c.Over = append(c.Over, u)
		default:
			c.Appropriate = append(c.Appropriate, u)
		}
	}
	return c
}

// ClassifyHighViews is ClassifyHigh over the views of mode: a node under
// its view's thresholds (req for the request view, use for the usage view)
// in every view of the mode is underutilized (a source); other schedulable
// nodes are destinations (Over); cordoned ones appropriate.
func ClassifyHighViews(nodes []*NodeUtil, mode ClassificationMode, req, use Thresholds) Classification {
	if mode == ClassifyRequests || mode == "" {
		return ClassifyHigh(nodes, req)
	}
	var c Classification
	for _, u := range nodes {
		switch {
		case under(u, mode, req, use):
			c.Under = append(c.Under, u)
		case !u.Info.Unschedulable():
			c.Over = append(c.Over, u)
		default:
			c.Appropriate = append(c.Appropriate, u)
		}
	}
	return c
}

// SortByViews is SortByUsage on the highest percentage over the views of
// v.Mode (Both: the larger of the two views' highest percentages; the
// usage view counts its measured resources, v.Measured()). Mode Requests
// is exactly SortByUsage.
func SortByViews(nodes []*NodeUtil, v Views, names []v1.ResourceName, mostUsedFirst bool) {
	measured := v.Measured()
	sortByKey(nodes, func(u *NodeUtil) float64 { return fill(u, v.Mode, names, measured) }, mostUsedFirst)
}

// fill is the highest used percentage of u in the view(s) of mode.
func fill(u *NodeUtil, mode ClassificationMode, names, measured []v1.ResourceName) float64 {
	switch {
	case u.Usage == nil || mode == ClassifyRequests || mode == "":
		return u.MaxPercent(names)
	case mode == ClassifyUsage:
		return u.Usage.MaxPercent(measured)
	default:
		return max(u.MaxPercent(names), u.Usage.MaxPercent(measured))
	}
}
