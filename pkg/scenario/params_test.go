package scenario_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
)

func TestDefault(t *testing.T) {
	p := scenario.Params{Nodes: 7}
	p.Default()
	want := scenario.Params{Nodes: 7, PodsPerNode: 30, HotFraction: 0.1, Zones: 3,
		Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), UsageWindow: 10 * time.Minute, SampleInterval: time.Minute}
	if p != want {
		t.Errorf("Default() = %+v, want %+v", p, want)
	}
	// Set fields are kept.
	q := scenario.Params{Nodes: 7, PodsPerNode: 5, HotFraction: 0.25, RequestsSkew: 0.5, Zones: 2, Seed: 9,
		Now: want.Now.Add(time.Hour), UsageWindow: time.Minute, SampleInterval: 15 * time.Second}
	before := q
	q.Default()
	if q != before {
		t.Errorf("Default changed set fields: %+v, want %+v", q, before)
	}
	if errs := p.Validate(); len(errs) != 0 {
		t.Errorf("defaulted params invalid: %v", errs)
	}
}

func TestValidate(t *testing.T) {
	valid := func() scenario.Params {
		p := scenario.Params{Nodes: 10}
		p.Default()
		return p
	}
	cases := []struct {
		name   string
		modify func(*scenario.Params)
		// want are the field paths reported, in order.
		want []string
	}{
		{"valid", func(*scenario.Params) {}, nil},
		{"no nodes", func(p *scenario.Params) { p.Nodes = 0 }, []string{"nodes"}},
		{"too many nodes", func(p *scenario.Params) { p.Nodes = scenario.MaxNodes + 1 }, []string{"nodes"}},
		{"no pods", func(p *scenario.Params) { p.PodsPerNode = 0 }, []string{"podsPerNode"}},
		{"pods over 100", func(p *scenario.Params) { p.PodsPerNode = 101 }, []string{"podsPerNode"}},
		{"too many pods", func(p *scenario.Params) { p.Nodes, p.PodsPerNode = 20_001, 50 }, []string{"podsPerNode"}},
		{"negative hot fraction", func(p *scenario.Params) { p.HotFraction = -0.1 }, []string{"hotFraction"}},
		{"hot fraction over 1", func(p *scenario.Params) { p.HotFraction = 1.5 }, []string{"hotFraction"}},
		{"NaN skew", func(p *scenario.Params) { p.RequestsSkew = math.NaN() }, []string{"requestsSkew"}},
		{"skew over 1", func(p *scenario.Params) { p.RequestsSkew = 2 }, []string{"requestsSkew"}},
		{"no zones", func(p *scenario.Params) { p.Zones = 0 }, []string{"zones"}},
		{"more zones than nodes", func(p *scenario.Params) { p.Zones = 11 }, []string{"zones"}},
		{"no now", func(p *scenario.Params) { p.Now = time.Time{} }, []string{"now"}},
		{"fractional now", func(p *scenario.Params) { p.Now = p.Now.Add(time.Millisecond) }, []string{"now"}},
		{"zero interval", func(p *scenario.Params) { p.SampleInterval = 0 }, []string{"sampleInterval"}},
		{"fractional interval", func(p *scenario.Params) { p.SampleInterval = 1500 * time.Millisecond }, []string{"sampleInterval"}},
		{"negative window", func(p *scenario.Params) { p.UsageWindow = -time.Minute }, []string{"usageWindow"}},
		{"window under interval", func(p *scenario.Params) { p.UsageWindow = 30 * time.Second }, []string{"usageWindow"}},
		// 1000 intervals of 1s in 1000s: 1001 samples > 1000.
		{"too many samples", func(p *scenario.Params) { p.UsageWindow, p.SampleInterval = 1000*time.Second, time.Second },
			[]string{"usageWindow"}},
		{"every problem reported", func(p *scenario.Params) {
			p.Nodes, p.PodsPerNode, p.HotFraction, p.RequestsSkew, p.Zones, p.SampleInterval = 0, 0, 2, -1, 0, 0
		}, []string{"nodes", "podsPerNode", "hotFraction", "requestsSkew", "zones", "sampleInterval"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := valid()
			tc.modify(&p)
			errs := p.Validate()
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("Validate() fields = %v, want %v (%v)", got, tc.want, errs)
			}
			if _, err := scenario.Generate(p); (err != nil) != (len(tc.want) > 0) {
				t.Errorf("Generate() error = %v, want an error: %v", err, len(tc.want) > 0)
			}
		})
	}
}
