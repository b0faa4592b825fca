package resources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

func reqs(cpu, mem string) v1.ResourceRequirements {
	rl := v1.ResourceList{}
	if cpu != "" {
		rl[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		rl[v1.ResourceMemory] = resource.MustParse(mem)
	}
	return v1.ResourceRequirements{Requests: rl}
}

func TestPodRequests(t *testing.T) {
	gpu := v1.ResourceName("nvidia.com/gpu")
	withGPU := reqs("250m", "")
	withGPU.Requests[gpu] = resource.MustParse("2")
	cases := []struct {
		name string
		spec v1.PodSpec
		want List
	}{{
		// 500m + 250m = 750m; 1Gi + 0 = 1073741824 bytes; 2 GPUs.
		name: "containers are summed (fast path)",
		spec: v1.PodSpec{Containers: []v1.Container{{Resources: reqs("500m", "1Gi")}, {Resources: withGPU}}},
		want: List{MilliCPU: 750, Memory: 1 << 30, Pods: 1, Scalar: map[v1.ResourceName]int64{gpu: 2}},
	}, {
		// Init containers run first: max(init 2000m, sum of containers 500m) = 2000m.
		name: "init container larger than the containers (library path)",
		spec: v1.PodSpec{InitContainers: []v1.Container{{Resources: reqs("2", "")}},
			Containers: []v1.Container{{Resources: reqs("500m", "1Gi")}}},
		want: List{MilliCPU: 2000, Memory: 1 << 30, Pods: 1},
	}, {
		// Overhead is added: 500m + 100m.
		name: "overhead (library path)",
		spec: v1.PodSpec{Overhead: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")},
			Containers: []v1.Container{{Resources: reqs("500m", "")}}},
		want: List{MilliCPU: 600, Pods: 1},
	}, {
		name: "no requests",
		spec: v1.PodSpec{Containers: []v1.Container{{}}},
		want: List{Pods: 1},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: tc.spec}
			got := PodRequests(pod)
			if got.MilliCPU != tc.want.MilliCPU || got.Memory != tc.want.Memory || got.Pods != tc.want.Pods ||
				len(got.Scalar) != len(tc.want.Scalar) || got.Scalar[gpu] != tc.want.Scalar[gpu] {
				t.Errorf("PodRequests = %+v, want %+v", got, tc.want)
			}
			// The fast path must agree with the library wherever it applies.
			lib := FromResourceList(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
			if lib.MilliCPU != got.MilliCPU || lib.Memory != got.Memory || lib.Scalar[gpu] != got.Scalar[gpu] {
				t.Errorf("library says %+v, PodRequests %+v", lib, got)
			}
		})
	}
}

func TestPercentAndFits(t *testing.T) {
	if got := Percent(3000, 4000); got != 75 {
		t.Errorf("Percent(3000, 4000) = %v, want 75", got)
	}
	if Percent(0, 0) != 0 || Percent(1, 0) != 100 {
		t.Error("a resource the node does not have is 0% when unused and 100% when used")
	}
	free := List{MilliCPU: 1000, Memory: 1 << 30, Pods: 10}
	if !Fits(List{MilliCPU: 1000, Pods: 1}, free) || Fits(List{MilliCPU: 1001}, free) {
		t.Error("Fits must compare each requested resource with what is free")
	}
	if Fits(List{Scalar: map[v1.ResourceName]int64{"nvidia.com/gpu": 1}}, free) {
		t.Error("an extended resource the node lacks does not fit")
	}
}
