package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

const (
	// maxAllLines is the largest cluster drawn with one line per node: as
	// many as the palette has colors.
	maxAllLines = 8
	// maxHighlighted is how many nodes a larger cluster's chart draws
	// individually beside the band.
	maxHighlighted = 8
)

// chart is one plot and its legend, drawn in a strip right of the plot;
// labels, when set, name lines at their ends inside the plot.
type chart struct {
	p      *plot.Plot
	legend plot.Legend
	labels *endLabels
	// top is the highest value drawn; the y axis ends above it.
	top float64
}

// input is what the charts are drawn from.
type input struct {
	res    *simulator.Result
	pts    []point
	hasEnd bool
	// received counts, per node, the evicted pods whose replacements it
	// runs (Result.Moves).
	received map[string]int
}

func newInput(res *simulator.Result) input {
	pts := timeline(res)
	received := map[string]int{}
	for _, m := range res.Moves {
		if m.To != "" {
			received[m.To]++
		}
	}
	return input{res: res, pts: pts, hasEnd: len(pts) > len(res.Cycles), received: received}
}

// xLabel names the x axis, which counts cycles; withEnd adds the end
// state's slot.
func (in input) xLabel(withEnd bool) string {
	s := "cycle"
	if iv := in.res.Summary.Interval; iv != "" {
		s += " (every " + iv + ")"
	}
	if withEnd && in.hasEnd {
		s += "; end: one interval after the last cycle"
	}
	return s
}

// starts returns the cycle starts of pts (without the end state).
func (in input) starts() []point { return in.pts[:len(in.res.Cycles)] }

// charts builds the report's charts, top to bottom: cpu and memory usage
// per node, the highest node usage, the spread over nodes and the
// evictions. Every chart reserves the same room for line-end labels, so
// their data areas stay aligned.
func charts(in input) ([]chart, error) {
	builders := []struct {
		name  string
		build func(input) (chart, error)
	}{
		{"cpu usage", func(in input) (chart, error) { return usageChart(in, cpuRes) }},
		{"memory usage", func(in input) (chart, error) { return usageChart(in, memRes) }},
		{"highest usage", peakChart},
		{"spread", stddevChart},
		{"evictions", evictionChart},
	}
	out := make([]chart, 0, len(builders))
	var room vg.Length
	for _, b := range builders {
		c, err := b.build(in)
		if err != nil {
			return nil, fmt.Errorf("%s chart: %w", b.name, err)
		}
		if c.labels != nil {
			room = max(room, c.labels.width())
		}
		out = append(out, c)
	}
	for _, c := range out {
		c.p.Add(padding{w: room})
	}
	return out, nil
}

// usageChart shows every node's usage of r over the cycles or, for a
// large cluster, the min–max band, the mean and the most interesting
// nodes. Nodes over target are named at their line ends.
func usageChart(in input, r resource) (chart, error) {
	target, hasTarget := r.target(in.res)
	ss := nodeSeries(in.pts, r, target, hasTarget)
	c := chart{legend: newLegend()}
	if !anyKnown(ss) {
		c.p = newPlot(fmt.Sprintf("%s usage per node: no usage known for any of the %d nodes at any cycle", r.title(), len(ss)), "", "")
		c.p.HideAxes()
		return c, nil
	}
	c.p = newPlot(r.title()+" usage per node", in.xLabel(true), "% of allocatable "+string(r))
	x := xs(in.pts)
	var labels []endLabel
	var err error
	hi := 0.0
	if len(ss) <= maxAllLines {
		labels, err = addNodeLines(c.p, &c.legend, x, ss, in.received, false)
	} else {
		shown := interesting(ss, maxHighlighted)
		c.p.Title.Text = fmt.Sprintf("%s usage: %d nodes (band: min–max, line: mean; %d nodes shown, over target or highest first)",
			r.title(), len(ss), len(shown))
		err = addBand(c.p, &c.legend, x, ss)
		if err == nil {
			labels, err = addNodeLines(c.p, &c.legend, x, shown, in.received, true)
		}
	}
	if err == nil && hasTarget {
		err = addTarget(c.p, &c.legend, in.pts, string(r), target)
		hi = target
	}
	if err != nil {
		return chart{}, err
	}
	for _, s := range ss {
		if s.known > 0 {
			hi = max(hi, s.max)
		}
	}
	if len(labels) > 0 {
		c.labels = newEndLabels(labels)
		c.p.Add(c.labels)
	}
	setCycleAxis(c.p, in.pts, in.hasEnd)
	setPercentAxis(c.p, hi, 100)
	c.top = hi
	return c, nil
}

// addNodeLines draws one line per node that has known usage, with a
// distinct color, dash pattern and point shape; nodes never known get a
// legend entry saying so. The legend marks nodes over target and nodes
// that received evicted pods' replacements (received). It returns the end
// labels: for every line with labelAll, else for those marked nodes.
func addNodeLines(p *plot.Plot, leg *plot.Legend, x []float64, ss []series, received map[string]int, labelAll bool) ([]endLabel, error) {
	colors, shapes, dashes := palette(), glyphs(), dashPatterns()
	var labels []endLabel
	drawn := 0
	for _, s := range ss {
		if s.known == 0 {
			leg.Add(legendLabel(s.name) + " (usage unknown)")
			continue
		}
		col := colors[drawn%len(colors)]
		thumbs, err := addLine(p, x, s.vals, lineStyle{
			color: col, width: vg.Points(1.4), glyph: shapes[drawn%len(shapes)], dashes: dashes[drawn%len(dashes)],
		})
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", s.name, err)
		}
		name := legendLabel(s.name)
		if s.over {
			name += " (over target)"
		}
		if n := received[s.name]; n > 0 {
			name += fmt.Sprintf(" (received %d)", n)
		}
		leg.Add(name, thumbs...)
		if lx, ly, ok := lastKnown(x, s.vals); ok && (labelAll || s.over || received[s.name] > 0) {
			labels = append(labels, endLabel{text: legendLabel(s.name), x: lx, y: ly, color: col})
		}
		drawn++
	}
	return labels, nil
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
