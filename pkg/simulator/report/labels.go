package report

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelGap is the space between a line's last point and its label.
const labelGap = vg.Length(5)

// endLabel names a line at its last known point.
type endLabel struct {
	text  string
	x, y  float64
	color color.Color
}

// endLabels draws each label right of its line's last known point; labels
// that would overlap are pushed apart vertically (keeping their order)
// and kept inside the data area. As a plot.GlyphBoxer it makes the plot
// leave room for the widest label right of the data area.
type endLabels struct {
	labels []endLabel
	style  text.Style
}

// newEndLabels returns the labels in the report's legend font.
func newEndLabels(labels []endLabel) *endLabels {
	sty := text.Style{Font: sans(legendSize), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YCenter}
	return &endLabels{labels: labels, style: sty}
}

// width is the widest label's width plus the gap.
func (e *endLabels) width() vg.Length {
	var w vg.Length
	for _, l := range e.labels {
		w = max(w, e.style.Width(l.text))
	}
	if w == 0 {
		return 0
	}
	return w + labelGap
}

// Plot implements plot.Plotter.
func (e *endLabels) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	ys := make([]vg.Length, len(e.labels))
	for i, l := range e.labels {
		ys[i] = ty(l.y)
	}
	ys = spreadApart(ys, e.style.Height("Xg"), c.Min.Y, c.Max.Y)
	for i, l := range e.labels {
		sty := e.style
		sty.Color = readable(l.color)
		c.FillText(sty, vg.Point{X: tx(l.x) + labelGap, Y: ys[i]}, l.text)
	}
}

// GlyphBoxes implements plot.GlyphBoxer: one box at the right edge of the
// data area, as wide as the widest label, so the plot makes room for it.
func (e *endLabels) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	return rightRoom(e.width())
}

// rightRoom is a glyph box that reserves w right of the data area.
func rightRoom(w vg.Length) []plot.GlyphBox {
	if w <= 0 {
		return nil
	}
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: w}}}}
}

// padding is an invisible plotter that reserves room right of the data
// area, so that every chart's data area has the same width as the ones
// with end labels.
type padding struct{ w vg.Length }

// Plot implements plot.Plotter; it draws nothing.
func (padding) Plot(draw.Canvas, *plot.Plot) {}

// GlyphBoxes implements plot.GlyphBoxer.
func (p padding) GlyphBoxes(*plot.Plot) []plot.GlyphBox { return rightRoom(p.w) }

// spreadApart moves the centres ys of labels of height h so that no two
// are closer than h, changing their order never and each as little as this
// simple two-pass scheme allows, within [lo, hi] when they fit there.
// It returns the new positions in the order of ys.
func spreadApart(ys []vg.Length, h, lo, hi vg.Length) []vg.Length {
	n := len(ys)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	// Top to bottom: highest y first, ties by index.
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ys[b], ys[a]) })
	pos := make([]vg.Length, n)
	for k, i := range idx {
		pos[k] = min(ys[i], hi-h/2)
		if k > 0 {
			pos[k] = min(pos[k], pos[k-1]-h)
		}
	}
	// Labels pushed below the area move up again, as far as needed.
	for k := n - 1; k >= 0; k-- {
		floor := lo + h/2
		if k < n-1 {
			floor = pos[k+1] + h
		}
		pos[k] = max(pos[k], floor)
	}
	out := make([]vg.Length, n)
	for k, i := range idx {
		out[i] = pos[k]
	}
	return out
}

// lastKnown returns the last point of vals that is not NaN, if any.
func lastKnown(xs, vals []float64) (x, y float64, ok bool) {
	for i := len(vals) - 1; i >= 0; i-- {
		if !math.IsNaN(vals[i]) {
			return xs[i], vals[i], true
		}
	}
	return 0, 0, false
}

// readable darkens a light line color (the palette's yellow) so that text
// in it reads on white: colors with a relative luminance above 0.5 are
// scaled to 60%.
func readable(c color.Color) color.Color {
	r, g, b, a := c.RGBA()
	lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	if lum <= 0.5 {
		return c
	}
	scale := func(v uint32) uint8 { return uint8(float64(v>>8) * 0.6) }
	return color.RGBA{R: scale(r), G: scale(g), B: scale(b), A: uint8(a >> 8)}
}
