package report

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// figureLine is one line of a spread chart.
type figureLine struct {
	name string
	ys   []float64
	sty  lineStyle
}

// peakChart shows the highest node usage of cpu and memory per point,
// with their targets, on its own percentage axis.
func peakChart(in input) (chart, error) {
	colors, shapes, dashes := palette(), glyphs(), dashPatterns()
	usage := func(s *simulator.Stats) *simulator.Spread { return s.CPUUsage }
	lines := []figureLine{
		{"cpu usage max", figure(in.pts, usage, func(s simulator.Spread) float64 { return s.Max }),
			lineStyle{color: colors[1], glyph: shapes[1]}},
		{"memory usage max", resourceBand(in.pts, memRes).hi,
			lineStyle{color: colors[0], glyph: shapes[0], dashes: dashes[1]}},
	}
	c := chart{p: newPlot("Highest node usage", in.xLabel(true), "% of allocatable"), legend: newLegend()}
	hi, err := addFigures(&c, in, lines)
	if err != nil {
		return chart{}, err
	}
	for _, r := range []resource{cpuRes, memRes} {
		if t, ok := r.target(in.res); ok {
			if err := addTarget(c.p, &c.legend, in.pts, string(r), t); err != nil {
				return chart{}, err
			}
			hi = max(hi, t)
		}
	}
	setPercentAxis(c.p, hi, 0)
	c.top = hi
	return c, nil
}

// stddevChart shows how evenly the nodes are used and requested: the
// population standard deviation over the nodes per point.
func stddevChart(in input) (chart, error) {
	colors, shapes, dashes := palette(), glyphs(), dashPatterns()
	usage := func(s *simulator.Stats) *simulator.Spread { return s.CPUUsage }
	requests := func(s *simulator.Stats) *simulator.Spread { return &s.CPURequests }
	stddev := func(s simulator.Spread) float64 { return s.StdDev }
	lines := []figureLine{
		{"cpu usage stddev", figure(in.pts, usage, stddev), lineStyle{color: colors[1], glyph: shapes[1]}},
		{"memory usage stddev", resourceBand(in.pts, memRes).sd,
			lineStyle{color: colors[0], glyph: shapes[0], dashes: dashes[1]}},
		{"cpu requests stddev", figure(in.pts, requests, stddev),
			lineStyle{color: colors[2], glyph: shapes[2], dashes: dashes[2]}},
	}
	c := chart{p: newPlot("Spread over nodes (standard deviation)", in.xLabel(true), "percentage points"), legend: newLegend()}
	hi, err := addFigures(&c, in, lines)
	if err != nil {
		return chart{}, err
	}
	setPercentAxis(c.p, hi, 0)
	c.top = hi
	return c, nil
}

// resourceBand is the band of r's usage over the nodes per point.
func resourceBand(pts []point, r resource) band {
	return usageBand(nodeSeries(pts, r, 0, false), len(pts))
}

// addFigures draws the lines that have some known value (a line without
// any gets a legend entry saying so), sets the cycle axis and returns the
// highest value drawn.
func addFigures(c *chart, in input, lines []figureLine) (float64, error) {
	x := xs(in.pts)
	hi := 0.0
	for _, l := range lines {
		known := false
		for _, y := range l.ys {
			if !math.IsNaN(y) {
				known, hi = true, max(hi, y)
			}
		}
		if !known {
			c.legend.Add(l.name + " (unknown)")
			continue
		}
		l.sty.width = vg.Points(1.5)
		thumbs, err := addLine(c.p, x, l.ys, l.sty)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", l.name, err)
		}
		c.legend.Add(l.name, thumbs...)
	}
	setCycleAxis(c.p, in.pts, in.hasEnd)
	return hi, nil
}

// evictionChart shows per cycle the simulated evictions and, stacked on
// them, the attempts a PodDisruptionBudget blocked: one bar centred on
// each cycle's tick. Its x axis has the cycles only (the end state
// evicts nothing).
func evictionChart(in input) (chart, error) {
	c := chart{p: newPlot("Evictions per cycle", in.xLabel(false), "evictions"), legend: newLegend()}
	var done, blocked []plotter.XYer
	top := 0
	for _, p := range in.starts() {
		e := p.stats.Evictions
		done = appendBar(done, p.x, 0, e)
		blocked = appendBar(blocked, p.x, e, p.blocked)
		top = max(top, e+p.blocked)
	}
	bars := []struct {
		name  string
		rings []plotter.XYer
		color uint32
	}{
		{"evicted (simulated)", done, 0x0072b2},
		{"blocked by PodDisruptionBudget", blocked, 0xd55e00},
	}
	for _, b := range bars {
		poly, err := plotter.NewPolygon(b.rings...)
		if err != nil {
			return chart{}, fmt.Errorf("plotting %s bars: %w", b.name, err)
		}
		poly.Color = rgb(b.color)
		poly.LineStyle.Width = 0
		if len(b.rings) > 0 {
			c.p.Add(poly)
		}
		c.legend.Add(b.name, poly)
	}
	if top == 0 {
		c.p.Title.Text += ": none"
	}
	setCycleAxis(c.p, in.starts(), false)
	c.p.Y.Tick.Marker = countTicks{}
	// The axis ends at the first tick above the highest bar.
	step := niceStep(top+1, maxCountTicks)
	c.p.Y.Min, c.p.Y.Max = 0, float64((top/step+1)*step)
	c.top = float64(top)
	return c, nil
}

// barHalfWidth is half a bar's width in cycles.
const barHalfWidth = 0.3

// appendBar appends the rectangle of a bar centred on x from base to
// base+n, if n is positive.
func appendBar(rings []plotter.XYer, x float64, base, n int) []plotter.XYer {
	if n <= 0 {
		return rings
	}
	y0, y1 := float64(base), float64(base+n)
	return append(rings, plotter.XYs{{X: x - barHalfWidth, Y: y0}, {X: x + barHalfWidth, Y: y0},
		{X: x + barHalfWidth, Y: y1}, {X: x - barHalfWidth, Y: y1}})
}

// maxPercentTicks bounds the labelled steps of a percentage axis.
const maxPercentTicks = 6

// percentAxis returns the top and the tick step of a percentage axis from
// 0 that contains hi: at least floor, and when hi reaches floor, the first
// tick above hi, so the highest point is never drawn on or beyond the
// axis' end.
func percentAxis(hi, floor float64) (top, step float64) {
	if hi < floor {
		return floor, niceFloat(floor / maxPercentTicks)
	}
	if hi <= 0 {
		return 1, 0.2
	}
	step = niceFloat(hi / maxPercentTicks)
	return (math.Floor(hi/step) + 1) * step, step
}

// setPercentAxis gives p a percentage y axis from 0 containing hi (see
// percentAxis).
func setPercentAxis(p *plot.Plot, hi, floor float64) {
	top, step := percentAxis(hi, floor)
	p.Y.Min, p.Y.Max = 0, top
	p.Y.Tick.Marker = percentTicks{step: step}
}

// niceFloat returns the smallest of …, 0.1, 0.2, 0.5, 1, 2, 5, 10, … that
// is at least v (v > 0).
func niceFloat(v float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= v*(1-1e-12) {
			return m * mag
		}
	}
	return 10 * mag
}

// percentTicks labels multiples of step from 0 to the axis' end.
type percentTicks struct{ step float64 }

// Ticks implements plot.Ticker.
func (t percentTicks) Ticks(_, hi float64) []plot.Tick {
	var out []plot.Tick
	for k := 0; float64(k)*t.step <= hi*(1+1e-9); k++ {
		v := math.Round(float64(k)*t.step*1e6) / 1e6
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return out
}
