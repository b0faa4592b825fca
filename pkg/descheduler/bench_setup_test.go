package descheduler

import (
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
)

// benchPolicy enables all ten strategies, Low/HighNodeUtilization by
// usage (the example's comment says why).
const benchPolicy = "../../deploy/examples/all-strategies-usage.yaml"

// loadBenchPolicy loads benchPolicy with the strategies' registry.
func loadBenchPolicy(tb testing.TB) (*api.DeschedulerPolicy, *framework.Registry) {
	tb.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		tb.Fatal(err)
	}
	policy, err := api.LoadFile(benchPolicy, reg)
	if err != nil {
		tb.Fatal(err)
	}
	return policy, reg
}

// buildBenchProfiles builds fresh profiles of policy.
func buildBenchProfiles(tb testing.TB, policy *api.DeschedulerPolicy, reg *framework.Registry) []Profile {
	tb.Helper()
	profiles, err := BuildProfiles(policy, reg)
	if err != nil {
		tb.Fatal(err)
	}
	return profiles
}

// generate returns the generated cluster of p (defaults applied).
func generate(tb testing.TB, p scenario.Params) (snapshot.Objects, scenario.Params) {
	tb.Helper()
	p.Default()
	objs, err := scenario.Generate(p)
	if err != nil {
		tb.Fatal(err)
	}
	return objs, p
}
