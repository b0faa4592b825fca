package nodeutilization

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// util builds a view of a 4-CPU, 8Gi, 110-pod node with the given used
// millicores, memory (MiB) and pod count.
func util(name string, milliCPU, memMi, pods int64, cordoned bool) *NodeUtil {
	nb := builders.MakeNode(name)
	if cordoned {
		nb = nb.Unschedulable()
	}
	n := nb.Obj()
	return &NodeUtil{
		Info:     &snapshot.NodeInfo{Node: n, Allocatable: resources.FromResourceList(n.Status.Allocatable)},
		Used:     resources.List{MilliCPU: milliCPU, Memory: memMi << 20, Pods: pods},
		Capacity: resources.FromResourceList(n.Status.Allocatable),
	}
}

func names(nodes []*NodeUtil) []string {
	out := []string{}
	for _, u := range nodes {
		out = append(out, u.Name())
	}
	return out
}

func TestPercentages(t *testing.T) {
	u := util("n1", 3000, 2048, 11, false)
	got := Percentages(u.Used, u.Capacity, ResourceNames(nil))
	// cpu 3000m of 4000m = 75%; memory 2Gi of 8Gi = 25%; pods 11 of 110 = 10%.
	want := Thresholds{v1.ResourceCPU: 75, v1.ResourceMemory: 25, v1.ResourcePods: 10}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Percentages = %v, want %v", got, want)
	}
}

func TestDeviationBand(t *testing.T) {
	// cpu: 10%, 50%, 90% -> mean 50. memory: 0%, 0%, 30% (2457.6Mi ~ 2458Mi) -> mean ~10.
	nodes := []*NodeUtil{util("n1", 400, 0, 1, false), util("n2", 2000, 0, 1, false), util("n3", 3600, 2458, 1, false)}
	tests := []struct {
		name      string
		low, high Thresholds
		wantLow   Thresholds
		wantHigh  Thresholds
	}{{
		name: "cpu band 40..60, unnamed memory and pods stay at 100",
		low:  Thresholds{v1.ResourceCPU: 10}, high: Thresholds{v1.ResourceCPU: 10},
		wantLow:  Thresholds{v1.ResourceCPU: 40, v1.ResourceMemory: 100, v1.ResourcePods: 100},
		wantHigh: Thresholds{v1.ResourceCPU: 60, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}, {
		name: "clamped: cpu 50-70 < 0 -> 0, 50+60 > 100 -> 100",
		low:  Thresholds{v1.ResourceCPU: 70}, high: Thresholds{v1.ResourceCPU: 60},
		wantLow:  Thresholds{v1.ResourceCPU: 0, v1.ResourceMemory: 100, v1.ResourcePods: 100},
		wantHigh: Thresholds{v1.ResourceCPU: 100, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := DeviationBand(nodes, tt.low, tt.high)
			if !reflect.DeepEqual(b.Low, tt.wantLow) || !reflect.DeepEqual(b.High, tt.wantHigh) {
				t.Errorf("band = %v / %v, want %v / %v", b.Low, b.High, tt.wantLow, tt.wantHigh)
			}
		})
	}
	t.Run("memory mean", func(t *testing.T) {
		b := DeviationBand(nodes, Thresholds{v1.ResourceMemory: 5}, Thresholds{v1.ResourceMemory: 5})
		// mean = (0 + 0 + 2458/8192*100) / 3 = 30.0048.../3 = 10.0016; low = 5.0016, high = 15.0016.
		if got := b.Low[v1.ResourceMemory]; got < 5.001 || got > 5.002 {
			t.Errorf("memory low = %v, want ~5.0016", got)
		}
		if got := b.High[v1.ResourceMemory]; got < 15.001 || got > 15.002 {
			t.Errorf("memory high = %v, want ~15.0016", got)
		}
	})
	t.Run("no nodes", func(t *testing.T) {
		b := DeviationBand(nil, Thresholds{v1.ResourceCPU: 10}, Thresholds{v1.ResourceCPU: 10})
		if b.Low[v1.ResourceCPU] != 0 || b.High[v1.ResourceCPU] != 10 {
			t.Errorf("band = %v / %v, want cpu 0 / 10", b.Low, b.High)
		}
	})
}

func TestClassifyLow(t *testing.T) {
	band := StaticBand(Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 20}, Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 50})
	nodes := []*NodeUtil{
		util("under", 800, 1638, 1, false),        // cpu 20% <= 20, memory 1638Mi/8192Mi = 19.996% <= 20: under
		util("edge-target", 2000, 4096, 1, false), // cpu 50%, memory 50%: not above target: appropriate
		util("over-mem", 400, 4100, 1, false),     // memory 50.05% > 50: over (one resource suffices)
		util("cordoned-idle", 0, 0, 0, true),      // would be under, but cordoned: appropriate
		util("cordoned-hot", 3600, 0, 1, true),    // cpu 90% > 50: over even though cordoned
		util("just-above", 801, 0, 1, false),      // cpu 20.025% > 20: appropriate
	}
	c := ClassifyLow(nodes, band)
	if got, want := names(c.Under), []string{"under"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Under = %v, want %v", got, want)
	}
	if got, want := names(c.Over), []string{"over-mem", "cordoned-hot"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Over = %v, want %v", got, want)
	}
	if got, want := names(c.Appropriate), []string{"edge-target", "cordoned-idle", "just-above"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Appropriate = %v, want %v", got, want)
	}
	if got := c.Classes()["cordoned-hot"]; got != "overutilized" {
		t.Errorf("Classes()[cordoned-hot] = %q", got)
	}
}

func TestClassifyHigh(t *testing.T) {
	band := StaticBand(Thresholds{v1.ResourceCPU: 20}, nil) // memory, pods 100
	nodes := []*NodeUtil{
		util("idle", 800, 8192, 1, false),       // cpu 20% <= 20, memory 100% <= 100: under
		util("busy", 2000, 0, 1, false),         // cpu 50% > 20, schedulable: destination (Over)
		util("cordoned-idle", 0, 0, 0, true),    // under: a source even though cordoned
		util("cordoned-busy", 2000, 0, 1, true), // above, cordoned: neither
		util("full-pods", 0, 0, 111, false),     // pods 111/110 > 100%: not under: destination
	}
	c := ClassifyHigh(nodes, band.Low)
	if got, want := names(c.Under), []string{"idle", "cordoned-idle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Under = %v, want %v", got, want)
	}
	if got, want := names(c.Over), []string{"busy", "full-pods"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Over = %v, want %v", got, want)
	}
	if got, want := names(c.Appropriate), []string{"cordoned-busy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Appropriate = %v, want %v", got, want)
	}
}

func TestSortByUsage(t *testing.T) {
	all := ResourceNames(nil)
	// a: cpu 90%, memory 10% -> max 90. b: cpu 60%, memory 60% -> max 60.
	// Adding raw units (millicores + bytes) would rank b first because of
	// its memory bytes; comparing percentages per resource ranks a first.
	// b, c and d tie at max 60 (cpu 2400m of 4000m) and are ordered by name.
	mk := func() []*NodeUtil {
		return []*NodeUtil{util("d", 2400, 0, 1, false), util("b", 2400, 4915, 1, false),
			util("a", 3600, 819, 1, false), util("c", 2400, 0, 1, false)}
	}
	most := mk()
	SortByUsage(most, all, true)
	if got, want := names(most), []string{"a", "b", "c", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("most used first = %v, want %v", got, want)
	}
	least := mk()
	SortByUsage(least, all, false)
	if got, want := names(least), []string{"b", "c", "d", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("least used first = %v, want %v", got, want)
	}
}

func TestHeadroom(t *testing.T) {
	nodes := []*NodeUtil{util("n1", 400, 1024, 2, false), util("n2", 1000, 0, 10, false)}
	got := Headroom(nodes, Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 25}, ResourceNames(nil))
	// cpu: (2000 - 400) + (2000 - 1000) = 2600m.
	// memory: (2048Mi - 1024Mi) + (2048Mi - 0) = 3072Mi.
	// pods: not in the limit -> 100%: (110 - 2) + (110 - 10) = 208.
	want := resources.List{MilliCPU: 2600, Memory: 3072 << 20, Pods: 208}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Headroom = %+v, want %+v", got, want)
	}
}
