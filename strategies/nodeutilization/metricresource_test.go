package nodeutilization

import (
	"math"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/usage"
)

func TestMetricResourceThresholdSplit(t *testing.T) {
	all := Thresholds{v1.ResourceCPU: 60, v1.ResourceMemory: 100, v1.ResourcePods: 50, MetricResource: 30, "nvidia.com/gpu": 10}
	if got, want := RequestThresholds(all), (Thresholds{v1.ResourceCPU: 60, v1.ResourceMemory: 100, v1.ResourcePods: 50,
		"nvidia.com/gpu": 10}); !reflect.DeepEqual(got, want) {
		t.Errorf("RequestThresholds = %v, want %v", got, want)
	}
	if _, ok := all[MetricResource]; !ok {
		t.Error("RequestThresholds modified its input")
	}
	tests := []struct {
		m    usage.Measures
		want Thresholds
	}{
		// Only the query: cpu and memory are judged by requests alone.
		{usage.Measures{MetricResource: true}, Thresholds{v1.ResourcePods: 50, MetricResource: 30, "nvidia.com/gpu": 10}},
		{usage.Measures{CPUMemory: true}, Thresholds{v1.ResourceCPU: 60, v1.ResourceMemory: 100, v1.ResourcePods: 50,
			"nvidia.com/gpu": 10}},
		{usage.Measures{CPUMemory: true, MetricResource: true}, all},
	}
	for _, tc := range tests {
		if got := UsageThresholds(all, tc.m); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("UsageThresholds(%+v) = %v, want %v", tc.m, got, tc.want)
		}
	}
	if got := MeasuredNames(usage.Measures{CPUMemory: true, MetricResource: true}); !reflect.DeepEqual(got,
		[]v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, MetricResource}) {
		t.Errorf("MeasuredNames = %v", got)
	}
	// MetricResource is no resource of the request view.
	if got := ResourceNames(Thresholds{MetricResource: 30}); !reflect.DeepEqual(got,
		[]v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods}) {
		t.Errorf("ResourceNames = %v, want cpu, memory, pods", got)
	}
	// ValidateThresholds accepts the name (ValidateMetricResource decides
	// whether it may be used) and still checks the value.
	if errs := ValidateThresholds(Thresholds{MetricResource: 101}, field.NewPath("t")); len(errs) != 1 ||
		errs[0].Error() != "t[MetricResource]: Invalid value: 101: must be between 0 and 100" {
		t.Errorf("errors %v, want the range only", errs)
	}
}

// The usage view holds MetricResource in exact basis points: 92.345% is
// 9235 of 10000 (rounded half up), read back as 92.35%.
func TestMetricResourceBasisPoints(t *testing.T) {
	u := util("n1", 1000, 0, 1, false)
	use := usageView(u, usage.NodeUsage{MetricResource: usage.MetricUsage{Percent: 92.345, Known: true}},
		usage.Measures{MetricResource: true})
	if got := use.Used.Get(MetricResource); got != 9235 {
		t.Errorf("used %d basis points, want 9235", got)
	}
	if got := use.Percent(MetricResource); math.Abs(got-92.35) > 1e-9 {
		t.Errorf("percent %v, want 92.35", got)
	}
	// cpu stays the request count (not measured); the shared allocatable
	// is not modified.
	if use.Used.MilliCPU != 1000 || u.Capacity.Get(MetricResource) != 0 || use.Capacity.MilliCPU != 4000 {
		t.Errorf("usage view %+v of %+v, request view capacity %+v", use.Used, use.Capacity, u.Capacity)
	}
}
