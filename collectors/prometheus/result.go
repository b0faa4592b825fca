package prometheus

import (
	"fmt"
	"math"
	"net"

	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// series is one series of a query result: its labels and its points,
// oldest first (one point for an instant query).
type series struct {
	metric model.Metric
	points []model.SamplePair
}

// toSeries flattens a vector or matrix result; other result types are an
// error.
func toSeries(v model.Value) ([]series, error) {
	switch r := v.(type) {
	case model.Vector:
		out := make([]series, len(r))
		for i, s := range r {
			out[i] = series{metric: s.Metric, points: []model.SamplePair{{Timestamp: s.Timestamp, Value: s.Value}}}
		}
		return out, nil
	case model.Matrix:
		out := make([]series, len(r))
		for i, s := range r {
			out[i] = series{metric: s.Metric, points: s.Values}
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("empty result, want a vector or matrix")
	}
	return nil, fmt.Errorf("result of type %s, want a vector or matrix", v.Type())
}

// nodeName reads the node name from label, stripping a ":port" suffix
// (instance="10.0.0.1:9100" → "10.0.0.1"); ok is false when it is absent.
func nodeName(m model.Metric, label model.LabelName) (string, bool) {
	v := string(m[label])
	if v == "" {
		return "", false
	}
	if host, _, err := net.SplitHostPort(v); err == nil && host != "" {
		return host, true
	}
	return v, true
}

// podName reads the namespace and pod labels.
func podName(m model.Metric) (types.NamespacedName, bool) {
	ns, pod := string(m["namespace"]), string(m["pod"])
	return types.NamespacedName{Namespace: ns, Name: pod}, ns != "" && pod != ""
}

// resource tells which half of a sample a query fills.
type resource int

const (
	cpuCores resource = iota
	memoryBytes
)

// joiner pairs the CPU and memory series of each key (node or pod) in the
// order keys first appear, so errors name items deterministically.
type joiner[K comparable] struct {
	idx   map[K]int
	keys  []K
	pairs [][2][]model.SamplePair
	seen  [][2]bool
}

func newJoiner[K comparable](size int) *joiner[K] {
	return &joiner[K]{idx: make(map[K]int, size)}
}

// add records the points of key for r; it reports false when key already
// had a series for r (the query does not aggregate by the key's labels).
func (j *joiner[K]) add(key K, r resource, points []model.SamplePair) bool {
	i, ok := j.idx[key]
	if !ok {
		i = len(j.keys)
		j.idx[key] = i
		j.keys = append(j.keys, key)
		j.pairs = append(j.pairs, [2][]model.SamplePair{})
		j.seen = append(j.seen, [2]bool{})
	}
	if j.seen[i][r] {
		return false
	}
	j.pairs[i][r], j.seen[i][r] = points, true
	return true
}

// samples returns one sample per timestamp at which a key has both CPU
// and memory points (a key with only one of them — a pod whose CPU rate
// needs a second scrape — yields none, silently). Invalid values skip the
// point and are recorded once per key in problems.
func (j *joiner[K]) samples(describe func(K) string, problems *collectors.Problems, emit func(K, snapshot.Sample)) {
	for i, key := range j.keys {
		cpu, mem := j.pairs[i][cpuCores], j.pairs[i][memoryBytes]
		bad := ""
		for a, b := 0, 0; a < len(cpu) && b < len(mem); {
			switch {
			case cpu[a].Timestamp < mem[b].Timestamp:
				a++
				continue
			case cpu[a].Timestamp > mem[b].Timestamp:
				b++
				continue
			}
			milliCPU, msg := toInt(float64(cpu[a].Value), 1000, "cpu")
			memory, msg2 := toInt(float64(mem[b].Value), 1, "memory")
			if msg == "" {
				msg = msg2
			}
			if msg == "" {
				emit(key, snapshot.Sample{Time: cpu[a].Timestamp.Time().UTC(), MilliCPU: milliCPU, Memory: memory})
			} else if bad == "" {
				bad = msg
			}
			a, b = a+1, b+1
		}
		if bad != "" {
			problems.Addf("%s: %s", describe(key), bad)
		}
	}
}

// toInt converts a usage value times scale to an integer, or says why it is
// not a usage.
func toInt(v, scale float64, what string) (int64, string) {
	x := math.Round(v * scale)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Sprintf("%s is %v", what, v)
	case x < 0:
		return 0, fmt.Sprintf("%s is negative (%v)", what, v)
	case x >= math.MaxInt64:
		return 0, fmt.Sprintf("%s is out of range (%v)", what, v)
	}
	return int64(x), ""
}

// percentPoints converts upstream-style results, one value in [0, 1] per
// node, to percentages; values outside [0, 1] or NaN skip the point.
func percentPoints(result []series, label model.LabelName, problems *collectors.Problems) []window.NamedPoint {
	out := make([]window.NamedPoint, 0, len(result))
	seen := make(map[string]bool, len(result))
	for _, s := range result {
		name, ok := nodeName(s.metric, label)
		switch {
		case !ok:
			problems.Addf("query: series %s has no label %s", s.metric, label)
			continue
		case seen[name]:
			problems.Addf("query: more than one series for node %s (aggregate by %s)", name, label)
			continue
		}
		seen[name] = true
		bad := ""
		for _, p := range s.points {
			v := float64(p.Value)
			if math.IsNaN(v) || v < 0 || v > 1 {
				if bad == "" {
					bad = fmt.Sprintf("query: node %s: value %v is not between 0 and 1", name, v)
				}
				continue
			}
			out = append(out, window.NamedPoint{Name: name, Point: window.Point{Time: p.Timestamp.Time().UTC(), Value: 100 * v}})
		}
		if bad != "" {
			problems.Addf("%s", bad)
		}
	}
	return out
}
