package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

const (
	// maxAllLines is the largest cluster drawn with one line per node.
	maxAllLines = 12
	// maxHighlighted is how many nodes a larger cluster's chart draws
	// individually beside the band.
	maxHighlighted = 8
	percentLabel   = "% of allocatable cpu"
)

// chart is one plot and its legend, drawn in a strip right of the plot.
type chart struct {
	p      *plot.Plot
	legend plot.Legend
}

// input is what the charts are drawn from.
type input struct {
	res    *simulator.Result
	pts    []point
	hasEnd bool
}

func newInput(res *simulator.Result) input {
	pts := timeline(res)
	return input{res: res, pts: pts, hasEnd: len(pts) > len(res.Cycles)}
}

// xLabel names the x axis, which counts cycles.
func (in input) xLabel() string {
	s := "cycle"
	if iv := in.res.Summary.Interval; iv != "" {
		s += " (every " + iv + ")"
	}
	if in.hasEnd {
		s += "; end: one interval after the last cycle"
	}
	return s
}

// charts builds the three charts of the report, top to bottom.
func charts(in input) ([]chart, error) {
	usage, err := usageChart(in)
	if err != nil {
		return nil, fmt.Errorf("cpu usage chart: %w", err)
	}
	spread, err := spreadChart(in)
	if err != nil {
		return nil, fmt.Errorf("spread chart: %w", err)
	}
	evictions, err := evictionChart(in)
	if err != nil {
		return nil, fmt.Errorf("evictions chart: %w", err)
	}
	return []chart{usage, spread, evictions}, nil
}

// usageChart is chart 1: every node's cpu usage over the cycles, or for a
// large cluster the min–max band, the mean and the most interesting nodes.
func usageChart(in input) (chart, error) {
	target, hasTarget := cpuTarget(in.res)
	ss := nodeSeries(in.pts, target, hasTarget)
	c := chart{legend: newLegend()}
	if !anyKnown(ss) {
		c.p = newPlot(fmt.Sprintf("CPU usage per node: no usage known for any of the %d nodes at any cycle", len(ss)), "", "")
		c.p.HideAxes()
		return c, nil
	}
	title := "CPU usage per node"
	c.p = newPlot(title, in.xLabel(), percentLabel)
	x := xs(in.pts)
	var err error
	if len(ss) <= maxAllLines {
		err = addNodeLines(c.p, &c.legend, x, ss)
	} else {
		shown := interesting(ss, maxHighlighted)
		c.p.Title.Text = fmt.Sprintf("CPU usage: %d nodes (band: min–max, line: mean; %d nodes shown, over target or highest first)",
			len(ss), len(shown))
		err = addBand(c.p, &c.legend, x, ss)
		if err == nil {
			err = addNodeLines(c.p, &c.legend, x, shown)
		}
	}
	if err == nil && hasTarget {
		err = addTarget(c.p, &c.legend, in.pts, target)
	}
	if err != nil {
		return chart{}, err
	}
	setCycleAxis(c.p, in.pts, in.hasEnd)
	c.p.Y.Min, c.p.Y.Max = 0, math.Max(100, c.p.Y.Max)
	return c, nil
}

// addNodeLines draws one line per node that has known usage, with a
// distinct color and point shape; nodes never known get a legend entry
// saying so.
func addNodeLines(p *plot.Plot, leg *plot.Legend, x []float64, ss []series) error {
	colors, shapes := palette(), glyphs()
	drawn := 0
	for _, s := range ss {
		if s.known == 0 {
			leg.Add(legendLabel(s.name) + " (usage unknown)")
			continue
		}
		thumbs, err := addLine(p, x, s.cpu, lineStyle{
			color: colors[drawn%len(colors)], width: vg.Points(1.3), glyph: shapes[drawn%len(shapes)],
		})
		if err != nil {
			return fmt.Errorf("node %s: %w", s.name, err)
		}
		leg.Add(legendLabel(s.name), thumbs...)
		drawn++
	}
	return nil
}

// addBand draws the min–max band (one polygon per run of points with known
// usage) and the mean line over all nodes.
func addBand(p *plot.Plot, leg *plot.Legend, x []float64, ss []series) error {
	b := usageBand(ss, len(x))
	hiRuns := runs(x, b.hi)
	loRuns := runs(x, b.lo)
	rings := make([]plotter.XYer, len(hiRuns))
	for i, hi := range hiRuns {
		ring := toXYs(hi)
		lo := loRuns[i]
		for j := len(lo) - 1; j >= 0; j-- {
			ring = append(ring, plotter.XY{X: lo[j].x, Y: lo[j].y})
		}
		rings[i] = ring
	}
	fill := color.RGBA{R: 0xc6, G: 0xd4, B: 0xe6, A: 0xff}
	poly, err := plotter.NewPolygon(rings...)
	if err != nil {
		return fmt.Errorf("plotting the min–max band: %w", err)
	}
	poly.Color = fill
	// The outline keeps a band of a single point (between gaps) visible.
	poly.LineStyle.Color, poly.LineStyle.Width = fill, vg.Points(1)
	p.Add(poly)
	leg.Add(fmt.Sprintf("min–max of %d nodes", len(ss)), poly)
	thumbs, err := addLine(p, x, b.mean, lineStyle{color: color.Gray{Y: 40}, width: vg.Points(1.8)})
	if err != nil {
		return fmt.Errorf("plotting the mean: %w", err)
	}
	leg.Add("mean", thumbs...)
	return nil
}

// spreadChart is chart 2: how evenly the cpu is used and requested.
func spreadChart(in input) (chart, error) {
	c := chart{p: newPlot("Spread over nodes", in.xLabel(), percentLabel), legend: newLegend()}
	usage := func(s *simulator.Stats) *simulator.Spread { return s.CPUUsage }
	requests := func(s *simulator.Stats) *simulator.Spread { return &s.CPURequests }
	maxOf := func(s simulator.Spread) float64 { return s.Max }
	stddev := func(s simulator.Spread) float64 { return s.StdDev }
	colors, shapes := palette(), glyphs()
	lines := []struct {
		name string
		ys   []float64
		sty  lineStyle
	}{
		{"cpu usage max", figure(in.pts, usage, maxOf), lineStyle{color: colors[2], glyph: shapes[1]}},
		{"cpu usage stddev", figure(in.pts, usage, stddev), lineStyle{color: colors[0], glyph: shapes[0]}},
		{"cpu requests stddev", figure(in.pts, requests, stddev), lineStyle{color: colors[4], glyph: shapes[2]}},
	}
	x := xs(in.pts)
	for _, l := range lines {
		l.sty.width = vg.Points(1.5)
		thumbs, err := addLine(c.p, x, l.ys, l.sty)
		if err != nil {
			return chart{}, fmt.Errorf("%s: %w", l.name, err)
		}
		c.legend.Add(l.name, thumbs...)
	}
	if target, ok := cpuTarget(in.res); ok {
		if err := addTarget(c.p, &c.legend, in.pts, target); err != nil {
			return chart{}, err
		}
	}
	setCycleAxis(c.p, in.pts, in.hasEnd)
	c.p.Y.Min, c.p.Y.Max = 0, math.Max(1, c.p.Y.Max)
	return c, nil
}

// evictionChart is chart 3: per cycle, the simulated evictions and, beside
// them, the ones a PodDisruptionBudget blocked.
func evictionChart(in input) (chart, error) {
	c := chart{p: newPlot("Evictions per cycle", in.xLabel(), "evictions"), legend: newLegend()}
	var done, blocked []plotter.XYer
	top := 0
	for _, p := range in.pts {
		if !p.start {
			continue
		}
		done = appendBar(done, p.x-0.36, p.x-0.02, p.stats.Evictions)
		blocked = appendBar(blocked, p.x+0.02, p.x+0.36, p.blocked)
		top = max(top, p.stats.Evictions, p.blocked)
	}
	bars := []struct {
		name  string
		rings []plotter.XYer
		color color.Color
	}{
		{"evicted (simulated)", done, rgb(0x4e79a7)},
		{"blocked by PodDisruptionBudget", blocked, rgb(0xe15759)},
	}
	for _, b := range bars {
		poly, err := plotter.NewPolygon(b.rings...)
		if err != nil {
			return chart{}, fmt.Errorf("plotting %s bars: %w", b.name, err)
		}
		poly.Color = b.color
		poly.LineStyle.Width = 0
		if len(b.rings) > 0 {
			c.p.Add(poly)
		}
		c.legend.Add(b.name, poly)
	}
	if top == 0 {
		c.p.Title.Text += ": none"
	}
	setCycleAxis(c.p, in.pts, in.hasEnd)
	c.p.Y.Tick.Marker = countTicks{}
	step := niceStep(top, maxCountTicks)
	c.p.Y.Min, c.p.Y.Max = 0, float64(max(1, (top+step-1)/step*step))
	return c, nil
}

// appendBar appends the rectangle of a bar from x0 to x1 of height n, if n
// is positive.
func appendBar(rings []plotter.XYer, x0, x1 float64, n int) []plotter.XYer {
	if n <= 0 {
		return rings
	}
	h := float64(n)
	return append(rings, plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: h}, {X: x0, Y: h}})
}
