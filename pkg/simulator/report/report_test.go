package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

var update = flag.Bool("update", false, "rewrite golden files")

func render(t *testing.T, res *simulator.Result, f Format) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, res, f); err != nil {
		t.Fatalf("Write(%s): %v", f, err)
	}
	return buf.String()
}

// checkSVG fails unless doc is well-formed XML whose root is an SVG svg
// element.
func checkSVG(t *testing.T, doc string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	var root struct {
		XMLName xml.Name
	}
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("SVG is not well-formed XML: %v", err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element is %v, want svg", root.XMLName)
	}
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG has trailing garbage: %v", err)
		}
	}
}

func TestWriteSVG(t *testing.T) {
	doc := render(t, smallResult(), SVG)
	checkSVG(t, doc)
	for _, want := range []string{
		"hot-1", "warm-2", "cold-3", // one line per node: 3 ≤ 12
		"CPU usage per node", "Spread over nodes", "Evictions per cycle",
		"% of allocatable cpu", "evictions", "cycle (every 5m); end: one interval after the last cycle",
		"cpu target 80%", "cpu usage max", "cpu usage stddev", "cpu requests stddev",
		"evicted (simulated)", "blocked by PodDisruptionBudget",
		`>end</text>`, `>4</text>`, // x ticks: cycles 1-4, then the end state
		"Arial", // font fallback
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(doc, "Evictions per cycle: none") {
		t.Error("chart 3 says there are no evictions; cycles 1 and 3 have some")
	}
}

func TestWriteHTML(t *testing.T) {
	res := smallResult()
	res.Cycles[0].Nodes[0].Name = "<script>alert(1)</script>"
	res.Warnings = append(res.Warnings, `<b>bold</b> & "quoted"`)
	doc := render(t, res, HTML)
	for _, want := range []string{
		"<!DOCTYPE html>", "<title>Descheduler simulation: 4 cycles</title>",
		"From 2026-01-01T12:00:00Z (first cycle) to 2026-01-01T12:20:00Z (end state).",
		"<td>5m</td>", "<td>42</td>", "<td>±10%</td>", "CPU target</th><td>80%</td>", "Memory target</th><td>80%</td>",
		"3 simulated, 1 blocked by a PodDisruptionBudget",
		"Repeated evictions within the cooldown (30m)</th><td>1</td>",
		"Repeated evictions within 1h</th><td>2</td>",
		"Cycles until no node over target</th><td>1</td>",
		"Pods left pending</th><td>1</td>",
		// cpu usage max / mean / stddev at cycle 1 and at the end.
		`<td class="num">90.0% / 53.3% / 28.7%</td><td class="num">62.0% / 55.7% / 7.6%</td>`,
		`<td class="num">70.0% / 50.0% / 16.3%</td><td class="num">55.0% / 50.0% / 7.1%</td>`,
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"&lt;b&gt;bold&lt;/b&gt; &amp; &#34;quoted&#34;",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(doc, "<svg"); n != 5 {
		t.Errorf("HTML has %d <svg elements, want 5", n)
	}
	// The moves table, after the charts.
	for _, want := range []string{"<h2>Moves</h2>",
		`<tr><td class="num">1</td><td>shop/web-a</td><td>hot-1</td><td>warm-2</td><td class="num">1100m cpu</td><td class="num">1040m cpu</td><td>relieved</td></tr>`,
		`<td>shop/web-c</td><td>hot-1</td><td class="none">pending</td>`} {
		if !strings.Contains(doc, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Self-contained: the SVG namespaces are names, nothing else refers to
	// another resource.
	doc = strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(doc)
	for _, bad := range []string{"<script", "<b>", "<?xml", "http:", "https:", "<link", "@import", "url("} {
		if strings.Contains(doc, bad) {
			t.Errorf("HTML contains %q", bad)
		}
	}
}

func TestHTMLGolden(t *testing.T) {
	got := render(t, smallResult(), HTML)
	golden := filepath.Join("testdata", "report.golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./pkg/simulator/report -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("HTML report differs from %s; rerun with -update if intended", golden)
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range []Format{SVG, HTML} {
		for name, res := range map[string]func() *simulator.Result{
			"small": smallResult, "large": func() *simulator.Result { return largeResult(40, 3, 5, 17, 33) },
		} {
			first, second := render(t, res(), f), render(t, res(), f)
			if first != second {
				t.Errorf("%s %s: two renders of the same Result differ", name, f)
			}
		}
	}
}

func TestFormatFor(t *testing.T) {
	cases := []struct {
		path string
		want Format
		err  bool
	}{
		{"report.svg", SVG, false},
		{"out/REPORT.SVG", SVG, false},
		{"report.html", HTML, false},
		{"report.htm", HTML, false},
		{"a.b/report.Html", HTML, false},
		{"report.png", "", true},
		{"report", "", true},
		{"svg", "", true},
	}
	for _, tc := range cases {
		got, err := FormatFor(tc.path)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("FormatFor(%q) = %q, %v; want %q, error %v", tc.path, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), ".svg, .html or .htm") {
			t.Errorf("FormatFor(%q) error %q does not name the supported extensions", tc.path, err)
		}
	}
}

func TestLargeClusterHighlightsAtMostEight(t *testing.T) {
	// 40 nodes: node-05, node-17 and node-33 are over the 80% target at
	// cycle 1, so they come first (by name: all peak at 95%); the other
	// five are the highest maxima: node i peaks at 20+i %, node-39 at 59%.
	res := largeResult(40, 3, 5, 17, 33)
	want := []string{"node-05", "node-17", "node-33", "node-39", "node-38", "node-37", "node-36", "node-35"}
	target, _ := cpuTarget(res)
	var got []string
	for _, s := range interesting(nodeSeries(timeline(res), cpuRes, target, true), maxHighlighted) {
		got = append(got, s.name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("interesting nodes = %v, want %v", got, want)
	}

	checkSVG(t, render(t, res, SVG))
	doc := cpuChart(t, render(t, res, HTML))
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`node-\d\d`).FindAllString(doc, -1) {
		named[m] = true
	}
	if len(named) != len(want) {
		t.Errorf("cpu chart names %d nodes, want the %d highlighted ones", len(named), len(want))
	}
	for _, n := range want {
		if !named[n] {
			t.Errorf("SVG lacks highlighted node %s", n)
		}
	}
	for _, s := range []string{"min–max of 40 nodes", "mean", "CPU usage: 40 nodes (band: min–max, line: mean; 8 nodes shown"} {
		if !strings.Contains(doc, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}

func TestSmallClusterDrawsEveryNode(t *testing.T) {
	// 8 nodes is still one line each; node-03 is over target at cycle 1,
	// so it is named in the legend and once more at its line's end.
	doc := cpuChart(t, render(t, largeResult(8, 3, 3), HTML))
	if strings.Contains(doc, "min–max") {
		t.Error("8 nodes drawn as a band, want one line per node")
	}
	if n := len(regexp.MustCompile(`>node-\d\d( \(over target\))?<`).FindAllString(doc, -1)); n != 9 {
		t.Errorf("cpu chart names nodes %d times, want 8 legend entries and 1 end label", n)
	}
	if !strings.Contains(doc, ">node-03 (over target)<") {
		t.Error("legend does not mark node-03 over target")
	}
	// 9 nodes are a band.
	if doc := cpuChart(t, render(t, largeResult(9, 3), HTML)); !strings.Contains(doc, "min–max of 9 nodes") {
		t.Error("9 nodes not drawn as a band")
	}
}

// cpuChart returns the first chart's SVG element of an HTML report.
func cpuChart(t *testing.T, html string) string {
	t.Helper()
	i := strings.Index(html, "<svg")
	j := strings.Index(html[max(i, 0):], "</svg>")
	if i < 0 || j < 0 {
		t.Fatal("HTML report has no chart")
	}
	return html[i : i+j]
}

func TestDegenerate(t *testing.T) {
	t.Run("no cycles", func(t *testing.T) {
		for _, res := range []*simulator.Result{nil, {}, {End: smallResult().End}} {
			err := Write(io.Discard, res, HTML)
			if !errors.Is(err, ErrNothingToChart) || !strings.Contains(err.Error(), "nothing to chart") {
				t.Errorf("Write = %v, want ErrNothingToChart", err)
			}
		}
	})
	t.Run("no usage", func(t *testing.T) {
		res := smallResult()
		for i := range res.Cycles {
			res.Cycles[i].Stats.CPUUsage = nil
			for j := range res.Cycles[i].Nodes {
				res.Cycles[i].Nodes[j].Usage = nil
			}
		}
		res.End.Nodes, res.End.Stats.CPUUsage = nil, nil
		res.Summary.CPUUsage = simulator.Change{}
		doc := render(t, res, SVG)
		checkSVG(t, doc)
		if !strings.Contains(doc, "CPU usage per node: no usage known for any of the 3 nodes at any cycle") {
			t.Error("chart 1 does not say that no usage is known")
		}
		if strings.Contains(doc, "hot-1") {
			t.Error("chart 1 names nodes although it draws no lines")
		}
		if html := render(t, res, HTML); !strings.Contains(html, `<td class="num">unknown</td><td class="num">unknown</td>`) {
			t.Error("HTML summary does not say cpu usage is unknown")
		}
	})
	t.Run("one cycle, no end state", func(t *testing.T) {
		res := smallResult()
		res.Cycles, res.End = res.Cycles[:1], simulator.State{}
		doc := render(t, res, SVG)
		checkSVG(t, doc)
		if strings.Contains(doc, ">end</text>") {
			t.Error("x axis labels an end state the Result does not have")
		}
		if !strings.Contains(doc, ">1</text>") {
			t.Error("x axis does not label cycle 1")
		}
		if html := render(t, res, HTML); !strings.Contains(html, "From 2026-01-01T12:00:00Z.") {
			t.Error("HTML period does not handle a missing end state")
		}
	})
	t.Run("no evictions", func(t *testing.T) {
		res := largeResult(3, 3)
		if doc := render(t, res, SVG); !strings.Contains(doc, "Evictions per cycle: none") {
			t.Error("chart 3 does not say there were no evictions")
		}
	})
	t.Run("unknown format", func(t *testing.T) {
		if err := Write(io.Discard, smallResult(), Format("png")); err == nil {
			t.Error("Write(png) succeeded")
		}
	})
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"r.svg", "r.html"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, smallResult()); err != nil {
			t.Fatalf("WriteFile(%s): %v", name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := FormatFor(name)
		if want := render(t, smallResult(), f); string(got) != want {
			t.Errorf("WriteFile(%s) wrote other bytes than Write", name)
		}
	}
	if err := WriteFile(filepath.Join(dir, "r.png"), smallResult()); err == nil {
		t.Error("WriteFile(r.png) succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "r.png")); !os.IsNotExist(err) {
		t.Error("WriteFile(r.png) created the file")
	}
}

// BenchmarkWriteHTML renders a day of 5-minute cycles (288) of a
// 5,000-node cluster.
func BenchmarkWriteHTML(b *testing.B) {
	res := largeResult(5000, 288, 7, 4000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, res, HTML); err != nil {
			b.Fatal(err)
		}
	}
}
