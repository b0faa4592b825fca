package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
)

// repoRoot is the repository root seen from this package's directory.
const repoRoot = "../.."

// TestReferencesUpToDate fails when a committed page of docs/reference
// differs from what the code generates: a flag, a metric or a policy field
// (or its default) changed without `make docs`.
func TestReferencesUpToDate(t *testing.T) {
	pages, err := Generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		path := filepath.Join(repoRoot, "docs", "reference", p.Name)
		committed, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v; run `make docs`", path, err)
			continue
		}
		if got := string(committed); got != p.Text {
			t.Errorf("%s differs from the code (run `make docs` and commit it): %s", path, firstDifference(got, p.Text))
		}
	}
}

// TestGenerateIsIdempotent: two runs give the same pages, so `make docs`
// twice changes nothing.
func TestGenerateIsIdempotent(t *testing.T) {
	a, err := Generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("%s: %s", a[i].Name, firstDifference(a[i].Text, b[i].Text))
		}
	}
}

// firstDifference names the first line where want and got differ.
func firstDifference(committed, generated string) string {
	c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := 0; i < len(c) || i < len(g); i++ {
		var cl, gl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if cl != gl {
			return "line " + strconv.Itoa(i+1) + ": committed " + quoteLine(cl) + ", generated " + quoteLine(gl)
		}
	}
	return "no line differs"
}

func quoteLine(s string) string {
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return "«" + s + "»"
}

func TestPagesCoverTheCode(t *testing.T) {
	pages, err := Generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, p := range pages {
		text[p.Name] = p.Text
	}
	for page, want := range map[string][]string{
		// Flags with their binary defaults (upstream-compatible lease
		// durations, the eviction deadline, the client's 0 = client-go).
		"flags.md": {"| `--leader-elect-lease-duration` | duration | `2m17s` |", "| `--eviction-timeout` | duration | `10s` |",
			"| `--client-connection-qps` | float32 |  |", "## descheduler untaint", "| `--logging-format` | string | `text` |"},
		// Every metric with its type and labels, the collectors' included.
		"metrics.md": {"| `descheduler_pods_evicted_total` | counter | `result`, `strategy`, `profile`, `namespace`, `node` |",
			"| `descheduler_evictions_skipped_total` | counter | `reason`, `strategy`, `profile` |",
			"| `descheduler_usage_samples_age_seconds` | gauge | `source` |"},
		// Defaults filled by Default methods, nested ones included, and
		// enum values from the constants of the field's type.
		"policy.md": {"| `metricsUtilization.window` | duration | `5m0s` |", "| `workloadBudget.enabled` | boolean | `true` |",
			"| `priorityThreshold.value` | integer | `2000000000` |", "`Preferred`, `Mandatory`", "## RemovePodsViolatingNodeTaints"},
	} {
		for _, w := range want {
			if !strings.Contains(text[page], w) {
				t.Errorf("%s lacks %q", page, w)
			}
		}
	}
}

func TestJSONNamed(t *testing.T) {
	for _, tc := range []struct{ doc, goName, path, want string }{
		{"MinPodAge protects pods.", "MinPodAge", "minPodAge", "`minPodAge` protects pods."},
		{"Thresholds: a node with...", "Thresholds", "args.thresholds", "`thresholds`: a node with..."},
		{"MinPodRelief (points) ...", "MinPodRelief", "minPodRelief", "`minPodRelief` (points) ..."},
		{"PodsWithPVC configures it.", "PodsWithPVC", "config.PodsWithPVC", "`PodsWithPVC` configures it."},
		// Another word that merely starts like the field stays as written.
		{"Enabledness is on.", "Enabled", "enabled", "Enabledness is on."},
		{"", "Name", "name", ""},
	} {
		if got := jsonNamed(tc.doc, tc.goName, tc.path); got != tc.want {
			t.Errorf("jsonNamed(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

func TestFlagDefault(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Bool("b", false, "")
	fs.Duration("zero", 0, "")
	fs.String("s", "x", "")
	fs.StringSlice("list", nil, "")
	for name, want := range map[string]string{"b": "", "zero": "", "s": "x", "list": ""} {
		if got := flagDefault(fs.Lookup(name)); got != want {
			t.Errorf("flagDefault(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestMetricKind(t *testing.T) {
	for _, tc := range []struct {
		c    prometheus.Collector
		want string
	}{
		// A Gauge has Inc and Add too: it must not read as a counter.
		{prometheus.NewGauge(prometheus.GaugeOpts{Name: "g"}), "gauge"},
		{prometheus.NewCounter(prometheus.CounterOpts{Name: "c"}), "counter"},
		{prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "h"}, []string{"a"}), "histogram"},
		{prometheus.NewSummary(prometheus.SummaryOpts{Name: "s"}), "summary"},
		{prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "f"}, func() float64 { return 0 }), "gauge"},
	} {
		got, err := metricKind(tc.c)
		if err != nil || got != tc.want {
			t.Errorf("metricKind(%T) = %q, %v; want %q", tc.c, got, err, tc.want)
		}
	}
	if _, err := metricKind(prometheus.NewGoCollector()); err == nil {
		t.Error("a collector of many metrics has no one type: it must be an error, not a guess")
	}
}

func TestDescPatternReadsQuotedHelp(t *testing.T) {
	d := prometheus.NewDesc("x_total", `a "quoted" help`, []string{"a", "b"}, prometheus.Labels{"c": "1"})
	m := descPattern.FindStringSubmatch(d.String())
	if m == nil {
		t.Fatalf("%s: not read", d)
	}
	if m[1] != "x_total" || m[2] != `a \"quoted\" help` || m[3] != `c="1"` || m[4] != "a,b" {
		t.Errorf("read %q", m[1:])
	}
}

func TestReplaceWord(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"with States and IncludingInitContainers.", "with `states` and IncludingInitContainers."},
		{"StatesX and XStates and `States` stay.", "StatesX and XStates and `States` stay."},
		{"States", "`states`"},
	} {
		if got := replaceWord(tc.s, "States", "`states`"); got != tc.want {
			t.Errorf("replaceWord(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestDropGoReferences(t *testing.T) {
	for in, want := range map[string]string{
		"keeps evictions from looping (see nodeutilization.Hysteresis). Defaulted.":                        "keeps evictions from looping. Defaulted.",
		"turns protections on (see Protections). Default: empty.":                                          "turns protections on. Default: empty.",
		"how samples are smoothed; see collectors.MetricsUtilization for every field and default. Absent.": "how samples are smoothed. Absent.",
		// A parenthesis that says something stays.
		"a source (see the hysteresis below) stays": "a source (see the hysteresis below) stays",
	} {
		if got := dropGoReferences(in); got != want {
			t.Errorf("dropGoReferences(%q) = %q, want %q", in, got, want)
		}
	}
}
