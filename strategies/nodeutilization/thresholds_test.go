package nodeutilization

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

func errStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestDefaultThresholds(t *testing.T) {
	gpu := v1.ResourceName("nvidia.com/gpu")
	tests := []struct {
		name            string
		low, high       Thresholds
		deviation       bool
		wantLow, wantHi Thresholds
	}{{
		name: "unnamed cpu memory pods default to 100 in both maps",
		low:  Thresholds{v1.ResourceCPU: 20}, high: Thresholds{v1.ResourceCPU: 50},
		wantLow: Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100},
		wantHi:  Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}, {
		name: "extended resources are never added",
		low:  Thresholds{gpu: 20}, high: Thresholds{gpu: 50},
		wantLow: Thresholds{gpu: 20, v1.ResourceCPU: 100, v1.ResourceMemory: 100, v1.ResourcePods: 100},
		wantHi:  Thresholds{gpu: 50, v1.ResourceCPU: 100, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}, {
		name: "a resource named in one map only is not filled, so validation still sees the mismatch",
		low:  Thresholds{v1.ResourceCPU: 20}, high: Thresholds{v1.ResourceMemory: 50},
		wantLow: Thresholds{v1.ResourceCPU: 20, v1.ResourcePods: 100},
		wantHi:  Thresholds{v1.ResourceMemory: 50, v1.ResourcePods: 100},
	}, {
		name: "deviation: nothing filled",
		low:  Thresholds{v1.ResourceCPU: 10}, high: Thresholds{v1.ResourceCPU: 10}, deviation: true,
		wantLow: Thresholds{v1.ResourceCPU: 10}, wantHi: Thresholds{v1.ResourceCPU: 10},
	}, {
		name: "empty thresholds stay empty for validation",
		low:  Thresholds{}, high: Thresholds{v1.ResourceCPU: 50},
		wantLow: Thresholds{}, wantHi: Thresholds{v1.ResourceCPU: 50},
	}, {
		name:    "high nil (HighNodeUtilization)",
		low:     Thresholds{v1.ResourceCPU: 20},
		wantLow: Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			DefaultThresholds(tt.low, tt.high, tt.deviation)
			if !reflect.DeepEqual(tt.low, tt.wantLow) || !reflect.DeepEqual(tt.high, tt.wantHi) {
				t.Errorf("got %v / %v, want %v / %v", tt.low, tt.high, tt.wantLow, tt.wantHi)
			}
		})
	}
}

func TestValidateThresholdPair(t *testing.T) {
	p := field.NewPath("args")
	tests := []struct {
		name      string
		low, high Thresholds
		deviation bool
		want      []string
	}{{
		name: "valid", low: Thresholds{v1.ResourceCPU: 20, "nvidia.com/gpu": 0},
		high: Thresholds{v1.ResourceCPU: 50, "nvidia.com/gpu": 100},
	}, {
		name: "both missing",
		want: []string{
			"args.thresholds: Required value: at least one resource threshold is required",
			"args.targetThresholds: Required value: at least one resource threshold is required",
		},
	}, {
		name: "out of range on both sides", low: Thresholds{v1.ResourceCPU: -1}, high: Thresholds{v1.ResourceCPU: 120},
		want: []string{
			"args.thresholds[cpu]: Invalid value: -1: must be between 0 and 100",
			"args.targetThresholds[cpu]: Invalid value: 120: must be between 0 and 100",
		},
	}, {
		name: "unsupported names: native ephemeral-storage, hugepages, kubernetes.io domain, bad syntax",
		low:  Thresholds{"ephemeral-storage": 10, "hugepages-2Mi": 10, "kubernetes.io/foo": 10, "x/y/z": 10},
		high: Thresholds{"ephemeral-storage": 20, "hugepages-2Mi": 20, "kubernetes.io/foo": 20, "x/y/z": 20},
		want: []string{
			`args.thresholds[ephemeral-storage]: Invalid value: "ephemeral-storage": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.thresholds[hugepages-2Mi]: Invalid value: "hugepages-2Mi": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.thresholds[kubernetes.io/foo]: Invalid value: "kubernetes.io/foo": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.thresholds[x/y/z]: Invalid value: "x/y/z": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.targetThresholds[ephemeral-storage]: Invalid value: "ephemeral-storage": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.targetThresholds[hugepages-2Mi]: Invalid value: "hugepages-2Mi": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.targetThresholds[kubernetes.io/foo]: Invalid value: "kubernetes.io/foo": must be cpu, memory, pods or an extended resource name (domain/name)`,
			`args.targetThresholds[x/y/z]: Invalid value: "x/y/z": must be cpu, memory, pods or an extended resource name (domain/name)`,
		},
	}, {
		name: "different resource sets, reported on each side",
		low:  Thresholds{v1.ResourceCPU: 20}, high: Thresholds{v1.ResourceMemory: 50},
		want: []string{
			"args.targetThresholds[cpu]: Required value: thresholds and targetThresholds must name the same resources",
			"args.thresholds[memory]: Required value: thresholds and targetThresholds must name the same resources",
		},
	}, {
		name: "thresholds above targetThresholds",
		low:  Thresholds{v1.ResourceCPU: 60, v1.ResourceMemory: 20}, high: Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 20},
		want: []string{"args.thresholds[cpu]: Invalid value: 60: must not be greater than targetThresholds[cpu] (50) unless useDeviationThresholds is set"},
	}, {
		name: "thresholds above targetThresholds is fine with deviation",
		low:  Thresholds{v1.ResourceCPU: 60}, high: Thresholds{v1.ResourceCPU: 50}, deviation: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errStrings(ValidateThresholdPair(tt.low, tt.high, tt.deviation, p))
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateCommon(t *testing.T) {
	neg := -1
	zero := 0
	p := field.NewPath("args")
	tests := []struct {
		name   string
		nodes  int
		limits *EvictionLimits
		ns     *api.Namespaces
		want   []string
	}{
		{name: "valid", limits: &EvictionLimits{Node: &zero}, ns: &api.Namespaces{Exclude: []string{"kube-system"}}},
		{name: "nil everything"},
		{name: "all wrong", nodes: -2, limits: &EvictionLimits{Node: &neg}, ns: &api.Namespaces{Include: []string{"a"}},
			want: []string{
				"args.numberOfNodes: Invalid value: -2: must be greater than or equal to 0",
				"args.evictionLimits.node: Invalid value: -1: must be greater than or equal to 0",
				"args.evictableNamespaces.include: Forbidden: only exclude is supported",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errStrings(ValidateCommon(tt.nodes, tt.limits, tt.ns, p))
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestResourceNames(t *testing.T) {
	got := ResourceNames(Thresholds{"z.io/b": 1, v1.ResourceMemory: 2, "a.io/a": 3})
	want := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods, "a.io/a", "z.io/b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ResourceNames = %v, want %v", got, want)
	}
}
