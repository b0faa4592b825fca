package metrics_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Judged evictions count by outcome; the ratio histogram gets measured ÷
// planned only when both are known: 1200m / 1000m = 1.2, 500m / 1000m =
// 0.5.
func TestEvictionOutcomes(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	m.FollowsProfiles([]descheduler.Profile{{Name: "prof",
		Balance: []framework.Strategy{followerStub{}, &hotStrategy{}}}})
	judged := func(o string, measured *int64) snapshot.Eviction {
		return snapshot.Eviction{Strategy: "LowNodeUtilization", MilliCPU: 1000,
			FollowUp: &snapshot.FollowUp{Profile: "prof", Outcome: o, MeasuredMilliCPU: measured}}
	}
	v1200, v500 := int64(1200), int64(500)
	ctx := context.Background()
	m.EvictionJudged(ctx, judged(outcome.Relieved, &v1200))
	m.EvictionJudged(ctx, judged(outcome.DestinationHot, &v500))
	m.EvictionJudged(ctx, judged(outcome.Unknown, nil))
	m.EvictionJudged(ctx, snapshot.Eviction{Strategy: "LowNodeUtilization"}) // not followed: ignored
	fams := scrape(t, reg)
	labels := func(o string) map[string]string {
		return map[string]string{"outcome": o, "strategy": "LowNodeUtilization", "profile": "prof"}
	}
	for o, want := range map[string]float64{outcome.Relieved: 1, outcome.DestinationHot: 1, outcome.Unknown: 1,
		outcome.NotRelieved: 0, outcome.ReplacementPending: 0, outcome.PartlyRelieved: 0} {
		if got := value(t, fams, "descheduler_eviction_outcomes_total", labels(o)); got != want {
			t.Errorf("%s = %v, want %v", o, got, want)
		}
	}
	for _, s := range strategiesOf(fams, "descheduler_eviction_outcomes_total") {
		if s != "LowNodeUtilization" {
			t.Errorf("outcome series of %s, want only the following strategy's", s)
		}
	}
	h := fams["descheduler_eviction_relief_ratio"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 1.7 {
		t.Errorf("ratio histogram count %d sum %v, want 2 and 1.7", h.GetSampleCount(), h.GetSampleSum())
	}
}

// followerStub is a LowNodeUtilization that follows its evictions.
type followerStub struct{}

func (followerStub) Name() string { return "LowNodeUtilization" }

func (followerStub) Plan(context.Context, *snapshot.Snapshot, framework.Evictor) ([]framework.Candidate, error) {
	return nil, nil
}

func (followerStub) FollowUsage(*snapshot.Snapshot) (framework.UsageFollow, bool) {
	return framework.UsageFollow{}, false
}

// strategiesOf returns the strategy label of every series of the family name.
func strategiesOf(fams map[string]*dto.MetricFamily, name string) []string {
	var out []string
	for _, m := range fams[name].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "strategy" {
				out = append(out, lp.GetValue())
			}
		}
	}
	return out
}
