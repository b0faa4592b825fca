package report

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// A path: its commands and its style.
var (
	pathRE = regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`)
	// Points of M and L commands, and the end point of arcs (glyphs).
	pointRE = regexp.MustCompile(`(?:[ML]|A[\d.]+,[\d.]+ \d \d \d )(-?[\d.]+),(-?[\d.]+)`)
	colorRE = regexp.MustCompile(`(?:fill|stroke):(#[0-9A-F]{6})`)
	// End labels: text with a fill color, at x and -y (the text is
	// flipped).
	labelRE = regexp.MustCompile(`<text x="(-?[\d.]+)" y="(-?[\d.]+)" transform="scale\(1, -1\)"\s+style="[^"]*fill:(#[0-9A-F]{6})">`)
)

// dataColors are the colors only data (and its legend thumbnails) are
// drawn in: the palette, the band's fill and the mean's gray.
func dataColors() map[string]bool {
	out := map[string]bool{"#C6D4E6": true, "#282828": true}
	for _, c := range palette() {
		r, g, b, _ := c.RGBA()
		out[fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)] = true
		rc := readable(c)
		r, g, b, _ = rc.RGBA()
		out[fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)] = true
	}
	return out
}

// chartCheck is what checkCharts found in one chart.
type chartCheck struct {
	title string
	// data counts the data elements (paths in data colors left of the
	// legend strip); labels the end labels.
	data, labels int
}

// checkCharts renders res's charts as the HTML page does (one SVG each)
// and fails for every data point drawn outside its chart's data area,
// that is outside the axes' ranges (by more than a glyph's radius and half
// a line, or on the top edge, where gonum/plot cuts what is beyond), for a
// highest value not below the y axis' end, and for every end label
// outside the data area's height.
func checkCharts(t *testing.T, res *simulator.Result) []chartCheck {
	t.Helper()
	cs, err := charts(newInput(res))
	if err != nil {
		t.Fatal(err)
	}
	out, problems := inspect(t, cs)
	for _, p := range problems {
		t.Error(p)
	}
	return out
}

// inspect is checkCharts on charts already built: it returns what each
// chart draws and the problems found.
func inspect(t *testing.T, cs []chart) ([]chartCheck, []string) {
	t.Helper()
	var problems []string
	svgs, err := chartSVGs(cs)
	if err != nil {
		t.Fatal(err)
	}
	colors := dataColors()
	const tol = 3.0
	out := make([]chartCheck, len(cs))
	for k, pl := range layout(cs) {
		area := cs[k].p.DataCanvas(draw.Canvas{Rectangle: pl.plot}).Rectangle
		// gonum/plot clips what lies beyond the axes, so a clipped line
		// ends on the data area's top edge; nothing of the data may reach
		// it, since every y axis ends above the highest value.
		in := func(x, y, tol float64) bool {
			return x >= float64(area.Min.X)-tol && x <= float64(area.Max.X)+tol &&
				y >= float64(area.Min.Y)-tol && y < float64(area.Max.Y)-0.02
		}
		out[k].title = cs[k].p.Title.Text
		if y := cs[k].p.Y; cs[k].top < y.Min || cs[k].top >= y.Max {
			problems = append(problems, fmt.Sprintf("chart %d (%s): highest value %v outside the y axis %v..%v (the top tick must be above it)",
				k, out[k].title, cs[k].top, y.Min, y.Max))
		}
		for _, m := range pathRE.FindAllStringSubmatch(svgs[k], -1) {
			col := colorRE.FindStringSubmatch(m[2])
			pts := pointRE.FindAllStringSubmatch(m[1], -1)
			if col == nil || !colors[col[1]] || len(pts) == 0 || parseNum(t, pts[0][1]) >= float64(pl.legend.Min.X) {
				continue
			}
			out[k].data++
			var xs, ys []float64
			for _, p := range pts {
				xs, ys = append(xs, parseNum(t, p[1])), append(ys, parseNum(t, p[2]))
			}
			// A glyph (a point's mark, at most 2×2.2 points plus its line
			// across) is checked by its centre, lines and areas by every
			// point.
			if x0, x1, y0, y1 := slices.Min(xs), slices.Max(xs), slices.Min(ys), slices.Max(ys); x1-x0 <= 6 && y1-y0 <= 6 {
				xs, ys = []float64{(x0 + x1) / 2}, []float64{(y0 + y1) / 2}
			}
			for i := range xs {
				if !in(xs[i], ys[i], tol) {
					problems = append(problems, fmt.Sprintf("chart %d (%s): point (%.1f, %.1f) of %s outside the data area %v",
						k, out[k].title, xs[i], ys[i], col[1], area))
				}
			}
		}
		for _, m := range labelRE.FindAllStringSubmatch(svgs[k], -1) {
			x, y := parseNum(t, m[1]), -parseNum(t, m[2])
			if x >= float64(pl.legend.Min.X) {
				continue
			}
			out[k].labels++
			if y < float64(area.Min.Y) || y > float64(area.Max.Y) || x > float64(pl.plot.Max.X) {
				problems = append(problems, fmt.Sprintf("chart %d (%s): end label at (%.1f, %.1f) outside the data area %v",
					k, out[k].title, x, y, area))
			}
		}
	}
	return out, problems
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every chart draws its data inside its data area (y within the axis
// range: the top tick is above the highest point) and has data, at 3, 8,
// 200 and 2,000 nodes; hot nodes are named at their line ends.
func TestChartsDrawDataInsideTheirAxes(t *testing.T) {
	cases := []struct {
		name string
		res  *simulator.Result
		// labels is the number of end labels on the cpu chart: the hot
		// nodes and those that received pods with few nodes, every
		// highlighted line with many.
		labels int
	}{
		// hot-1 is over target; warm-2 and cold-3 received a pod each.
		{"3 nodes", smallResult(), 3},
		{"8 nodes", withEvictions(largeResult(8, 4, 2, 5)), 2},
		{"200 nodes", withEvictions(largeResult(200, 3, 7, 70, 150)), maxHighlighted},
		{"2000 nodes", withEvictions(largeResult(2000, 3, 1, 999, 1998)), maxHighlighted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkCharts(t, tc.res)
			if len(got) != 5 {
				t.Fatalf("%d charts, want 5", len(got))
			}
			for k, c := range got {
				if c.data == 0 {
					t.Errorf("chart %d (%s) draws no data", k, c.title)
				}
			}
			if got[0].labels != tc.labels {
				t.Errorf("cpu chart has %d end labels, want %d", got[0].labels, tc.labels)
			}
		})
	}
}

// The check fails when data leaves the axis range: with the cpu axis cut
// at 50%, the highest value (hot-1's 90%) is above
// the axis, and warm-2's line (50% at cycle 1, then 55%) is cut at the
// top edge.
func TestChartCheckCatchesClipping(t *testing.T) {
	cs, err := charts(newInput(smallResult()))
	if err != nil {
		t.Fatal(err)
	}
	if _, problems := inspect(t, cs); len(problems) != 0 {
		t.Fatalf("problems before cutting the axis: %v", problems)
	}
	cs[0].p.Y.Max = 50
	_, problems := inspect(t, cs)
	top, edge := false, false
	for _, p := range problems {
		if !strings.HasPrefix(p, "chart 0 ") {
			t.Errorf("problem outside the cut chart: %s", p)
		}
		top = top || strings.Contains(p, "highest value 90 outside the y axis 0..50")
		edge = edge || strings.Contains(p, "outside the data area")
	}
	if !top || !edge {
		t.Errorf("problems %v: want the highest value 90 above the axis and a point cut at the top edge", problems)
	}
}

// withEvictions gives res two evictions at every cycle, one blocked.
func withEvictions(res *simulator.Result) *simulator.Result {
	for i := range res.Cycles {
		c := &res.Cycles[i]
		c.Evictions = append(c.Evictions, eviction(c.Cycle, "shop/a", "simulated"), eviction(c.Cycle, "shop/b", "simulated"),
			eviction(c.Cycle, "shop/c", blockedResult))
		c.Stats.Evictions = 2
	}
	return res
}

func TestPercentAxisContainsTheData(t *testing.T) {
	cases := []struct{ hi, floor, top, step float64 }{
		// 28.7 / 6 = 4.8 → step 5; the tick above 28.7 is 30.
		{28.7, 0, 30, 5},
		// A point on a tick gets the next one: 30 → 35.
		{30, 0, 35, 5},
		// 7.6 / 6 = 1.27 → step 2; floor(3.8)+1 = 4 steps: 8.
		{7.6, 0, 8, 2},
		// Below the floor of 100: the floor, step 100/6 → 20.
		{90, 100, 100, 20},
		// 100 reaches the floor: step 20, the tick above is 120.
		{100, 100, 120, 20},
		// Nothing: 0 to 1.
		{0, 0, 1, 0.2},
		// Small figures: 0.35 / 6 = 0.058 → step 0.1, top 0.4.
		{0.35, 0, 0.4, 0.1},
	}
	for _, tc := range cases {
		top, step := percentAxis(tc.hi, tc.floor)
		if abs(top-tc.top) > 1e-9 || abs(step-tc.step) > 1e-9 {
			t.Errorf("percentAxis(%v, %v) = %v, %v; want %v, %v", tc.hi, tc.floor, top, step, tc.top, tc.step)
		}
		if top <= tc.hi && tc.hi > 0 {
			t.Errorf("percentAxis(%v, %v): top %v does not contain the data", tc.hi, tc.floor, top)
		}
		ticks := percentTicks{step: step}.Ticks(0, top)
		if last := ticks[len(ticks)-1]; abs(last.Value-top) > 1e-9 || last.Label != strconv.FormatFloat(top, 'f', -1, 64) {
			t.Errorf("percentAxis(%v, %v): last tick %+v, want one at the top %v", tc.hi, tc.floor, last, top)
		}
	}
}

func abs(v float64) float64 { return max(v, -v) }

func TestSpreadApart(t *testing.T) {
	cases := []struct {
		name      string
		ys        []vg.Length
		h, lo, hi vg.Length
		want      []vg.Length
	}{
		// 11 and 10 collide: the lower one moves down to 11 - 4 = 7.
		{"collision", []vg.Length{10, 11, 50}, 4, 0, 100, []vg.Length{7, 11, 50}},
		// Near the top: 99 is kept inside (100 - 2 = 98), 98 goes to 94.
		{"top", []vg.Length{99, 98}, 4, 0, 100, []vg.Length{98, 94}},
		// Near the bottom: 0.5 is lifted to 0 + 2, 1 above it to 6.
		{"bottom", []vg.Length{1, 0.5}, 4, 0, 100, []vg.Length{6, 2}},
		{"apart", []vg.Length{30, 10}, 4, 0, 100, []vg.Length{30, 10}},
	}
	for _, tc := range cases {
		got := spreadApart(tc.ys, tc.h, tc.lo, tc.hi)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: spreadApart(%v) = %v, want %v", tc.name, tc.ys, got, tc.want)
		}
	}
}

// Bars are centred on their cycle's tick, stacked, and the evictions
// chart's x axis ends half a cycle after the last cycle (no end slot).
func TestEvictionBarsOnTheirTicks(t *testing.T) {
	bars := appendBar(nil, 2, 3, 1)
	want := "[{1.7 3} {2.3 3} {2.3 4} {1.7 4}]"
	if got := fmt.Sprint(bars[0]); got != want {
		t.Errorf("bar %s, want %s (centred on 2, from 3 to 4)", got, want)
	}
	c, err := evictionChart(newInput(smallResult()))
	if err != nil {
		t.Fatal(err)
	}
	if c.p.X.Min != 0.5 || c.p.X.Max != 4.5 {
		t.Errorf("evictions x axis %v..%v, want 0.5..4.5 (cycles 1 to 4, no end)", c.p.X.Min, c.p.X.Max)
	}
	for _, tk := range c.p.X.Tick.Marker.Ticks(c.p.X.Min, c.p.X.Max) {
		if tk.Label == "end" {
			t.Error("evictions x axis labels an end slot")
		}
	}
	if strings.Contains(c.p.X.Label.Text, "end") {
		t.Errorf("evictions x label %q mentions the end state", c.p.X.Label.Text)
	}
}
