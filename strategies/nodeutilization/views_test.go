package nodeutilization

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// withUsage pairs u with a usage view using milliCPU millicores.
func withUsage(u *NodeUtil, milliCPU int64) *NodeUtil {
	use := *u
	use.Used = u.Used.Clone()
	use.Used.MilliCPU = milliCPU
	u.Usage = &use
	return u
}

// withMetric pairs u with a usage view at bp basis points of MetricResource
// (cpu stays the request count).
func withMetric(u *NodeUtil, bp int64) *NodeUtil {
	use := *u
	use.Used = u.Used.Clone()
	use.Used.Set(MetricResource, bp)
	use.Capacity = u.Capacity.Clone()
	use.Capacity.Set(MetricResource, MetricResourceCapacity)
	u.Usage = &use
	return u
}

func TestCompact(t *testing.T) {
	tests := []struct {
		name      string
		mode      ClassificationMode
		metric    bool // the usage view measures MetricResource instead of cpu and memory
		nodes     []*NodeUtil
		wantSrc   []string
		wantDests []string
	}{{
		// Requests, cpu of 4000m: n1 400, n2 800, n3 1600. n1 (400) fits
		// into 3200 + 2400 free; n1 + n2 (1200) into n3's 2400; one
		// destination stays.
		name:      "emptiest drained while the rest can hold them",
		mode:      ClassifyRequests,
		nodes:     []*NodeUtil{util("n3", 1600, 0, 4, false), util("n1", 400, 0, 1, false), util("n2", 800, 0, 2, false)},
		wantSrc:   []string{"n1", "n2"},
		wantDests: []string{"n3"},
	}, {
		// Requests 3000m each: n1 (3000) does not fit into n2 + n3's free
		// 1000 + 1000 = 2000: nothing to drain.
		name:      "no room: no source",
		mode:      ClassifyRequests,
		nodes:     []*NodeUtil{util("n1", 3000, 0, 1, false), util("n2", 3000, 0, 1, false), util("n3", 3000, 0, 1, false)},
		wantSrc:   []string{},
		wantDests: []string{"n1", "n2", "n3"},
	}, {
		// Both: requests 400/800/1600 as in the first case, usage 3500m on
		// n3 (free 500m). Both views rank by the higher percentage: n1 (10%)
		// n2 (20%), n3 (87.5%). Usage of n1 (400) fits into n2 + n3's free
		// usage 3200 + 500; n1 + n2 (1200) does not fit into n3's 500.
		name: "usage room counts too",
		mode: ClassifyBoth,
		nodes: []*NodeUtil{withUsage(util("n1", 400, 0, 1, false), 400), withUsage(util("n2", 800, 0, 2, false), 800),
			withUsage(util("n3", 1600, 0, 4, false), 3500)},
		wantSrc:   []string{"n1"},
		wantDests: []string{"n2", "n3"},
	}, {
		// MetricResource (basis points) in the usage view: n1 10%, n2 20%,
		// n3 90% (free 10 points). n1's 1000 fit into n2 + n3's free
		// 8000 + 1000; n1 + n2's 3000 do not fit into n3's 1000.
		name:    "MetricResource room counts too",
		mode:    ClassifyBoth,
		metric:  true,
		nodes:   []*NodeUtil{withMetric(util("n1", 400, 0, 1, false), 1000), withMetric(util("n2", 800, 0, 2, false), 2000), withMetric(util("n3", 1600, 0, 4, false), 9000)},
		wantSrc: []string{"n1"}, wantDests: []string{"n2", "n3"},
	}, {
		// A cordoned node is always a source, never a destination.
		name:      "cordoned first",
		mode:      ClassifyRequests,
		nodes:     []*NodeUtil{util("n1", 100, 0, 1, false), util("n2", 3000, 0, 1, true), util("n3", 200, 0, 1, false)},
		wantSrc:   []string{"n2", "n1"},
		wantDests: []string{"n3"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Views{Mode: tc.mode, Measures: usage.Measures{CPUMemory: !tc.metric, MetricResource: tc.metric}}
			src, dst := Compact(tc.nodes, v, []v1.ResourceName{v1.ResourceCPU})
			if got := names(src); !reflect.DeepEqual(got, tc.wantSrc) {
				t.Errorf("sources %v, want %v", got, tc.wantSrc)
			}
			if got := names(dst); !reflect.DeepEqual(got, tc.wantDests) {
				t.Errorf("destinations %v, want %v", got, tc.wantDests)
			}
		})
	}
}

func TestDefaultClassification(t *testing.T) {
	tests := []struct {
		mode   ClassificationMode
		source api.MetricsSource
		want   ClassificationMode
	}{
		{"", api.SourceRequests, ClassifyRequests},
		{"", "", ClassifyRequests},
		{"", api.SourceKubernetesMetrics, ClassifyBoth},
		{"", api.SourcePrometheus, ClassifyBoth},
		{ClassifyUsage, api.SourcePrometheus, ClassifyUsage},
	}
	for _, tc := range tests {
		if got := DefaultClassification(tc.mode, tc.source); got != tc.want {
			t.Errorf("DefaultClassification(%q, %q) = %q, want %q", tc.mode, tc.source, got, tc.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute: "10m", 90 * time.Minute: "1h30m", time.Hour: "1h", 45 * time.Second: "45s",
		5*time.Minute + 30*time.Second: "5m30s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// fitsFree: 4000m node with 3500m requested has 500m free.
func TestFitsFree(t *testing.T) {
	d := util("n1", 3500, 0, 1, false)
	if !fitsFree(resources.List{MilliCPU: 500, Pods: 1}, d) {
		t.Error("500m does not fit into 500m free")
	}
	if fitsFree(resources.List{MilliCPU: 501, Pods: 1}, d) {
		t.Error("501m fits into 500m free")
	}
	if fitsFree(resources.List{Scalar: map[v1.ResourceName]int64{"nvidia.com/gpu": 1}}, d) {
		t.Error("a gpu fits on a node without gpus")
	}
}
