package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// The rendering check (make report-check, part of make test) sets these:
// REPORT_CHECK=1 runs it, REPORT_CHECK_BIN is the descheduler binary and
// REPORT_CHECK_CHROMIUM the browser (default chromium); REPORT_CHECK_KEEP
// names a directory to keep the pages and screenshots in.
const (
	screenW, screenH = 1200, 3000
	// pxPerPt is CSS pixels per point: the page shows the charts at
	// their size (10 in = 960 px).
	pxPerPt = 96.0 / 72.0
)

// TestReportRendersInChromium generates clusters of 8, 200 and 2,000
// nodes, simulates a few cycles with the hotspot policy, renders the HTML
// report in headless Chromium and checks the screenshot: its size, five
// framed charts that fit in it, each with dark (text, axes) and colored
// (data) pixels, and no colored pixel outside its chart's data area except
// the line-end labels right of it and the legend.
func TestReportRendersInChromium(t *testing.T) {
	if os.Getenv("REPORT_CHECK") == "" {
		t.Skip("the Chromium rendering check runs with REPORT_CHECK=1 (make report-check)")
	}
	bin := os.Getenv("REPORT_CHECK_BIN")
	browser := os.Getenv("REPORT_CHECK_CHROMIUM")
	if browser == "" {
		browser = "chromium"
	}
	if bin == "" {
		t.Fatal("REPORT_CHECK_BIN is not set (make report-check sets it)")
	}
	if _, err := exec.LookPath(browser); err != nil {
		t.Fatalf("%s not found (make report-check installs Debian's chromium): %v", browser, err)
	}
	dir := os.Getenv("REPORT_CHECK_KEEP")
	if dir == "" {
		dir = t.TempDir()
	}
	policy, err := filepath.Abs("../../../deploy/examples/hotspot-metrics-server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Few cycles and pods keep it fast: 2,000 nodes take about a minute
	// on 2 cores.
	cases := []struct {
		nodes, cycles, podsPerNode int
		hot                        string
	}{
		{8, 4, 10, "0.25"},
		{200, 3, 10, "0.1"},
		{2000, 2, 5, "0.1"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d nodes", tc.nodes), func(t *testing.T) {
			base := filepath.Join(dir, fmt.Sprintf("c%d", tc.nodes))
			run(t, bin, "generate", "--nodes", fmt.Sprint(tc.nodes), "--pods-per-node", fmt.Sprint(tc.podsPerNode), "--hot-fraction", tc.hot,
				"-q", "-o", base+".yaml")
			out := run(t, bin, "simulate", "--policy", policy, "--snapshot", base+".yaml", "--now", "2026-01-01T12:00:00Z",
				"--cycles", fmt.Sprint(tc.cycles), "-q", "-o", "json", "--report", base+".html")
			var res simulator.Result
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("simulate -o json: %v", err)
			}
			if res.Summary.TotalEvictions == 0 {
				t.Fatalf("the simulation evicted nothing; the evictions chart would be empty")
			}
			shot := base + ".png"
			cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir="+t.TempDir(), "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", screenW, screenH),
				"file://"+base+".html")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", browser, err, b)
			}
			img := decodePNG(t, shot)
			for _, p := range screenshotProblems(img, &res) {
				t.Error(p)
			}
			if tc.nodes == 8 {
				checkCatches(t, img, &res)
			}
		})
	}
}

// run runs the descheduler binary and returns its standard output.
func run(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("descheduler %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

func decodePNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	out := image.NewRGBA(img.Bounds())
	stddraw.Draw(out, out.Bounds(), img, img.Bounds().Min, stddraw.Src)
	return out
}

// checkCatches doctors a good screenshot and fails unless the check sees
// it: a colored square in the cpu chart's title (data outside the data
// area), the evictions chart painted white (an empty chart), the last
// frame's bottom cut off.
func checkCatches(t *testing.T, good *image.RGBA, res *simulator.Result) {
	t.Helper()
	frames := findFrames(good)
	if len(frames) != 5 {
		t.Fatalf("%d frames in the good screenshot", len(frames))
	}
	cases := []struct {
		name string
		edit func(*image.RGBA)
		want string
	}{
		{"data above the cpu chart's area", func(img *image.RGBA) {
			r := frames[0]
			stddraw.Draw(img, image.Rect(r.Min.X+300, r.Min.Y+8, r.Min.X+310, r.Min.Y+18), image.NewUniform(color.RGBA{R: 230, A: 255}), image.Point{}, stddraw.Src)
		}, "colored pixels outside the data area"},
		{"empty evictions chart", func(img *image.RGBA) {
			r := frames[4].Inset(2)
			stddraw.Draw(img, r, image.White, image.Point{}, stddraw.Src)
		}, "want data drawn"},
		{"cut off at the bottom", func(img *image.RGBA) {
			r := frames[4]
			stddraw.Draw(img, image.Rect(0, r.Max.Y-1, screenW, screenH), image.White, image.Point{}, stddraw.Src)
		}, "found 4 framed charts"},
	}
	for _, tc := range cases {
		img := image.NewRGBA(good.Bounds())
		copy(img.Pix, good.Pix)
		tc.edit(img)
		problems := screenshotProblems(img, res)
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, tc.want)
		}
		if !found {
			t.Errorf("doctored screenshot (%s): problems %v, want one saying %q", tc.name, problems, tc.want)
		}
	}
}

// screenshotProblems checks the screenshot img against the charts of res.
func screenshotProblems(img image.Image, res *simulator.Result) []string {
	var problems []string
	if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
		return []string{fmt.Sprintf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), screenW, screenH)}
	}
	frames := findFrames(img)
	cs, err := charts(newInput(res))
	if err != nil {
		return []string{err.Error()}
	}
	if len(frames) != len(cs) {
		return []string{fmt.Sprintf("found %d framed charts %v in the screenshot, want %d (a chart missing or cut off at the bottom)",
			len(frames), frames, len(cs))}
	}
	for k, pl := range layout(cs) {
		fr := frames[k]
		area := cs[k].p.DataCanvas(draw.Canvas{Rectangle: pl.plot}).Rectangle
		// Page pixels of a point of the chart (whose SVG starts inside
		// the 1 px frame; SVG y grows downwards).
		toPx := func(x, y float64) image.Point {
			return image.Point{X: fr.Min.X + 1 + int(x*pxPerPt), Y: fr.Min.Y + 1 + int((float64(tileHeight)-y)*pxPerPt)}
		}
		data := image.Rectangle{Min: toPx(float64(area.Min.X), float64(area.Max.Y)), Max: toPx(float64(area.Max.X), float64(area.Min.Y))}
		legendX := toPx(float64(pl.legend.Min.X), 0).X
		const tol = 5 // pixels: a glyph's radius, a line's width, rounding
		dark, colored, outside := 0, 0, 0
		var first image.Point
		for y := fr.Min.Y + 1; y < fr.Max.Y-1; y++ {
			for x := fr.Min.X + 1; x < fr.Max.X-1; x++ {
				r, g, b := rgb8(img, x, y)
				switch {
				case max(r, g, b)-min(r, g, b) > 60:
					colored++
					p := image.Point{X: x, Y: y}
					inData := p.In(data.Inset(-tol))
					labels := x >= data.Max.X-tol && x < legendX && y >= data.Min.Y-tol && y <= data.Max.Y+tol
					if !inData && !labels && x < legendX {
						if outside == 0 {
							first = p
						}
						outside++
					}
				case max(r, g, b) < 100:
					dark++
				}
			}
		}
		title := cs[k].p.Title.Text
		if dark < 500 {
			problems = append(problems, fmt.Sprintf("chart %d (%s) at %v: %d dark pixels, want text and axes", k, title, fr, dark))
		}
		if colored < 200 {
			problems = append(problems, fmt.Sprintf("chart %d (%s) at %v: %d colored pixels, want data drawn", k, title, fr, colored))
		}
		if outside > 0 {
			problems = append(problems, fmt.Sprintf("chart %d (%s): %d colored pixels outside the data area %v, the first at %v",
				k, title, outside, data, first))
		}
	}
	return problems
}

// frameGray is the charts' frame color (figure.chart's border, #b4b4b4).
const frameGray = 0xb4

// findFrames returns the charts' frames, top to bottom: rectangles whose
// top and bottom rows are long runs of the frame color.
func findFrames(img image.Image) []image.Rectangle {
	b := img.Bounds()
	var rows []int
	left, right := b.Max.X, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		run, best, start := 0, 0, 0
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl := rgb8(img, x, y); r == frameGray && g == frameGray && bl == frameGray {
				run++
				if run > best {
					best, start = run, x-run+1
				}
				continue
			}
			run = 0
		}
		if best >= 600 {
			rows = append(rows, y)
			left, right = min(left, start), max(right, start+best)
		}
	}
	var out []image.Rectangle
	for i := 0; i+1 < len(rows); i += 2 {
		out = append(out, image.Rect(left, rows[i], right, rows[i+1]+1))
	}
	return out
}

func rgb8(img image.Image, x, y int) (r, g, b int) {
	cr, cg, cb, _ := img.At(x, y).RGBA()
	return int(cr >> 8), int(cg >> 8), int(cb >> 8)
}
