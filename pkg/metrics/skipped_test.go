package metrics_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	testclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// The fixture's pods a, b, c on hot n1 belong to ReplicaSet rs; with a
// 5-replica Deployment "app" owning rs (default 25%: floor(1.25) = 1),
// a dry-run cycle evicts one and skips two (workload_budget); with a
// 1-replica Deployment all three are singletons. Series of the reasons
// that never happened exist at 0.
func TestEvictionsSkipped(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		want     map[string]float64
	}{
		{name: "budget", replicas: 5, want: map[string]float64{"workload_budget": 2, "singleton": 0}},
		{name: "singleton", replicas: 1, want: map[string]float64{"workload_budget": 0, "singleton": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := metrics.NewRegistry()
			m, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"})
			if err != nil {
				t.Fatal(err)
			}
			objs := objects(fixture(t))
			d := builders.MakeDeployment("ns", "app", tt.replicas)
			objs.Deployments = []*appsv1.Deployment{d.Obj()}
			objs.ReplicaSets = []*appsv1.ReplicaSet{d.ReplicaSetFor("rs")}
			clk := testclock.NewFakeClock(now)
			args := &evictor.DefaultEvictorArgs{}
			args.Default()
			cycle := &descheduler.Cycle{
				Profiles: []descheduler.Profile{{Name: "p1", EvictorArgs: args,
					Balance: []framework.Strategy{&hotStrategy{clock: clk, planTime: time.Second}}}},
				Executor: evictor.DryRunExecutor{}, Observer: m, Clock: clk,
			}
			r := &descheduler.Runner{Source: fixedSource{objs}, Cycle: cycle, Clock: clk}
			if _, err := r.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			fams := scrape(t, reg)
			for reason, want := range tt.want {
				labels := map[string]string{"reason": reason, "strategy": "HotNodes", "profile": "p1"}
				if got := value(t, fams, "descheduler_evictions_skipped_total", labels); got != want {
					t.Errorf("skipped %v = %v, want %v", labels, got, want)
				}
			}
		})
	}
}
