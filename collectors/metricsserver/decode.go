package metricsserver

import (
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// The streaming decoders read a NodeMetricsList or PodMetricsList response
// in one pass with a hand-written scanner (scan.go, items.go) that follows
// the API machinery's JSON rules (sigs.k8s.io/json: keys match
// case-sensitively, a repeated key keeps its last value) and keeps only
// what a sample needs — name, namespace, timestamp, window and
// per-container cpu and memory — in one item reused from item to item,
// turning each into a sample at once. The body is read in chunks of
// readBufferSize; the whole list is never resident: what one poll
// allocates is the samples, the pod names and a few buffers
// (docs/benchmarks.md, "Usage collectors").
//
// They give the same samples and the same problems as decoding the list
// into the metrics.k8s.io types and calling NodeSamples or PodSamples
// (TestStreamMatchesTypedDecode, FuzzDecode); a list the typed decode
// rejects is rejected here too, except for a malformed field neither
// reads a sample from (labels, creationTimestamp, ...), which is only
// checked to be JSON, and for anything after the list object.

// DecodeNodes reads a NodeMetricsList from r into samples, with the rules
// of NodeSamples.
func DecodeNodes(r io.Reader, problems *collectors.Problems) ([]window.NodeSample, error) {
	return decodeNodes(r, problems, 0)
}

// decodeNodes is DecodeNodes with room for sizeHint samples.
func decodeNodes(r io.Reader, problems *collectors.Problems, sizeHint int) ([]window.NodeSample, error) {
	out := make([]window.NodeSample, 0, sizeHint)
	var found pending
	err := decodeList(r, false, func() { out, found = out[:0], pending{} }, func(it *item) {
		s, msg := usageSample(it.ts, &it.usage)
		if msg != "" {
			found.addf("NodeMetrics %s: %s", it.name, msg)
			return
		}
		out = append(out, window.NodeSample{Name: string(it.name), Sample: s})
	})
	if err != nil {
		return nil, err
	}
	found.flush(problems)
	return out, nil
}

// DecodePods reads a PodMetricsList from r into samples, with the rules of
// PodSamples. Namespaces are shared between the samples of one response.
func DecodePods(r io.Reader, problems *collectors.Problems) ([]window.PodSample, error) {
	return decodePods(r, problems, 0)
}

// decodePods is DecodePods with room for sizeHint samples (the previous
// poll's count: growing a 150,000-sample slice by doubling allocates it
// twice over).
func decodePods(r io.Reader, problems *collectors.Problems, sizeHint int) ([]window.PodSample, error) {
	out := make([]window.PodSample, 0, sizeHint)
	var found pending
	namespaces := map[string]string{}
	err := decodeList(r, true, func() { out, found = out[:0], pending{} }, func(it *item) {
		if it.n == 0 {
			return
		}
		if it.ts.IsZero() {
			found.addf("PodMetrics %s/%s: no timestamp", it.namespace, it.name)
			return
		}
		var total snapshot.Sample
		for i := range it.containers[:it.n] {
			c := &it.containers[i]
			s, msg := usageSample(it.ts, &c.usage)
			if msg != "" {
				found.addf("PodMetrics %s/%s: container %s: %s", it.namespace, it.name, c.name, msg)
				return
			}
			total.MilliCPU += s.MilliCPU
			total.Memory += s.Memory
		}
		total.Time = it.ts
		out = append(out, window.PodSample{Pod: podName(it, namespaces), Sample: total})
	})
	if err != nil {
		return nil, err
	}
	found.flush(problems)
	return out, nil
}

// podName returns the item's namespace (shared through namespaces) and name.
func podName(it *item, namespaces map[string]string) types.NamespacedName {
	ns, seen := namespaces[string(it.namespace)]
	if !seen {
		ns = string(it.namespace)
		namespaces[ns] = ns
	}
	return types.NamespacedName{Namespace: ns, Name: string(it.name)}
}

// pendingShown is how many problem messages pending keeps; it must be at
// least what collectors.Problems shows (3).
const pendingShown = 16

// pending holds a list's problems until the list is decoded, since a
// repeated "items" key discards the earlier items and their problems.
type pending struct {
	count int
	shown []string
}

func (p *pending) addf(format string, args ...any) {
	p.count++
	if len(p.shown) < pendingShown {
		p.shown = append(p.shown, fmt.Sprintf(format, args...))
	}
}

// flush records the problems in to: the kept messages, then the rest as
// counts (to shows no more than pendingShown messages, so the empty
// messages of the rest are only counted).
func (p *pending) flush(to *collectors.Problems) {
	for _, msg := range p.shown {
		to.Addf("%s", msg)
	}
	for range p.count - len(p.shown) {
		to.Addf("")
	}
}

// usageSample reads cpu (millicores) and memory (bytes) from u at ts, or
// returns why it cannot (the messages of the typed path's sample).
func usageSample(ts time.Time, u *usage) (snapshot.Sample, string) {
	switch {
	case ts.IsZero():
		return snapshot.Sample{}, "no timestamp"
	case !u.hasCPU || !u.hasMemory:
		return snapshot.Sample{}, "usage lacks cpu or memory"
	case u.cpu.negative || u.memory.negative:
		cpu, memory := u.text()
		return snapshot.Sample{}, fmt.Sprintf("negative usage (cpu %s, memory %s)", cpu, memory)
	}
	return snapshot.Sample{Time: ts, MilliCPU: u.cpu.milli, Memory: u.memory.value}, ""
}
