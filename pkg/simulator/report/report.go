package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// Format is the output format.
type Format string

// The supported formats.
const (
	// SVG is one SVG document with the three charts stacked.
	SVG Format = "svg"
	// HTML is one self-contained page: a summary table and the charts as
	// inline SVG.
	HTML Format = "html"
)

// FormatFor returns the format for a file name by its extension (.svg,
// .html or .htm, in any case), or an error naming the supported ones.
func FormatFor(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".html", ".htm":
		return HTML, nil
	}
	return "", fmt.Errorf("report file %q: unsupported extension %q; use .svg, .html or .htm", path, filepath.Ext(path))
}

// ErrNothingToChart is returned for a Result without cycles.
var ErrNothingToChart = errors.New("nothing to chart: the simulation has no cycles")

// Write renders res in format f to w. The same Result always gives the
// same bytes.
func Write(w io.Writer, res *simulator.Result, f Format) error {
	if res == nil || len(res.Cycles) == 0 {
		return ErrNothingToChart
	}
	if f != SVG && f != HTML {
		return fmt.Errorf("unsupported report format %q; use %q or %q", f, SVG, HTML)
	}
	in := newInput(res)
	cs, err := charts(in)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if f == SVG {
		err = writeSVG(&buf, cs)
	} else {
		err = writeHTML(&buf, in, cs)
	}
	if err != nil {
		return err
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("writing the %s report: %w", f, err)
	}
	return nil
}

// WriteFile writes the report of res to path in the format of its
// extension.
func WriteFile(path string, res *simulator.Result) error {
	f, err := FormatFor(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Write(&buf, res, f); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// Page geometry: every chart gets a tile of width × tileHeight; a margin
// surrounds each plot and legend.
const (
	width      = 10 * vg.Inch
	tileHeight = 3.6 * vg.Inch
	margin     = 8
	// minStrip and maxStrip bound the legend strip's width.
	minStrip = 1.4 * vg.Inch
	maxStrip = 3.2 * vg.Inch
)

// placement is where a chart is drawn, relative to its tile's bottom-left
// corner.
type placement struct {
	plot, legend vg.Rectangle
}

// layout places the charts, one tile each, top to bottom, with their data
// areas aligned (plot.Align) and the legends in a common strip on the
// right.
func layout(cs []chart) []placement {
	strip := legendStrip(cs)
	n := len(cs)
	full := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: width - strip, Y: tileHeight * vg.Length(n)}}}
	tiles := draw.Tiles{Rows: n, Cols: 1, PadTop: margin, PadBottom: margin, PadLeft: margin, PadY: 2 * margin}
	plots := make([][]*plot.Plot, n)
	for k, c := range cs {
		plots[k] = []*plot.Plot{c.p}
	}
	aligned := plot.Align(plots, tiles, full)
	out := make([]placement, n)
	for k, c := range cs {
		off := vg.Point{Y: tileHeight * vg.Length(n-1-k)}
		r := aligned[k][0].Rectangle
		r.Min, r.Max = r.Min.Sub(off), r.Max.Sub(off)
		data := c.p.DataCanvas(draw.Canvas{Rectangle: r})
		out[k] = placement{plot: r, legend: vg.Rectangle{
			Min: vg.Point{X: width - strip + margin, Y: data.Min.Y},
			Max: vg.Point{X: width - margin, Y: data.Max.Y},
		}}
	}
	return out
}

// legendStrip is the width of the legend strip: the widest legend plus
// margins, within [minStrip, maxStrip].
func legendStrip(cs []chart) vg.Length {
	var w vg.Length
	for _, c := range cs {
		w = max(w, c.legend.Rectangle(draw.Canvas{}).Size().X)
	}
	return min(max(w+3*margin, minStrip), maxStrip)
}

// drawChart draws c at pl on dc, whose origin is the tile's bottom-left
// corner.
func drawChart(dc draw.Canvas, c chart, pl placement) {
	c.p.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: pl.plot})
	c.legend.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: pl.legend})
}

// newCanvas returns an SVG canvas of width × h with a white background.
func newCanvas(h vg.Length) (*vgsvg.Canvas, draw.Canvas) {
	svg := vgsvg.New(width, h)
	dc := draw.New(svg)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return svg, dc
}

// writeSVG draws the charts stacked into one SVG document.
func writeSVG(w *bytes.Buffer, cs []chart) error {
	svg, dc := newCanvas(tileHeight * vg.Length(len(cs)))
	for k, pl := range layout(cs) {
		off := vg.Point{Y: tileHeight * vg.Length(len(cs)-1-k)}
		pl.plot = vg.Rectangle{Min: pl.plot.Min.Add(off), Max: pl.plot.Max.Add(off)}
		pl.legend = vg.Rectangle{Min: pl.legend.Min.Add(off), Max: pl.legend.Max.Add(off)}
		drawChart(dc, cs[k], pl)
	}
	var doc bytes.Buffer
	if _, err := svg.WriteTo(&doc); err != nil {
		return fmt.Errorf("rendering SVG: %w", err)
	}
	s, err := withFontStyle(doc.String())
	if err != nil {
		return err
	}
	w.WriteString(s)
	return nil
}

// chartSVGs draws every chart into its own SVG element (without the XML
// prolog), all with the same width and aligned data areas.
func chartSVGs(cs []chart) ([]string, error) {
	out := make([]string, len(cs))
	for k, pl := range layout(cs) {
		svg, dc := newCanvas(tileHeight)
		drawChart(dc, cs[k], pl)
		var doc bytes.Buffer
		if _, err := svg.WriteTo(&doc); err != nil {
			return nil, fmt.Errorf("rendering SVG: %w", err)
		}
		s := doc.String()
		i := strings.Index(s, "<svg")
		if i < 0 {
			return nil, errors.New("rendering SVG: no <svg> element in the output")
		}
		out[k] = s[i:]
	}
	return out, nil
}

// withFontStyle adds the font fallback stylesheet (fontCSS) right after the
// root <svg> start tag of doc.
func withFontStyle(doc string) (string, error) {
	i := strings.Index(doc, "<svg")
	j := strings.Index(doc[max(i, 0):], ">")
	if i < 0 || j < 0 {
		return "", errors.New("rendering SVG: no <svg> element in the output")
	}
	at := i + j + 1
	return doc[:at] + "\n<style>" + fontCSS + "</style>" + doc[at:], nil
}
