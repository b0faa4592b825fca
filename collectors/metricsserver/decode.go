package metricsserver

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// The streaming decoders read a NodeMetricsList or PodMetricsList response
// item by item with the API machinery's JSON rules (sigs.k8s.io/json: keys
// match case-sensitively, a repeated key keeps its last value) into
// minimal items holding only what a sample needs — name, namespace,
// timestamp, window and per-container cpu and memory — reused from item
// to item, and turn each into a sample at once. The whole list is never
// resident: what one poll allocates is the samples, the pod names and a
// few buffers (docs/benchmarks.md, "Usage collectors").
//
// They give the same samples and the same problems as decoding the list
// into the metrics.k8s.io types and calling NodeSamples or PodSamples
// (TestStreamMatchesTypedDecode, FuzzDecodePods); a list the typed decode
// rejects is rejected here too, except for a malformed field neither
// reads a sample from (labels, creationTimestamp, ...), which is ignored.

// nodeItem is the part of a NodeMetrics that is read.
type nodeItem struct {
	Metadata struct {
		Name rawValue `json:"name"`
	} `json:"metadata"`
	Timestamp rawValue `json:"timestamp"`
	Window    rawValue `json:"window"`
	Usage     usage    `json:"usage"`
}

// podItem is the part of a PodMetrics that is read.
type podItem struct {
	Metadata struct {
		Name      rawValue `json:"name"`
		Namespace rawValue `json:"namespace"`
	} `json:"metadata"`
	Timestamp  rawValue        `json:"timestamp"`
	Window     rawValue        `json:"window"`
	Containers []containerItem `json:"containers"`
}

// containerItem is the part of a ContainerMetrics that is read.
type containerItem struct {
	Name  rawValue `json:"name"`
	Usage usage    `json:"usage"`
}

func (it *nodeItem) reset() {
	it.Metadata.Name.reset()
	it.Timestamp.reset()
	it.Window.reset()
	it.Usage.clear()
}

// reset empties the item; the containers keep their buffers (the decoder
// decodes into the elements already there without clearing them).
func (it *podItem) reset() {
	it.Metadata.Name.reset()
	it.Metadata.Namespace.reset()
	it.Timestamp.reset()
	it.Window.reset()
	all := it.Containers[:cap(it.Containers)]
	for i := range all {
		all[i].Name.reset()
		all[i].Usage.clear()
	}
	it.Containers = it.Containers[:0]
}

// header parses an item's timestamp and checks its window, the fields
// NodeMetrics and PodMetrics share.
func (c *timeCache) header(timestamp, win *rawValue) (time.Time, error) {
	ts, err := c.parse(timestamp)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp: %w", err)
	}
	if err := checkDuration(win); err != nil {
		return time.Time{}, fmt.Errorf("window: %w", err)
	}
	return ts, nil
}

// DecodeNodes reads a NodeMetricsList from r into samples, with the rules
// of NodeSamples.
func DecodeNodes(r io.Reader, problems *collectors.Problems) ([]window.NodeSample, error) {
	return decodeNodes(r, problems, 0)
}

// decodeNodes is DecodeNodes with room for sizeHint samples.
func decodeNodes(r io.Reader, problems *collectors.Problems, sizeHint int) ([]window.NodeSample, error) {
	var it nodeItem
	var times timeCache
	out := make([]window.NodeSample, 0, sizeHint)
	var found pending
	err := decodeItems(r, &it, func() { out, found = out[:0], pending{} }, it.reset, func() error {
		ts, err := times.header(&it.Timestamp, &it.Window)
		if err != nil {
			return err
		}
		name, err := it.Metadata.Name.str()
		if err != nil {
			return fmt.Errorf("metadata.name: %w", err)
		}
		s, msg := usageSample(ts, &it.Usage)
		if msg != "" {
			found.addf("NodeMetrics %s: %s", name, msg)
			return nil
		}
		out = append(out, window.NodeSample{Name: name, Sample: s})
		return nil
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
	var it podItem
	var times timeCache
	out := make([]window.PodSample, 0, sizeHint)
	var found pending
	namespaces := map[string]string{}
	err := decodeItems(r, &it, func() { out, found = out[:0], pending{} }, it.reset, func() error {
		ts, err := times.header(&it.Timestamp, &it.Window)
		if err != nil {
			return err
		}
		pod, err := podName(&it, namespaces)
		if err != nil {
			return err
		}
		for i := range it.Containers {
			if err := it.Containers[i].Name.checkString(); err != nil {
				return fmt.Errorf("containers[%d].name: %w", i, err)
			}
		}
		if len(it.Containers) == 0 {
			return nil
		}
		if ts.IsZero() {
			found.addf("PodMetrics %s/%s: no timestamp", pod.Namespace, pod.Name)
			return nil
		}
		var total snapshot.Sample
		for i := range it.Containers {
			s, msg := usageSample(ts, &it.Containers[i].Usage)
			if msg != "" {
				name, _ := it.Containers[i].Name.str()
				found.addf("PodMetrics %s/%s: container %s: %s", pod.Namespace, pod.Name, name, msg)
				return nil
			}
			total.MilliCPU += s.MilliCPU
			total.Memory += s.Memory
		}
		total.Time = ts
		out = append(out, window.PodSample{Pod: pod, Sample: total})
		return nil
	})
	if err != nil {
		return nil, err
	}
	found.flush(problems)
	return out, nil
}

// podName returns the item's namespace (shared through namespaces) and name.
func podName(it *podItem, namespaces map[string]string) (types.NamespacedName, error) {
	var pod types.NamespacedName
	if b, ok := it.Metadata.Namespace.stringBytes(); ok {
		ns, seen := namespaces[string(b)]
		if !seen {
			ns = string(b)
			namespaces[ns] = ns
		}
		pod.Namespace = ns
	} else {
		var err error
		if pod.Namespace, err = it.Metadata.Namespace.str(); err != nil {
			return pod, fmt.Errorf("metadata.namespace: %w", err)
		}
	}
	var err error
	if pod.Name, err = it.Metadata.Name.str(); err != nil {
		return pod, fmt.Errorf("metadata.name: %w", err)
	}
	return pod, nil
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

// discard skips a JSON value.
type discard struct{}

// UnmarshalJSON ignores data.
func (*discard) UnmarshalJSON([]byte) error { return nil }

// decodeItems walks a list object: restart runs at each "items" key (a
// repeated key replaces the earlier items, as in the typed decode), reset
// before each element, which is decoded into item, then each converts it.
// Other keys are skipped.
func decodeItems(r io.Reader, item any, restart, reset func(), each func() error) error {
	dec := kjson.NewDecoderCaseSensitivePreserveInts(r)
	tok, err := dec.Token()
	switch {
	case err != nil:
		return err
	case tok == nil:
		return nil // null: no list, as in the typed decode
	case delim(tok) != '{':
		return fmt.Errorf("want a JSON object, got %v", tok)
	}
	for dec.More() {
		if tok, err = dec.Token(); err != nil {
			return err
		}
		if tok != "items" {
			if err := dec.Decode(&discard{}); err != nil {
				return err
			}
			continue
		}
		restart()
		if tok, err = dec.Token(); err != nil || tok == nil {
			continue // an error is returned by the next call; null is no items
		}
		if delim(tok) != '[' {
			return errors.New("items is not a JSON array")
		}
		for i := 0; dec.More(); i++ {
			reset()
			if err := dec.Decode(item); err != nil {
				return fmt.Errorf("items[%d]: %w", i, err)
			}
			if err := each(); err != nil {
				return fmt.Errorf("items[%d]: %w", i, err)
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// expectDelim reads the next token, which must be the delimiter want.
func expectDelim(dec kjson.Decoder, want rune) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if delim(tok) != want {
		return fmt.Errorf("want %q in the JSON list, got %v", want, tok)
	}
	return nil
}

// delim returns the delimiter a token is ('{', '[', ...), or 0. The
// decoder's Delim type is internal to sigs.k8s.io/json; it is a rune.
func delim(tok any) rune {
	if v := reflect.ValueOf(tok); v.Kind() == reflect.Int32 {
		return rune(v.Int())
	}
	return 0
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
