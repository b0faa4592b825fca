package snapshot

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

const (
	// maxGapNulls is the most missed steps a run bridges with nulls (16
	// nulls cost about what a new object's header does).
	maxGapNulls = 16
	// defaultInterval is the interval of a single-sample run that has no
	// run before it.
	defaultInterval = time.Minute
	// maxInterval bounds a run's spacing well below the 292 years at which
	// time.Time.Sub saturates.
	maxInterval = 100 * 365 * 24 * time.Hour
)

// writeUsage writes the usage series in WriteList's order.
func writeUsage(e *listWriter, objs Objects) {
	nodes := slices.Sorted(maps.Keys(objs.NodeMetrics))
	for name := range objs.NodeMetricResource {
		if _, ok := objs.NodeMetrics[name]; !ok {
			nodes = append(nodes, name)
		}
	}
	slices.Sort(nodes)
	for _, name := range nodes {
		e.samples(NodeUsageSeriesKind, "", name, objs.NodeMetrics[name])
		e.points(name, objs.NodeMetricResource[name])
	}
	pods := slices.SortedFunc(maps.Keys(objs.PodMetrics), func(a, b types.NamespacedName) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, k := range pods {
		e.samples(PodUsageSeriesKind, k.Namespace, k.Name, objs.PodMetrics[k])
	}
}

// seriesBuilder holds the scratch space of one series.
type seriesBuilder struct {
	// times are the series' times truncated to seconds.
	times       []time.Time
	cpu, memory []byte
	out         []byte
}

// run is the samples [first, last) of a series, written as one object with
// the given interval between steps.
type run struct {
	first, last int
	step        time.Duration
}

// samples writes the cpu and memory series of one node or pod.
func (e *listWriter) samples(kind, namespace, name string, s Series) {
	if e.err != nil || len(s) == 0 {
		return
	}
	desc := "usage of " + describe(strings.TrimSuffix(kind, "UsageSeries"), namespace, name)
	b := &e.series
	if e.err = b.truncate(desc, len(s), func(i int) time.Time { return s[i].Time }); e.err != nil {
		return
	}
	for i, x := range s {
		if x.MilliCPU < 0 || x.Memory < 0 {
			e.err = fmt.Errorf("%s: sample at %s: cpu %dm and memory %d must not be negative",
				desc, b.times[i].Format(time.RFC3339), x.MilliCPU, x.Memory)
			return
		}
	}
	for _, r := range splitRuns(b.times) {
		b.cpu, b.memory = b.cpu[:0], b.memory[:0]
		b.positions(r, e.sep(), func(k int) {
			b.cpu = strconv.AppendInt(b.cpu, s[k].MilliCPU, 10)
			b.memory = strconv.AppendInt(b.memory, s[k].Memory, 10)
		}, func() {
			b.cpu = append(b.cpu, "null"...)
			b.memory = append(b.memory, "null"...)
		}, func(sep string) {
			b.cpu = append(b.cpu, sep...)
			b.memory = append(b.memory, sep...)
		})
		e.seriesItem(kind, namespace, name, r, field{"cpu", b.cpu}, field{"memory", b.memory})
	}
}

// points writes the MetricResource series of one node.
func (e *listWriter) points(name string, p Points) {
	if e.err != nil || len(p) == 0 {
		return
	}
	desc := "MetricResource of node " + name
	b := &e.series
	if e.err = b.truncate(desc, len(p), func(i int) time.Time { return p[i].Time }); e.err != nil {
		return
	}
	for i, x := range p {
		if math.IsNaN(x.Value) || x.Value < 0 || x.Value > 100 {
			e.err = fmt.Errorf("%s: value %v at %s is outside [0, 100]", desc, x.Value, b.times[i].Format(time.RFC3339))
			return
		}
	}
	for _, r := range splitRuns(b.times) {
		b.cpu = b.cpu[:0]
		b.positions(r, e.sep(), func(k int) {
			b.cpu = strconv.AppendFloat(b.cpu, p[k].Value, 'f', -1, 64)
		}, func() {
			b.cpu = append(b.cpu, "null"...)
		}, func(sep string) {
			b.cpu = append(b.cpu, sep...)
		})
		e.seriesItem(NodeUsageSeriesKind, "", name, r, field{"metricResource", b.cpu})
	}
}

// truncate fills b.times with the series' times at second precision and
// checks that RFC 3339 can write them.
func (b *seriesBuilder) truncate(desc string, n int, at func(int) time.Time) error {
	b.times = b.times[:0]
	for i := range n {
		t := at(i).UTC().Truncate(time.Second)
		if at(i).IsZero() || t.Year() < 0 || t.Year() > lastWritableYear {
			return fmt.Errorf("%s: sample time %s cannot be written (RFC 3339, years 0000-%d)",
				desc, at(i), lastWritableYear)
		}
		b.times = append(b.times, t)
	}
	return nil
}

// positions calls value for each sample of r at its step, null for each
// step without one and sep between steps, each list in '[' ']'.
func (b *seriesBuilder) positions(r run, sep string, value func(k int), null func(), between func(string)) {
	between("[")
	pos := 0
	for k := r.first; k < r.last; k++ {
		p := int(b.times[k].Sub(b.times[r.first]) / r.step)
		for ; pos < p; pos++ {
			if pos > 0 {
				between(sep)
			}
			null()
		}
		if pos > 0 {
			between(sep)
		}
		value(k)
		pos++
	}
	between("]")
}

// splitRuns cuts times into maximal runs: a run's step is the spacing of
// its first two times, and it goes on while each next spacing is a whole
// multiple of the step of at most maxGapNulls+1 steps, up to
// MaxSeriesSamples steps. A single time gets the step of the run before
// it, or defaultInterval.
func splitRuns(times []time.Time) []run {
	var runs []run
	prev := defaultInterval
	for i := 0; i < len(times); {
		j, step := i+1, time.Duration(0)
		if j < len(times) {
			if d := times[j].Sub(times[i]); d > 0 && d <= maxInterval {
				step = d
			}
		}
		for ; step > 0 && j < len(times); j++ {
			d := times[j].Sub(times[j-1])
			if d <= 0 || d%step != 0 || d/step > maxGapNulls+1 || times[j].Sub(times[i])/step >= MaxSeriesSamples {
				break
			}
		}
		if step == 0 {
			step = prev
		}
		runs = append(runs, run{first: i, last: j, step: step})
		prev, i = step, j
	}
	return runs
}

// field is one value list of a series item.
type field struct {
	name string
	list []byte
}

func (e *listWriter) sep() string {
	if e.json {
		return ","
	}
	return ", "
}

// seriesItem writes one NodeUsageSeries or PodUsageSeries item.
func (e *listWriter) seriesItem(kind, namespace, name string, r run, fields ...field) {
	b := &e.series
	start := `"` + b.times[r.first].Format(time.RFC3339) + `"`
	interval := formatInterval(r.step)
	out := b.out[:0]
	if e.json {
		out = append(out, `{"apiVersion":"`+UsageAPIVersion+`","kind":"`+kind+`","metadata":{"name":`...)
		out = appendJSONString(out, name)
		if namespace != "" {
			out = appendJSONString(append(out, `,"namespace":`...), namespace)
		}
		out = append(out, `},"start":`+start+`,"interval":"`+interval+`"`...)
		for _, f := range fields {
			out = append(append(out, `,"`+f.name+`":`...), f.list...)
		}
		out = append(out, '}')
	} else {
		out = append(out, "- apiVersion: "+UsageAPIVersion+"\n  kind: "+kind+"\n  metadata:\n    name: "...)
		out = appendYAMLString(out, name)
		if namespace != "" {
			out = appendYAMLString(append(out, "\n    namespace: "...), namespace)
		}
		out = append(out, "\n  start: "+start+"\n  interval: "+interval...)
		for _, f := range fields {
			out = append(append(out, "\n  "+f.name+": "...), f.list...)
		}
	}
	b.out = out
	e.startItem()
	if e.err == nil {
		if _, err := e.w.Write(out); err != nil {
			e.err = fmt.Errorf("writing snapshot: %w", err)
		}
	}
}

// formatInterval writes d (whole seconds) as a Go duration without zero
// units: 1m, 1h30m, 15s.
func formatInterval(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// appendJSONString appends s as a JSON string.
func appendJSONString(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(out, q...)
		}
	}
	return append(append(append(out, '"'), s...), '"')
}

// appendYAMLString appends s as a YAML scalar: plain when it is a name
// that YAML reads back as that string, else a JSON (double-quoted) string.
func appendYAMLString(out []byte, s string) []byte {
	switch s {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf":
		return appendJSONString(out, s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.')) {
			return appendJSONString(out, s)
		}
	}
	if s == "" {
		return appendJSONString(out, s)
	}
	return append(out, s...)
}
