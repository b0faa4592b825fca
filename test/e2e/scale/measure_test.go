package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	text := "Name:\tdescheduler\nVmPeak:\t 2000000 kB\nVmHWM:\t  812344 kB\nVmRSS:\t  700000 kB\nThreads:\t12\n"
	m, err := parseStatus(text)
	if err != nil {
		t.Fatal(err)
	}
	if m.hwmKiB != 812344 || m.rssKiB != 700000 {
		t.Errorf("got %+v", m)
	}
	if _, err := parseStatus("Name:\tx\nVmRSS:\t 1 kB\n"); err == nil {
		t.Error("VmHWM missing: want an error")
	}
}

func TestParseCPUTicks(t *testing.T) {
	// Fields 14 and 15 (utime 150, stime 25) after a command name with a space.
	stat := "4242 (my proc) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 25 0 0 20 0 12 0 1000 0 0"
	got, err := parseCPUTicks(stat)
	if err != nil || got != 175 {
		t.Errorf("parseCPUTicks = %d, %v; want 175", got, err)
	}
}

func TestParseCycles(t *testing.T) {
	log := `I1125 20:53:23.153765   21425 runner.go:92] "Cycle finished" evicted=0 attempted=0 errors=0 duration="26.389017ms"
I1125 20:53:33.100000   21425 lownodeutilization.go:80] "Nodes classified" profile="all" strategy="LowNodeUtilization" plugin="LowNodeUtilization" classification="Usage" underutilized=20 overutilized=0 appropriate=30
I1125 20:53:33.169661   21425 runner.go:92] "Cycle finished" evicted=0 attempted=0 errors=0 duration="15.03075ms"
I1125 20:53:43.100000   21425 highnodeutilization.go:81] "Nodes classified" profile="all" strategy="HighNodeUtilization" underutilized=0 overutilized=50 appropriate=0
I1125 20:53:43.180128   21425 lownodeutilization.go:80] "Nodes classified" profile="all" strategy="LowNodeUtilization" plugin="LowNodeUtilization" classification="Usage" underutilized=20 overutilized=5 appropriate=25
I1125 20:53:43.180352   21425 runner.go:92] "Cycle finished" evicted=0 attempted=5 errors=0 duration="1.2s"
`
	cycles, err := parseCycles(log, 2026, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(cycles) != 3 {
		t.Fatalf("got %d cycles, want 3", len(cycles))
	}
	want := []cycle{
		{time.Date(2026, 11, 25, 20, 53, 23, 153765000, time.UTC), 26389017 * time.Nanosecond, false, 0},
		// HighNodeUtilization's overutilized=50 does not count, nor LNU's overutilized=0.
		{time.Date(2026, 11, 25, 20, 53, 33, 169661000, time.UTC), 15030750 * time.Nanosecond, false, 0},
		{time.Date(2026, 11, 25, 20, 53, 43, 180352000, time.UTC), 1200 * time.Millisecond, true, 5},
	}
	for i := range want {
		if !cycles[i].at.Equal(want[i].at) || cycles[i].duration != want[i].duration || cycles[i].afterUsage != want[i].afterUsage ||
			cycles[i].attempted != want[i].attempted {
			t.Errorf("cycle %d = %+v, want %+v", i, cycles[i], want[i])
		}
	}
	if usageCycles(cycles) != 1 {
		t.Errorf("usageCycles = %d, want 1", usageCycles(cycles))
	}
	if _, err := parseCycles(`"Cycle finished" without header`, 2026, time.UTC); err == nil {
		t.Error("a cycle line without header: want an error")
	}
}

func TestFillCycles(t *testing.T) {
	start := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	res := &result{}
	fillCycles(res, []cycle{
		{start.Add(2 * time.Second), 100 * time.Millisecond, false, 0},
		{start.Add(30 * time.Second), 900 * time.Millisecond, true, 12},
		{start.Add(40 * time.Second), 700 * time.Millisecond, true, 10},
	}, start)
	if res.firstCycle != 2*time.Second || res.firstUsageCycle != 30*time.Second || len(res.cycles) != 2 ||
		res.attempted != 10 {
		t.Errorf("got first %s, first with usage %s, %d cycles", res.firstCycle, res.firstUsageCycle, len(res.cycles))
	}
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	// Nearest rank: p50 of 5 values is the 3rd smallest, p100 the largest.
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 3}, {100, 5}, {0, 1}, {90, 5}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("percentile(%v) = %d, want %d", c.p, got, c.want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing: want 0")
	}
}

func TestRequestCounts(t *testing.T) {
	text := `# HELP apiserver_request_total x
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="policy",resource="poddisruptionbudgets",scope="cluster",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 7
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 2
`
	got := requestCounts(text, "apiserver_request_total", "LIST")
	if len(got) != 2 || got["/pods"] != 5 || got["policy/poddisruptionbudgets"] != 1 {
		t.Errorf("LIST counts = %v", got)
	}
	if w := requestCounts(text, "apiserver_longrunning_requests", "WATCH"); len(w) != 1 || w["/pods"] != 2 {
		t.Errorf("open WATCHes = %v", w)
	}
	before := map[string]float64{"/pods": 2}
	d := diffCounts(before, got)
	if d["/pods"] != 3 || d["policy/poddisruptionbudgets"] != 1 {
		t.Errorf("diff = %v", d)
	}
	if s := formatCounts(d); s != "4 (/pods 3, policy/poddisruptionbudgets 1)" {
		t.Errorf("formatCounts = %q", s)
	}
}

func TestParseEntry(t *testing.T) {
	bin, env, flags, wl := parseEntry("/b/descheduler@watchlist@GOMEMLIMIT=900MiB@--cache-sync-timeout=10m")
	if bin != "/b/descheduler" || !wl || len(env) != 1 || env[0] != "GOMEMLIMIT=900MiB" ||
		len(flags) != 1 || flags[0] != "--cache-sync-timeout=10m" {
		t.Errorf("got %q %v %v %v", bin, env, flags, wl)
	}
	if bin, env, flags, wl := parseEntry("/b/d"); bin != "/b/d" || env != nil || flags != nil || wl {
		t.Errorf("plain entry: %q %v %v %v", bin, env, flags, wl)
	}
}

// TestReadSettingsProfile: PROFILE=1 asks for CPU and heap profiles and keeps the
// work directory they are saved in; without it neither.
func TestReadSettingsProfile(t *testing.T) {
	t.Setenv("BENCH_KEEP", "")
	t.Setenv("PROFILE", "1")
	s, err := readSettings()
	if err != nil || !s.profile || !s.keep {
		t.Errorf("PROFILE=1: profile %t keep %t err %v, want both set", s.profile, s.keep, err)
	}
	t.Setenv("PROFILE", "")
	if s, err = readSettings(); err != nil || s.profile || s.keep {
		t.Errorf("no PROFILE: profile %t keep %t err %v, want neither", s.profile, s.keep, err)
	}
}

// TestReadSettingsRequests: REQUESTS is template (the default) or pod;
// anything else is an error naming the variable and the accepted values.
func TestReadSettingsRequests(t *testing.T) {
	for _, tc := range []struct {
		value   string
		perPod  bool
		wantErr string
	}{{"", false, ""}, {"template", false, ""}, {"pod", true, ""}, {"pods", false, `REQUESTS="pods": want template or pod`}} {
		t.Setenv("REQUESTS", tc.value)
		s, err := readSettings()
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("REQUESTS=%q: error %v, want %q", tc.value, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || s.perPodRequests != tc.perPod):
			t.Errorf("REQUESTS=%q: perPodRequests %t err %v, want %t", tc.value, s.perPodRequests, err, tc.perPod)
		}
	}
}

func TestCoresDuring(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	pts := []cpuPoint{{at(0), 10}, {at(1000), 10.5}, {at(2000), 11.5}, {at(3000), 11.5}}
	for _, c := range []struct {
		name     string
		from, to int // ms
		want     float64
		ok       bool
	}{
		// Enclosed by the samples at 0 s and 2 s: (11.5 − 10) / 2 s.
		{"between samples", 200, 1900, 0.75, true},
		// Exactly on samples 1 s and 2 s: 1 CPU-s in 1 s.
		{"on samples", 1000, 2000, 1, true},
		// 2 s to 3 s: no CPU time.
		{"idle", 2000, 3000, 0, true},
		{"ends after the last sample", 2500, 3500, 0, false},
		{"starts before the first sample", -100, 500, 0, false},
		{"empty", 500, 500, 0, false},
	} {
		got, ok := coresDuring(pts, at(c.from), at(c.to))
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("%s: coresDuring = %v, %t; want %v, %t", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestCycleLoadsAndMaxQuiet(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	// The API server: one core busy for the first 3 s, then idle.
	pts := []cpuPoint{{t0, 0}, {t0.Add(3 * time.Second), 3}, {t0.Add(20 * time.Second), 3.1}}
	cycles := []cycle{
		{at: t0.Add(time.Second), duration: 500 * time.Millisecond},                        // before usage: left out
		{at: t0.Add(3 * time.Second), duration: 2 * time.Second, afterUsage: true},         // 1 core
		{at: t0.Add(13 * time.Second), duration: 900 * time.Millisecond, afterUsage: true}, // 0.1/17 cores
		{at: t0.Add(19 * time.Second), duration: 800 * time.Millisecond, afterUsage: true},
		{at: t0.Add(30 * time.Second), duration: 1200 * time.Millisecond, afterUsage: true}, // after the samples
	}
	loads := cycleLoads(cycles, pts)
	if len(loads) != 4 || math.Abs(loads[0]-1) > 1e-9 || loads[1] >= quietCores || loads[2] >= quietCores || loads[3] != -1 {
		t.Fatalf("cycleLoads = %v; want [1, <0.2, <0.2, -1]", loads)
	}
	durations := []time.Duration{2 * time.Second, 900 * time.Millisecond, 800 * time.Millisecond, 1200 * time.Millisecond}
	// The 2 s cycle met a busy API server and the 1.2 s one is unknown: 900 ms.
	if d, ok := maxQuiet(durations, loads); !ok || d != 900*time.Millisecond {
		t.Errorf("maxQuiet = %s, %t; want 900ms, true", d, ok)
	}
	if _, ok := maxQuiet(durations[:1], loads[:1]); ok {
		t.Error("maxQuiet of one busy cycle: want none")
	}
	if got := formatCores(loads[:1]) + " " + formatCores([]float64{-1}) + " " + formatDurations(durations[:2]); got != "1.00 - 2000,900" {
		t.Errorf("formatted %q", got)
	}
}

// The sampler on this test's own process: its timeline grows in time order
// and finish reports the newest CPU time, at least what was burnt before.
func TestSamplerOwnProcess(t *testing.T) {
	s := startSampler(os.Getpid(), 5*time.Millisecond)
	busyUntil := time.Now().Add(50 * time.Millisecond)
	for n := 0; time.Now().Before(busyUntil); n++ {
		_ = math.Sqrt(float64(n))
	}
	time.Sleep(20 * time.Millisecond)
	_, _, cpu := s.finish()
	pts := s.timeline()
	if len(pts) < 2 {
		t.Fatalf("%d CPU samples, want several", len(pts))
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].at.Before(pts[i-1].at) || pts[i].cpu < pts[i-1].cpu {
			t.Fatalf("sample %d (%v) goes back from %v", i, pts[i], pts[i-1])
		}
	}
	if last := pts[len(pts)-1].cpu; cpu != last || cpu <= 0 {
		t.Errorf("finish reported %v CPU-s, want the newest sample's %v (> 0)", cpu, last)
	}
}
