package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Font sizes in points.
const (
	titleSize  = 11
	labelSize  = 9.5
	tickSize   = 8.5
	legendSize = 8.5
	// maxLegendRunes truncates long node names in legends.
	maxLegendRunes = 40
)

// sans is the charts' typeface: Liberation Sans, which gonum/plot embeds
// for measuring text and which is metric-compatible with Arial, the
// fallback the SVG's style names.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// fontCSS makes viewers without Liberation Sans use a metric-compatible
// font instead of their default serif, so text keeps the measured width.
const fontCSS = `text{font-family:"Liberation Sans",Arial,Helvetica,sans-serif !important}`

// newPlot returns a plot with the report's fonts, the title, the axis
// labels and light horizontal grid lines.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(titleSize)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(labelSize)
		a.Tick.Label.Font = sans(tickSize)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 215}
	p.Add(grid)
	return p
}

// newLegend returns an empty legend in the report's style, drawn at the top
// left of the strip right of the plot.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = sans(legendSize)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(1.5)
	l.ThumbnailWidth = vg.Points(18)
	return l
}

// legendLabel shortens s to maxLegendRunes runes.
func legendLabel(s string) string {
	r := []rune(s)
	if len(r) <= maxLegendRunes {
		return s
	}
	return string(r[:maxLegendRunes-1]) + "…"
}

// palette returns the line colors: the Okabe–Ito palette, which readers
// with any common color-vision deficiency tell apart, ordered so that
// neighbors contrast most (blue, vermillion, bluish green, reddish purple,
// orange, sky blue, black (#111, so that it differs from the axes),
// yellow).
func palette() []color.Color {
	hex := []uint32{0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x111111, 0xf0e442}
	out := make([]color.Color, len(hex))
	for i, h := range hex {
		out[i] = rgb(h)
	}
	return out
}

// dashPatterns are the line patterns that, with the colors and point
// shapes, tell lines apart: solid, dashed, dotted, dash-dotted.
func dashPatterns() [][]vg.Length {
	return [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)}}
}

func rgb(h uint32) color.Color {
	return color.RGBA{R: uint8(h >> 16), G: uint8(h >> 8), B: uint8(h), A: 255}
}

// glyphs returns the point shapes that, with the colors, tell lines apart.
func glyphs() []draw.GlyphDrawer {
	return []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
		draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}
}

// maxMarkedPoints is the most points a line marks each of with its glyph;
// longer lines mark only isolated points.
const maxMarkedPoints = 60

// lineStyle describes one plotted line.
type lineStyle struct {
	color  color.Color
	width  vg.Length
	dashes []vg.Length
	// glyph, when set, marks the points: all of them on lines of at most
	// maxMarkedPoints, else only those between two gaps (which are
	// otherwise invisible).
	glyph draw.GlyphDrawer
}

// addLine plots ys over xs as lines broken where ys is NaN, and returns the
// thumbnails for its legend entry.
func addLine(p *plot.Plot, xs, ys []float64, sty lineStyle) ([]plot.Thumbnailer, error) {
	ls := draw.LineStyle{Color: sty.color, Width: sty.width, Dashes: sty.dashes}
	gs := draw.GlyphStyle{Color: sty.color, Radius: vg.Points(2.2), Shape: sty.glyph}
	markAll := len(xs) <= maxMarkedPoints
	for _, run := range runs(xs, ys) {
		l, err := plotter.NewLine(toXYs(run))
		if err != nil {
			return nil, fmt.Errorf("plotting a line: %w", err)
		}
		l.LineStyle = ls
		p.Add(l)
		if sty.glyph != nil && (markAll || len(run) == 1) {
			s, err := plotter.NewScatter(toXYs(run))
			if err != nil {
				return nil, fmt.Errorf("plotting points: %w", err)
			}
			s.GlyphStyle = gs
			p.Add(s)
		}
	}
	thumbs := []plot.Thumbnailer{&plotter.Line{LineStyle: ls}}
	if sty.glyph != nil && markAll {
		thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: gs})
	}
	return thumbs, nil
}

func toXYs(run []xy) plotter.XYs {
	out := make(plotter.XYs, len(run))
	for i, p := range run {
		out[i].X, out[i].Y = p.x, p.y
	}
	return out
}

// addTarget draws the target of the resource named name as a dashed
// horizontal line over the x range of pts and adds it to the legend.
func addTarget(p *plot.Plot, leg *plot.Legend, pts []point, name string, target float64) error {
	x := xs(pts)
	ys := []float64{target, target}
	thumbs, err := addLine(p, []float64{x[0], x[len(x)-1]}, ys, lineStyle{
		color: color.Gray{Y: 60}, width: vg.Points(1.2), dashes: []vg.Length{vg.Points(5), vg.Points(3)},
	})
	if err != nil {
		return err
	}
	leg.Add(name+" target "+percent(target), thumbs...)
	return nil
}

// percent formats a percentage with at most one decimal.
func percent(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + "%"
}

// setCycleAxis gives p the shared x axis: from half a step before the
// first point to half a step after the last, ticks on cycle numbers.
func setCycleAxis(p *plot.Plot, pts []point, hasEnd bool) {
	p.X.Min = pts[0].x - 0.5
	p.X.Max = pts[len(pts)-1].x + 0.5
	p.X.Tick.Marker = cycleTicks{first: int(pts[0].x), last: int(pts[len(pts)-1].x), end: hasEnd}
}

// cycleTicks labels cycle numbers, thinned to at most maxLabels labels;
// with end, the last position is the end state, labelled "end".
type cycleTicks struct {
	first, last int
	end         bool
}

const maxLabels = 16

// Ticks implements plot.Ticker.
func (t cycleTicks) Ticks(_, _ float64) []plot.Tick {
	step := niceStep(t.last-t.first+1, maxLabels)
	var out []plot.Tick
	for v := t.first; v <= t.last; v++ {
		label := ""
		switch {
		case t.end && v == t.last:
			label = "end"
		case v == t.first && (t.first%step == 0 || 2*(step-t.first%step) >= step):
			label = strconv.Itoa(v)
		case v%step == 0 && (!t.end || 2*(t.last-v) >= step):
			label = strconv.Itoa(v)
		}
		if label != "" || step <= 5 {
			out = append(out, plot.Tick{Value: float64(v), Label: label})
		}
	}
	return out
}

// maxCountTicks bounds the labels of a count axis.
const maxCountTicks = 6

// countTicks labels whole numbers from 0 to max, at most maxCountTicks+1
// of them.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(_, hi float64) []plot.Tick {
	top := int(math.Ceil(hi))
	step := niceStep(top, maxCountTicks)
	var out []plot.Tick
	for v := 0; v <= top; v += step {
		out = append(out, plot.Tick{Value: float64(v), Label: strconv.Itoa(v)})
	}
	return out
}

// niceStep returns the smallest of 1, 2, 5, 10, 20, 50, ... that divides
// span into at most limit steps.
func niceStep(span, limit int) int {
	for mag := 1; ; mag *= 10 {
		for _, m := range []int{1, 2, 5} {
			if span <= limit*m*mag {
				return m * mag
			}
		}
	}
}
