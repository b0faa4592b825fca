package report

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestTimeline(t *testing.T) {
	pts := timeline(smallResult())
	// Cycles 1-4, then the end state at 4+1.
	if got, want := xs(pts), []float64{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("x = %v, want %v", got, want)
	}
	// Cycle 1: two simulated, one blocked; cycle 3: one simulated.
	var evicted, blocked []int
	for _, p := range pts {
		evicted, blocked = append(evicted, p.stats.Evictions), append(blocked, p.blocked)
	}
	if want := []int{2, 0, 1, 0, 0}; !slices.Equal(evicted, want) {
		t.Errorf("evictions = %v, want %v", evicted, want)
	}
	if want := []int{1, 0, 0, 0, 0}; !slices.Equal(blocked, want) {
		t.Errorf("blocked = %v, want %v", blocked, want)
	}
	if pts[4].start || !pts[3].start {
		t.Error("only the last point should be the end state")
	}
}

func TestNodeSeries(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		target    float64
		hasTarget bool
		want      map[string]series
	}{
		{
			// hot-1 is 90% > 80% at cycle 1, and classified overutilized.
			name: "target 80", target: 80, hasTarget: true,
			want: map[string]series{
				"cold-3": {vals: []float64{20, nan, 35, 40, 45}, known: 4, max: 45},
				"hot-1":  {vals: []float64{90, 80, 70, 65, 60}, known: 5, max: 90, over: true},
				"warm-2": {vals: []float64{50, 55, 58, 60, 62}, known: 5, max: 62},
			},
		},
		{
			// warm-2 reaches 62% only at the end state, which is no cycle
			// start; hot-1 is over by classification and usage.
			name: "target 61", target: 61, hasTarget: true,
			want: map[string]series{
				"cold-3": {known: 4, max: 45},
				"hot-1":  {known: 5, max: 90, over: true},
				"warm-2": {known: 5, max: 62},
			},
		},
		{
			// warm-2 is at 60% > 59% at cycle 4.
			name: "target 59", target: 59, hasTarget: true,
			want: map[string]series{
				"cold-3": {known: 4, max: 45},
				"hot-1":  {known: 5, max: 90, over: true},
				"warm-2": {known: 5, max: 62, over: true},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ss := nodeSeries(timeline(smallResult()), cpuRes, tc.target, tc.hasTarget)
			var names []string
			for _, s := range ss {
				names = append(names, s.name)
				w := tc.want[s.name]
				if s.known != w.known || s.max != w.max || s.over != w.over {
					t.Errorf("%s: known %d max %v over %v; want %d, %v, %v", s.name, s.known, s.max, s.over, w.known, w.max, w.over)
				}
				if w.vals != nil && !slices.EqualFunc(s.vals, w.vals, sameFloat) {
					t.Errorf("%s: cpu %v, want %v", s.name, s.vals, w.vals)
				}
			}
			if want := []string{"cold-3", "hot-1", "warm-2"}; !slices.Equal(names, want) {
				t.Errorf("nodes %v, want %v (name order)", names, want)
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestInterestingWithoutTarget(t *testing.T) {
	// No target, no overutilized class: highest maximum first, ties by
	// name; cold-3 (max 45) is cut off by the limit of 2.
	res := smallResult()
	res.Cycles[0].Nodes[1].Classification = "appropriate"
	var got []string
	for _, s := range interesting(nodeSeries(timeline(res), cpuRes, 0, false), 2) {
		got = append(got, s.name)
	}
	if want := []string{"hot-1", "warm-2"}; !slices.Equal(got, want) {
		t.Errorf("interesting = %v, want %v", got, want)
	}
}

func TestUsageBand(t *testing.T) {
	res := smallResult()
	ss := nodeSeries(timeline(res), cpuRes, 80, true)
	b := usageBand(ss, 5)
	// Cycle 2 knows only hot-1 (80) and warm-2 (55): mean 67.5. Cycle 1:
	// mean (90+50+20)/3 = 53.33.
	want := band{
		lo:   []float64{20, 55, 35, 40, 45},
		mean: []float64{160.0 / 3, 67.5, 163.0 / 3, 55, 167.0 / 3},
		hi:   []float64{90, 80, 70, 65, 62},
	}
	for i := range 5 {
		if b.lo[i] != want.lo[i] || math.Abs(b.mean[i]-want.mean[i]) > 1e-9 || b.hi[i] != want.hi[i] {
			t.Errorf("point %d: band %v/%v/%v, want %v/%v/%v", i, b.lo[i], b.mean[i], b.hi[i], want.lo[i], want.mean[i], want.hi[i])
		}
	}
	// No node known at a point: NaN, so the band has a gap there.
	for j := range res.Cycles[1].Nodes {
		res.Cycles[1].Nodes[j].Usage = nil
	}
	b = usageBand(nodeSeries(timeline(res), cpuRes, 80, true), 5)
	if !math.IsNaN(b.lo[1]) || !math.IsNaN(b.mean[1]) || !math.IsNaN(b.hi[1]) {
		t.Errorf("point without known usage: band %v/%v/%v, want NaN", b.lo[1], b.mean[1], b.hi[1])
	}
}

func TestRuns(t *testing.T) {
	nan := math.NaN()
	x := []float64{1, 2, 3, 4, 5}
	cases := []struct {
		ys   []float64
		want [][]xy
	}{
		{[]float64{1, 2, 3, 4, 5}, [][]xy{{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}}},
		{[]float64{20, nan, 35, 40, nan}, [][]xy{{{1, 20}}, {{3, 35}, {4, 40}}}},
		{[]float64{nan, nan, nan, nan, nan}, nil},
		// A zero is a value, not a gap.
		{[]float64{0, nan, nan, 0, 0}, [][]xy{{{1, 0}}, {{4, 0}, {5, 0}}}},
	}
	for _, tc := range cases {
		if got := runs(x, tc.ys); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("runs(%v) = %v, want %v", tc.ys, got, tc.want)
		}
	}
}

func labels(ticks []plot.Tick) string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

func TestCycleTicks(t *testing.T) {
	cases := []struct {
		ticks cycleTicks
		want  string
		minor int
	}{
		{cycleTicks{first: 1, last: 5, end: true}, "1 2 3 4 end", 0},
		{cycleTicks{first: 1, last: 1}, "1", 0},
		{cycleTicks{first: 1, last: 2, end: true}, "1 end", 0},
		// 25 positions: step 2; 1 is 1 before 2 and 24 is 1 before the end,
		// both at least step/2 away, so both are labelled; odd cycles are
		// minor ticks.
		{cycleTicks{first: 1, last: 25, end: true}, "1 2 4 6 8 10 12 14 16 18 20 22 24 end", 11},
		// 289 positions (288 cycles): step 20; 280 is 9 before the end
		// (2*9 < 20) and left unlabelled, with no minor ticks.
		{cycleTicks{first: 1, last: 289, end: true},
			"1 20 40 60 80 100 120 140 160 180 200 220 240 260 end", 0},
		// 48 positions from 3: step 5; 3 is 2 before 5 (2*2 < 5): unlabelled.
		{cycleTicks{first: 3, last: 50}, "5 10 15 20 25 30 35 40 45 50", 38},
	}
	for _, tc := range cases {
		got := tc.ticks.Ticks(0, 0)
		if l := labels(got); l != tc.want {
			t.Errorf("%+v: labels %q, want %q", tc.ticks, l, tc.want)
		}
		minor := 0
		for _, tk := range got {
			if tk.IsMinor() {
				minor++
			}
		}
		if minor != tc.minor {
			t.Errorf("%+v: %d minor ticks, want %d", tc.ticks, minor, tc.minor)
		}
	}
}

func TestCountTicks(t *testing.T) {
	cases := []struct {
		max  float64
		want string
	}{
		{1, "0 1"},
		{2, "0 1 2"},
		{6, "0 1 2 3 4 5 6"},
		{7, "0 2 4 6"}, // evictionChart rounds the axis up to 8
		{40, "0 10 20 30 40"},
	}
	for _, tc := range cases {
		if got := labels(countTicks{}.Ticks(0, tc.max)); got != tc.want {
			t.Errorf("countTicks(%v) = %q, want %q", tc.max, got, tc.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	cases := []struct{ span, limit, want int }{
		{0, 6, 1}, {6, 6, 1}, {7, 6, 2}, {12, 6, 2}, {13, 6, 5}, {31, 6, 10}, {289, 16, 20}, {5000, 16, 500},
	}
	for _, tc := range cases {
		if got := niceStep(tc.span, tc.limit); got != tc.want {
			t.Errorf("niceStep(%d, %d) = %d, want %d", tc.span, tc.limit, got, tc.want)
		}
	}
}

func TestLegendLabel(t *testing.T) {
	long := strings.Repeat("n", 45)
	if got := legendLabel(long); len([]rune(got)) != maxLegendRunes || !strings.HasSuffix(got, "…") {
		t.Errorf("legendLabel(45 runes) = %q, want 40 runes ending in …", got)
	}
	if got := legendLabel("ip-10-0-1-2.ec2.internal"); got != "ip-10-0-1-2.ec2.internal" {
		t.Errorf("short name changed to %q", got)
	}
}

func TestAddLineMarksShortLinesOnly(t *testing.T) {
	// Up to maxMarkedPoints points every point gets a glyph, which the
	// legend shows too; beyond, only isolated points do, and the legend
	// shows the line alone.
	for _, n := range []int{5, maxMarkedPoints, maxMarkedPoints + 1} {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1)
		}
		thumbs, err := addLine(plot.New(), x, x, lineStyle{color: palette()[0], width: 1, glyph: glyphs()[0]})
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if n > maxMarkedPoints {
			want = 1
		}
		if len(thumbs) != want {
			t.Errorf("%d points: %d legend thumbnails, want %d", n, len(thumbs), want)
		}
	}
}
