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
		// Without budgets the no-priority band relieves n1 (500 + 300 +
		// 300 = 1100m >= 800m): w1 (500m, 3500m), lo1 (300m, 3200m).
		name: "no budget: the lowest band, largest first",
		pods: []qPod{{"lo1", 0, 300}, {"lo2", 0, 300}, {"w1", 0, 500}, {"hi", 100, 900}},
		want: "[ns/w1 ns/lo1]",
	}, {
		// w1 may not go: the no-priority band counts 600m < 800m without
		// it, so it is merged with the next band and hi (900m) goes alone:
		// 3100m. w1 is after hi in that order and never reached.
		name:    "a refused pod does not count towards the band that relieves the node",
		pods:    []qPod{{"lo1", 0, 300}, {"lo2", 0, 300}, {"w1", 0, 500}, {"hi", 100, 900}},
		budgets: map[string]int{"w": 0},
		want:    "[ns/hi]",
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
