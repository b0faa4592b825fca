package metrics_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

// nameRecorder is a Registerer that remembers the fully-qualified name of
// every metric registered on it.
type nameRecorder struct{ names map[string]bool }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *nameRecorder) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
	return nil
}

func (r *nameRecorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = r.Register(c)
	}
}

func (r *nameRecorder) Unregister(prometheus.Collector) bool { return false }

// definedNames returns every descheduler_* metric name: this package's and
// the usage collectors' (registered by a Poller).
func definedNames(t *testing.T) map[string]bool {
	t.Helper()
	rec := &nameRecorder{names: map[string]bool{}}
	if _, err := metrics.New(rec, metrics.BuildInfo{Version: "dev"}); err != nil {
		t.Fatal(err)
	}
	poll := func(context.Context, time.Time) (window.Batch, error) { return window.Batch{}, nil }
	if _, err := collectors.NewPoller("x", collectors.Settings{Window: 10 * time.Minute, PollInterval: time.Minute,
		Registerer: rec}, poll); err != nil {
		t.Fatal(err)
	}
	return rec.names
}

var usedName = regexp.MustCompile(`\bdescheduler_[a-z_]+`)

// checkExprs reports every descheduler_* name in exprs that no metric
// defines (histogram series _bucket, _sum and _count count as their base).
func checkExprs(t *testing.T, file string, exprs []string, defined map[string]bool) {
	t.Helper()
	if len(exprs) == 0 {
		t.Fatalf("%s: no expressions found", file)
	}
	for _, e := range exprs {
		for _, name := range usedName.FindAllString(e, -1) {
			base := name
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !defined[name] && !defined[base] {
				t.Errorf("%s uses %s, which no metric defines (expr %q)", file, name, e)
			}
		}
	}
}

func TestDashboardUsesDefinedMetrics(t *testing.T) {
	file := filepath.Join("..", "..", "deploy", "monitoring", "dashboard.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s is not valid JSON: %v", file, err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	checkExprs(t, file, exprs, definedNames(t))
}

func TestAlertsUseDefinedMetrics(t *testing.T) {
	file := filepath.Join("..", "..", "deploy", "monitoring", "prometheusrule.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					Expr  string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var exprs []string
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	checkExprs(t, file, exprs, definedNames(t))
}

// TestDefinedNames pins the metric names documented in the issue, so that a
// rename shows up here and in the dashboard checks above.
func TestDefinedNames(t *testing.T) {
	defined := definedNames(t)
	for _, name := range []string{
		"descheduler_pods_evicted_total", "descheduler_cycle_duration_seconds", "descheduler_cycles_total",
		"descheduler_loop_duration_seconds",
		"descheduler_strategy_duration_seconds", "descheduler_nodes_classified", "descheduler_usage_samples_age_seconds",
		"descheduler_collector_errors_total", "descheduler_leader", "descheduler_build_info",
	} {
		if !defined[name] {
			t.Errorf("metric %s is not defined", name)
		}
	}
}
