package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// policy is deploy/examples/all-strategies-usage.yaml with the usage
// window of a short run: metrics-server polled every 10 s, 2 samples
// before the strategies classify, hot nodes sources after 15 s over target.
const policy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
metricsProviders:
  - source: KubernetesMetrics
profiles:
  - name: all
    pluginConfig:
      - name: DefaultEvictor
        args:
          nodeFit: true
      - name: RemovePodsViolatingNodeAffinity
        args:
          nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]
      - name: RemovePodsHavingTooManyRestarts
        args:
          podRestartThreshold: 10
      - name: PodLifeTime
        args:
          maxPodLifeTimeSeconds: 604800
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40, memory: 50, pods: 50}
          targetThresholds: {cpu: 70, memory: 80, pods: 80}
          metricsUtilization: {source: KubernetesMetrics, window: 1m, pollInterval: 10s, minSamples: 2, maxStaleness: 30s}
          hysteresis: {overFor: 15s}
          classification: Usage
          softTaint:
            enabled: true
            scope: NotUnderutilized
      - name: HighNodeUtilization
        args:
          thresholds: {cpu: 20, memory: 20, pods: 20}
          metricsUtilization: {source: KubernetesMetrics, window: 1m, pollInterval: 10s, minSamples: 2, maxStaleness: 30s}
          classification: Usage
    plugins:
      deschedule:
        enabled:
          - RemovePodsViolatingNodeTaints
          - RemovePodsViolatingNodeAffinity
          - RemovePodsViolatingInterPodAntiAffinity
          - RemovePodsHavingTooManyRestarts
          - PodLifeTime
          - RemoveFailedPods
      balance:
        enabled:
          - RemoveDuplicates
          - RemovePodsViolatingTopologySpreadConstraint
          - LowNodeUtilization
          - HighNodeUtilization
`

// interval is the descheduling interval of the measured run.
const interval = 10 * time.Second

// result is what one benchmark measured.
type result struct {
	nodes, pods      int
	binary           string
	env              []string // extra environment of the run (e.g. GOMEMLIMIT)
	flags            []string // extra flags of the run
	watchList        bool
	profile          bool // serve pprof and save a heap profile at the end (PROFILE=1)
	attempted        int  // dry-run evictions planned in the last cycle
	load             time.Duration
	apiPods          int           // pods created through the API (the rest written to etcd)
	apiPodsTime      time.Duration // how long those took
	podBytes         int
	requests         string        // "template" or "pod" (REQUESTS)
	firstCycle       time.Duration // process start to the first "Cycle finished"
	firstUsageCycle  time.Duration // process start to the first cycle in which LowNodeUtilization found hot nodes
	cycles           []time.Duration
	ownCores         []float64          // cores the descheduler used during each of cycles (-1: unknown)
	apiCores         []float64          // cores the API server used during each of cycles (-1: unknown)
	peakRSS, cpu     float64            // MiB (VmHWM), CPU seconds of the whole run
	apiBase, apiPeak float64            // MiB: API server VmRSS before our start, highest during the run
	lists            map[string]float64 // LIST requests from our start to the first cycle, by group/resource
	watches          map[string]float64 // WATCHes opened from our start to the first cycle (streaming lists included)
}

func (r *result) summary() string {
	return fmt.Sprintf("bench-live: nodes=%d pods=%d podBytes=%d requests=%s load=%s apiPods=%d/%s firstCycle=%s firstUsageCycle=%s "+
		"cycles=%d cycleP50=%s cycleMax=%s peakRSS=%.0fMiB cpu=%.1fs apiserverRSS=%.0fMiB apiserverPeakRSS=%.0fMiB "+
		"apiserverRSSIncrease=%.0fMiB startLISTs=%s openedWATCHes=%s watchList=%t attempted=%d binary=%s env=%s flags=%s "+
		"cycleMs=%s cycleCores=%s cycleAPIServerCores=%s cycleMaxQuiet=%s",
		r.nodes, r.pods, r.podBytes, r.requests, r.load.Round(100*time.Millisecond), r.apiPods, r.apiPodsTime.Round(100*time.Millisecond), r.firstCycle.Round(10*time.Millisecond),
		r.firstUsageCycle.Round(10*time.Millisecond), len(r.cycles), percentile(r.cycles, 50).Round(time.Millisecond),
		percentile(r.cycles, 100).Round(time.Millisecond), r.peakRSS, r.cpu, r.apiBase, r.apiPeak, r.apiPeak-r.apiBase,
		formatCounts(r.lists), formatCounts(r.watches), r.watchList, r.attempted, filepath.Base(r.binary), strings.Join(r.env, ","), strings.Join(r.flags, ","),
		formatDurations(r.cycles), formatCores(r.ownCores), formatCores(r.apiCores), r.quietMax())
}

// quietMax is cycleMaxQuiet: the longest cycle with usage during which the
// API server used less than quietCores, "none" when none did.
func (r *result) quietMax() string {
	if d, ok := maxQuiet(r.cycles, r.apiCores); ok {
		return d.Round(time.Millisecond).String()
	}
	return "none"
}

// podWireSize is the JSON size of one pod as the API returns it (with
// managedFields and the status).
func podWireSize(ctx context.Context, c *harness.Cluster) (int, error) {
	data, err := c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces", namespaceName(0), "pods", podName(0, 0)).
		SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("getting a pod: %w", err)
	}
	return len(data), nil
}

func apiserverMetrics(ctx context.Context, c *harness.Cluster) (string, error) {
	data, err := c.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return string(data), nil
}

func apiserverPID(c *harness.Cluster) (int, error) {
	for _, p := range c.Processes() {
		if p.Name == "kube-apiserver" {
			return p.PID(), nil
		}
	}
	return 0, fmt.Errorf("no kube-apiserver process")
}

// measureRun runs the descheduler until s.cycles cycles with usage have
// finished, sampling its memory and the API server's every 100 ms.
func measureRun(ctx context.Context, wantCycles int, c *harness.Cluster, work, name string, res *result) error {
	policyFile := filepath.Join(work, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		return fmt.Errorf("writing the policy: %w", err)
	}
	apiPID, err := apiserverPID(c)
	if err != nil {
		return err
	}
	before, err := apiserverMetrics(ctx, c)
	if err != nil {
		return err
	}
	base, err := readStatus(apiPID)
	if err != nil {
		return fmt.Errorf("reading the API server's memory: %w", err)
	}
	res.apiBase = float64(base.rssKiB) / 1024
	env := append([]string(nil), res.env...)
	// The binary turns WatchListClient on by default; the variable, which
	// it honours like client-go, states the mode of this run either way.
	env = append(env, "KUBE_FEATURE_WatchListClient="+strconv.FormatBool(res.watchList))
	logPath := filepath.Join(c.LogDir, name+".log")
	started := time.Now()
	args := append([]string{"--policy-config-file", policyFile, "--kubeconfig", c.Kubeconfig, "--secure-port", "0",
		"--dry-run", "--descheduling-interval", interval.String(), "-v", "2"}, res.flags...)
	profilePort := 0
	if res.profile {
		if profilePort, err = harness.FreePort(); err != nil {
			return err
		}
		args = append(args, "--bind-address", "127.0.0.1", "--port", strconv.Itoa(profilePort), "--profiling")
	}
	p, err := harness.StartProcessEnv(name, logPath, env, res.binary, args...)
	if err != nil {
		return err
	}
	defer p.Stop(5 * time.Second)
	apiSampler := startSampler(apiPID, 100*time.Millisecond)
	ownSampler := startSampler(p.PID(), 100*time.Millisecond)
	var listsAtFirst map[string]float64
	var cpuProfile chan error // set once the CPU profile of the usage cycles is being taken
	deadline := time.Now().Add(time.Duration(wantCycles+8)*interval + 2*time.Minute)
	var cycles []cycle
	for {
		data, _ := os.ReadFile(logPath)
		if cycles, err = parseCycles(string(data), started.Year(), time.Local); err != nil {
			return err
		}
		if listsAtFirst == nil && len(cycles) > 0 {
			m, err := apiserverMetrics(ctx, c)
			if err != nil {
				return err
			}
			listsAtFirst = diffCounts(requestCounts(before, "apiserver_request_total", "LIST"), requestCounts(m, "apiserver_request_total", "LIST"))
			// A WATCH counts in apiserver_request_total when it ends: count the open ones.
			res.watches = diffCounts(requestCounts(before, "apiserver_longrunning_requests", "WATCH"),
				requestCounts(m, "apiserver_longrunning_requests", "WATCH"))
		}
		if profilePort != 0 && cpuProfile == nil && usageCycles(cycles) > 0 {
			// The cycles with usage still to come, and a little more.
			secs := int((time.Duration(wantCycles)*interval + interval/2) / time.Second)
			cpuProfile = make(chan error, 1)
			go func() {
				cpuProfile <- saveProfile(ctx, profilePort, "profile?seconds="+strconv.Itoa(secs), filepath.Join(c.LogDir, name+".cpu.pb.gz"))
			}()
		}
		if usageCycles(cycles) >= wantCycles {
			break
		}
		select {
		case <-p.Done():
			return fmt.Errorf("the descheduler exited with %d; last lines:\n%s", p.ExitCode(), p.Tail(30))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d cycles with usage not reached in time (%d cycles); last lines:\n%s", wantCycles, len(cycles), p.Tail(20))
		}
	}
	if profilePort != 0 {
		if err := saveProfile(ctx, profilePort, "heap?gc=1", filepath.Join(c.LogDir, name+".heap.pb.gz")); err != nil {
			return err
		}
		if cpuProfile != nil {
			if err := <-cpuProfile; err != nil {
				return err
			}
		}
	}
	res.peakRSS, _, res.cpu = finishOwn(ownSampler)
	apiPeak, _, _ := apiSampler.finish()
	res.apiPeak = apiPeak
	res.lists = listsAtFirst
	fillCycles(res, cycles, started)
	res.ownCores = cycleLoads(cycles, ownSampler.timeline())
	res.apiCores = cycleLoads(cycles, apiSampler.timeline())
	log.Printf("descheduler log: %s", logPath)
	return nil
}

// finishOwn returns the descheduler's peak: the kernel's VmHWM is exact,
// the 100 ms VmRSS samples a lower bound.
func finishOwn(s *sampler) (peakMiB, rssMiB, cpu float64) {
	rss, hwm, cpu := s.finish()
	return max(hwm, rss), rss, cpu
}

func usageCycles(cycles []cycle) int {
	n := 0
	for _, c := range cycles {
		if c.afterUsage {
			n++
		}
	}
	return n
}

// fillCycles records the time to the first cycle, to the first cycle with
// usage and the durations of the cycles with usage.
func fillCycles(res *result, cycles []cycle, started time.Time) {
	for _, c := range cycles {
		res.attempted = c.attempted
		if res.firstCycle == 0 {
			res.firstCycle = c.at.Sub(started)
		}
		if c.afterUsage {
			if res.firstUsageCycle == 0 {
				res.firstUsageCycle = c.at.Sub(started)
			}
			res.cycles = append(res.cycles, c.duration)
		}
	}
}

// saveProfile writes one of the descheduler's pprof profiles (what: the
// path under /debug/pprof/ with its query) to path. The heap profile is
// asked for after a GC (heap?gc=1), so its in-use figures are the live heap;
// the CPU profile (profile?seconds=N) covers the cycles with usage.
func saveProfile(ctx context.Context, port int, what, path string) error {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/debug/pprof/" + what
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("getting the %s profile: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("getting the %s profile: %s", what, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading the %s profile: %w", what, err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing the %s profile: %w", what, err)
	}
	log.Printf("%s profile: %s (go tool pprof %s)", what, path, path)
	return nil
}
