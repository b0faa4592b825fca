package snapshot

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"
)

// The compact usage-series kinds: one object holds a regular run of samples
// of one node or pod (see the package documentation).
const (
	usageGroup   = "descheduler.usage.io"
	usageVersion = "v1alpha1"
	// UsageAPIVersion is the apiVersion of NodeUsageSeries and PodUsageSeries.
	UsageAPIVersion = usageGroup + "/" + usageVersion
	// NodeUsageSeriesKind is the kind of a node's usage series (cluster-scoped).
	NodeUsageSeriesKind = "NodeUsageSeries"
	// PodUsageSeriesKind is the kind of a pod's usage series (namespaced).
	PodUsageSeriesKind = "PodUsageSeries"
	// MaxSeriesSamples is the most values one series object may hold per
	// quantity (100,000 samples: 11 days at a 10-second poll).
	MaxSeriesSamples = 100000
)

// lastWritableYear is the last year RFC 3339 can write (four digits).
const lastWritableYear = 9999

// usageSeries is a NodeUsageSeries or PodUsageSeries object: sample i is at
// Start + i×Interval; a null value (stored as a negative number or NaN)
// means no sample at that time.
type usageSeries struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	// Start is the RFC 3339 time of the first sample.
	Start *string `json:"start"`
	// Interval is the Go duration between samples (> 0).
	Interval *string `json:"interval"`
	// CPU is usage in millicores, Memory in bytes; both or neither.
	CPU    *countList `json:"cpu"`
	Memory *countList `json:"memory"`
	// MetricResource are MetricResource percentages (NodeUsageSeries only).
	MetricResource *percentList `json:"metricResource"`
}

// decodeSeries decodes a usage-series object strictly. Unlike the core
// kinds, whose unknown fields are ignored because newer API servers add
// fields this build does not know, these kinds are only written by this
// tool and by people: an unknown field is a typo (`memroy:`) that would
// otherwise drop data silently, so it is an error, as is a duplicate field.
func decodeSeries(raw []byte) (*usageSeries, error) {
	s := &usageSeries{}
	strict, err := kjson.UnmarshalStrict(raw, s, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	return s, nil
}

// seriesTimes are a validated series' first time and spacing.
type seriesTimes struct {
	start    time.Time
	interval time.Duration
}

func (t seriesTimes) at(i int) time.Time { return t.start.Add(time.Duration(i) * t.interval) }

// validate checks s and returns its times.
func (s *usageSeries) validate() (seriesTimes, error) {
	var zero seriesTimes
	if s.Metadata.Name == "" {
		return zero, errors.New("metadata.name is required")
	}
	node := s.Kind == NodeUsageSeriesKind
	if node && s.Metadata.Namespace != "" {
		return zero, fmt.Errorf("metadata.namespace: a %s is not namespaced", s.Kind)
	}
	if !node && s.MetricResource != nil {
		return zero, fmt.Errorf("metricResource: only a %s has metricResource", NodeUsageSeriesKind)
	}
	n, err := s.length()
	if err != nil {
		return zero, err
	}
	times, err := s.times()
	if err != nil {
		return zero, err
	}
	if n > 1 && times.interval > time.Duration(math.MaxInt64)/time.Duration(n-1) ||
		n > 0 && times.at(n-1).Year() > lastWritableYear {
		return zero, fmt.Errorf("start + %d × interval is after the year %d", n-1, lastWritableYear)
	}
	return times, nil
}

// length checks the value lists and returns their common length.
func (s *usageSeries) length() (int, error) {
	for _, l := range []struct {
		name string
		err  *elementError
	}{{"cpu", s.CPU.error()}, {"memory", s.Memory.error()}, {"metricResource", s.MetricResource.error()}} {
		if l.err != nil {
			return 0, l.err.in(l.name)
		}
	}
	switch {
	case (s.CPU == nil) != (s.Memory == nil):
		return 0, errors.New("cpu and memory must be given together")
	case s.CPU == nil && s.MetricResource == nil && s.Kind == NodeUsageSeriesKind:
		return 0, errors.New("cpu and memory, or metricResource, are required")
	case s.CPU == nil && s.MetricResource == nil:
		return 0, errors.New("cpu and memory are required")
	case s.CPU != nil && len(s.CPU.values) != len(s.Memory.values):
		return 0, fmt.Errorf("cpu has %d values but memory has %d", len(s.CPU.values), len(s.Memory.values))
	case s.CPU != nil && s.MetricResource != nil && len(s.MetricResource.values) != len(s.CPU.values):
		return 0, fmt.Errorf("metricResource has %d values but cpu has %d", len(s.MetricResource.values), len(s.CPU.values))
	case s.CPU != nil:
		return len(s.CPU.values), nil
	}
	return len(s.MetricResource.values), nil
}

func (s *usageSeries) times() (seriesTimes, error) {
	var t seriesTimes
	switch {
	case s.Start == nil:
		return t, errors.New("start is required")
	case s.Interval == nil:
		return t, errors.New("interval is required")
	}
	start, err := time.Parse(time.RFC3339, *s.Start)
	if err != nil {
		return t, fmt.Errorf("start: %w", err)
	}
	if start.IsZero() {
		return t, fmt.Errorf("start %s is the zero time", *s.Start)
	}
	interval, err := time.ParseDuration(*s.Interval)
	if err != nil {
		return t, fmt.Errorf("interval: %w", err)
	}
	if interval <= 0 {
		return t, fmt.Errorf("interval must be positive, not %s", *s.Interval)
	}
	return seriesTimes{start: start.UTC(), interval: interval}, nil
}

// addSeries validates a decoded series and adds its samples: times where
// cpu or memory is null are skipped, and a time already present for the
// same node or pod (and quantity) keeps the earlier sample.
func (l *loader) addSeries(s *usageSeries) error {
	times, err := s.validate()
	if err != nil {
		return err
	}
	st := l.st
	if s.CPU != nil {
		samples := l.samples[:0]
		for i, cpu := range s.CPU.values {
			if mem := s.Memory.values[i]; cpu >= 0 && mem >= 0 {
				samples = append(samples, Sample{Time: times.at(i), MilliCPU: cpu, Memory: mem})
			}
		}
		l.samples = samples
		if s.Kind == NodeUsageSeriesKind {
			addRun(st.objs.NodeMetrics, st.nodeDups, s.Metadata.Name, samples, sampleTime)
		} else {
			key := types.NamespacedName{Namespace: s.Metadata.Namespace, Name: s.Metadata.Name}
			addRun(st.objs.PodMetrics, st.podDups, key, samples, sampleTime)
		}
	}
	if s.MetricResource != nil {
		points := l.points[:0]
		for i, v := range s.MetricResource.values {
			if !math.IsNaN(v) {
				points = append(points, Point{Time: times.at(i), Value: v})
			}
		}
		l.points = points
		addRun(st.objs.NodeMetricResource, st.metricDups, s.Metadata.Name, points, pointTime)
	}
	return nil
}

// elementError is a bad value in a list: its index and what is wrong.
type elementError struct {
	index int // -1: the list itself
	msg   string
}

func (e *elementError) in(field string) error {
	if e.index < 0 {
		return fmt.Errorf("%s: %s", field, e.msg)
	}
	return fmt.Errorf("%s[%d]: %s", field, e.index, e.msg)
}

// countList is a JSON list of non-negative integers (millicores, bytes) and
// nulls; a null is stored as -1. A bad element is recorded, not returned by
// UnmarshalJSON, so that the error can name the field (decoders do not add
// it to errors of custom unmarshalers).
type countList struct {
	values []int64
	err    *elementError
}

func (c *countList) error() *elementError {
	if c == nil {
		return nil
	}
	return c.err
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *countList) UnmarshalJSON(data []byte) error {
	c.values, c.err = c.values[:0], nil
	c.err = scanList(data, func(i int, elem []byte) *elementError {
		v, ok, msg := parseCount(elem)
		if msg != "" {
			return &elementError{index: i, msg: msg}
		}
		if !ok {
			v = -1
		}
		c.values = append(c.values, v)
		return nil
	})
	return nil
}

// percentList is a JSON list of numbers in [0, 100] and nulls; a null is
// stored as NaN. Bad elements are recorded like countList's.
type percentList struct {
	values []float64
	err    *elementError
}

func (p *percentList) error() *elementError {
	if p == nil {
		return nil
	}
	return p.err
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *percentList) UnmarshalJSON(data []byte) error {
	p.values, p.err = p.values[:0], nil
	p.err = scanList(data, func(i int, elem []byte) *elementError {
		v, ok, msg := parsePercent(elem)
		if msg != "" {
			return &elementError{index: i, msg: msg}
		}
		if !ok {
			v = math.NaN()
		}
		p.values = append(p.values, v)
		return nil
	})
	return nil
}

// describeElement names a non-number JSON value for an error message.
func describeElement(elem []byte) string {
	switch elem[0] {
	case '"':
		return "a string is not a number"
	case '[':
		return "a list is not a number"
	case '{':
		return "an object is not a number"
	}
	return fmt.Sprintf("%s is not a number", strings.TrimSpace(string(elem)))
}
