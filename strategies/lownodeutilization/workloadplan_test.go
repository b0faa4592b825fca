package lownodeutilization

import (
	"context"
	"fmt"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/api"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// The plan counts its candidates against the workload budgets the
// evictor offers (framework.WorkloadPlan), classification Usage on
// qualitySnapshot: n1 uses 4000m and must shed 800m to reach its target
// 3200m (80%); the destinations n2 and n3 have 2200m of room each.
func TestPlanCountsWorkloadBudgets(t *testing.T) {
	cool := map[string]int64{"n2": 1000, "n3": 1000}
	for _, tc := range []struct {
		name    string
		pods    []qPod
		budgets map[string]int // workload "w" holds the pods named w*
		want    string         // candidates; "!" marks ExpectRefusal
	}{{
		// No pod alone relieves 800m (hi: 700m); two do, and the
		// no-priority band has two: w1 (500m, 3500m), lo1 (300m, 3200m).
		name: "no budget: two pods of the lowest band, largest first",
		pods: []qPod{{"lo1", 0, 300}, {"lo2", 0, 300}, {"w1", 0, 500}, {"hi", 100, 700}},
		want: "[ns/w1 ns/lo1]",
	}, {
		// w1 may not go: the no-priority band counts 600m < 800m without
		// it, so it is merged with the next band: hi (700m, 3300m), then
		// w1 is proposed for the refusal to be reported, then lo1 (300m,
		// 3000m).
		name:    "a refused pod does not count towards the band that relieves the node",
		pods:    []qPod{{"lo1", 0, 300}, {"lo2", 0, 300}, {"w1", 0, 500}, {"hi", 100, 700}},
		budgets: map[string]int{"w": 0},
		want:    "[ns/hi !ns/w1 ns/lo1]",
	}, {
		// w1 (900m) alone would relieve n1 but may not go now, and the
		// others (300 + 200 = 500m) cannot: n1 waits for w's budget. The
		// plan proposes w1 for the refusal to be reported and spends no
		// eviction on a and b, which would leave n1 hot.
		name:    "a refused pod that alone clears the node: nothing else goes",
		pods:    []qPod{{"a", 0, 300}, {"b", 0, 200}, {"w1", 0, 900}},
		budgets: map[string]int{"w": 0},
		want:    "[!ns/w1]",
	}, {
		// One pod of w may go: w1 (600m, 3400m), then w2 would be the
		// second of w, so it is proposed for the refusal to be reported
		// and the plan goes on: a (300m) brings n1 to 3100m.
		name:    "the plan's own candidate uses the budget",
		pods:    []qPod{{"a", 0, 300}, {"w1", 0, 600}, {"w2", 0, 500}},
		budgets: map[string]int{"w": 1},
		want:    "[ns/w1 !ns/w2 ns/a]",
	}, {
		name: "the same without budgets: both of w",
		pods: []qPod{{"a", 0, 300}, {"w1", 0, 600}, {"w2", 0, 500}},
		want: "[ns/w1 ns/w2]",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &nodeutiltest.Evictor{Budgets: tc.budgets, Workloads: map[string]string{}}
			for _, p := range tc.pods {
				if p.name[0] == 'w' {
					ev.Workloads["ns/"+p.name] = "w"
				}
			}
			s := mustNew(t, usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage))
			cands, err := s.Plan(context.Background(), qualitySnapshot(t, 4000, cool, tc.pods), ev)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cands {
				name := c.Pod.Namespace + "/" + c.Pod.Name
				if c.ExpectRefusal {
					name = "!" + name
				}
				got = append(got, name)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("candidates %v, want %s", got, tc.want)
			}
		})
	}
}
