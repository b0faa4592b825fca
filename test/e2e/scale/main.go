// Command scale is the live scale benchmark (`make bench-live`): it starts
// etcd and kube-apiserver with the e2e harness, creates NODES nodes and
// NODES*PODS_PER_NODE realistic pods (about 4 KB each, Running and Ready,
// owned by ReplicaSets) through the API, serves their usage through a
// metrics.k8s.io test server, then runs the descheduler binary (dry run,
// all ten strategies, LowNodeUtilization by metrics-server usage) for
// CYCLES cycles with usage and prints one summary line: load time, time to
// the first cycle, cycle p50/max, the descheduler's peak RSS, the API
// server's peak RSS and the LIST requests of our start; then each cycle's
// duration in milliseconds (cycleMs), the cores the descheduler and the
// API server used during it (cycleCores, cycleAPIServerCores, from their
// CPU time sampled every 100 ms), and the longest cycle during which the
// API server, which shares the machine here, used under 0.2 cores
// (cycleMaxQuiet).
//
// Environment:
//
//	NODES=1000 PODS_PER_NODE=30  cluster size
//	CYCLES=3                     cycles with usage to measure
//	WORKERS=48                   concurrent API requests of the loader
//	WATCHLIST=1|0|both           client-go's WatchListClient on (1, the binary's default),
//	                             off (0), or both: once off, once on, against the same cluster
//	REQUESTS=template            template: the pods of a ReplicaSet request what its template
//	                             does (as the ReplicaSet controller makes them); pod: every pod
//	                             its own requests (pods resized in place), the worst case for
//	                             the informer cache, which shares equal containers
//	LOAD=etcd                    etcd: one pod per ReplicaSet through the API, the rest
//	                             written to etcd (etcdload.go); api: every pod through the API
//	E2E_DESCHEDULER=BIN[,BIN...] prebuilt binaries, each measured in turn against the
//	                             same loaded cluster (default: build ./cmd/descheduler);
//	                             BIN@watchlist runs that one with WatchListClient on,
//	                             BIN@KEY=VALUE with that environment variable (e.g.
//	                             @GOMEMLIMIT=900MiB), BIN@--flag=value with that extra
//	                             flag (e.g. @--cache-sync-timeout=10m); suffixes combine
//	E2E_BIN_DIR as for the e2e suite; BENCH_KEEP=1 keeps the work directory
//	PROFILE=1                    runs each binary with --profiling on a loopback --port,
//	                             saves a CPU profile of its cycles with usage as <run>.cpu.pb.gz
//	                             and, when its cycles are done, its heap profile (after a GC:
//	                             in use, and allocated since start) as <run>.heap.pb.gz next
//	                             to its log; keeps the work directory
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// settings are the benchmark's knobs (environment variables).
type settings struct {
	nodes, podsPerNode, cycles, workers int
	keep, viaEtcd, profile              bool
	perPodRequests                      bool   // REQUESTS=pod
	watchModes                          []bool // WatchListClient off/on, one run each
	binDir                              string
	binaries                            []string // descheduler binaries, one run each
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", name, v)
	}
	return n, nil
}

func readSettings() (settings, error) {
	var errs []error
	s := settings{keep: os.Getenv("BENCH_KEEP") == "1" || os.Getenv("PROFILE") == "1", viaEtcd: os.Getenv("LOAD") != "api",
		profile: os.Getenv("PROFILE") == "1",
		binDir:  os.Getenv("E2E_BIN_DIR")}
	if bins := os.Getenv("E2E_DESCHEDULER"); bins != "" {
		s.binaries = strings.Split(bins, ",")
	}
	switch os.Getenv("WATCHLIST") {
	case "0":
		s.watchModes = []bool{false}
	case "", "1":
		s.watchModes = []bool{true}
	case "both":
		s.watchModes = []bool{false, true}
	default:
		errs = append(errs, fmt.Errorf("WATCHLIST=%q: want 0, 1 or both", os.Getenv("WATCHLIST")))
	}
	for _, f := range []struct {
		name string
		def  int
		dst  *int
	}{{"NODES", 1000, &s.nodes}, {"PODS_PER_NODE", 30, &s.podsPerNode}, {"CYCLES", 3, &s.cycles}, {"WORKERS", 48, &s.workers}} {
		v, err := envInt(f.name, f.def)
		errs = append(errs, err)
		*f.dst = v
	}
	switch r := os.Getenv("REQUESTS"); r {
	case "", "template":
	case "pod":
		s.perPodRequests = true
	default:
		errs = append(errs, fmt.Errorf("REQUESTS=%q: want template or pod", r))
	}
	if l := os.Getenv("LOAD"); l != "" && l != "api" && l != "etcd" {
		errs = append(errs, fmt.Errorf("LOAD=%q: want api or etcd", l))
	}
	if s.binDir == "" {
		home, _ := os.UserHomeDir()
		s.binDir = filepath.Join(home, ".cache", "usage-descheduler", "k8s-v1.34.4")
	}
	return s, errors.Join(errs...)
}

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("bench-live: ")
	s, err := readSettings()
	if err != nil {
		log.Fatal(err)
	}
	os.Exit(run(s))
}

func run(s settings) int {
	work, err := os.MkdirTemp("", "usage-descheduler-bench-live-")
	if err != nil {
		log.Printf("creating the work directory: %v", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	results, err := benchmark(ctx, s, work)
	harness.KillAll()
	for _, r := range results {
		fmt.Println(r.summary())
	}
	if err != nil {
		log.Printf("FAILED: %v (work directory kept: %s)", err, work)
		return 1
	}
	if s.keep {
		log.Printf("work directory kept: %s", work)
	} else {
		_ = os.RemoveAll(work)
	}
	return 0
}

// benchmark starts the control plane, loads the cluster and measures one
// descheduler run per binary and WatchListClient mode.
func benchmark(ctx context.Context, s settings, work string) ([]*result, error) {
	built := make(chan error, 1)
	go func() { built <- buildDescheduler(&s, work) }()
	cluster, err := harness.Start(ctx, harness.Options{BinDir: s.binDir, WorkDir: work, Logf: log.Printf,
		APIServerOnly: true,
		EtcdArgs: []string{"--quota-backend-bytes", strconv.Itoa(8 << 30),
			"--max-txn-ops", "1000", "--max-request-bytes", strconv.Itoa(32 << 20)},
		APIServerArgs: []string{"--max-requests-inflight", "1000", "--max-mutating-requests-inflight", "500"}})
	if err != nil {
		<-built
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	defer cluster.Stop()
	if err := <-built; err != nil {
		return nil, err
	}
	// The test metrics.k8s.io server, not metrics-server: the benchmark's
	// cluster is an API server alone (no kwok), so there is no kubelet
	// endpoint to scrape, and its usage is set per node and pod directly.
	metrics, err := harness.StartMetricsAPI()
	if err != nil {
		return nil, err
	}
	defer metrics.Close()
	if err := metrics.Register(ctx, cluster); err != nil {
		return nil, err
	}
	client, err := loaderClient(cluster.RESTConfig)
	if err != nil {
		return nil, err
	}
	base := result{nodes: s.nodes, pods: s.nodes * s.podsPerNode, requests: "template"}
	if s.perPodRequests {
		base.requests = "pod"
	}
	l := &loader{client: client, workers: s.workers, layout: layout{nodes: s.nodes, podsPerNode: s.podsPerNode,
		perPodRequests: s.perPodRequests}, metrics: metrics}
	if s.viaEtcd {
		l.etcd = &etcdWriter{url: "http://127.0.0.1:" + strconv.Itoa(cluster.Port("etcd")), http: &http.Client{Timeout: time.Minute}}
	}
	started := time.Now()
	if err := l.load(ctx); err != nil {
		return nil, fmt.Errorf("loading the cluster: %w", err)
	}
	base.load = time.Since(started)
	base.apiPods, base.apiPodsTime = l.apiPods, l.apiPodsTime
	log.Printf("loaded %d nodes and %d pods in %s", base.nodes, base.pods, base.load.Round(100*time.Millisecond))
	if base.podBytes, err = podWireSize(ctx, cluster); err != nil {
		return nil, err
	}
	var results []*result
	for k, bin := range s.binaries {
		bin, env, flags, watch := parseEntry(bin)
		modes := s.watchModes
		if watch {
			modes = []bool{true}
		}
		for _, wl := range modes {
			res := base
			res.binary, res.watchList, res.env, res.flags, res.profile = bin, wl, env, flags, s.profile
			if err := measureRun(ctx, s.cycles, cluster, work, fmt.Sprintf("descheduler-%d-%t", k, wl), &res); err != nil {
				return results, err
			}
			results = append(results, &res)
			log.Print(res.summary())
			// Let the API server drop the run's watches and buffers.
			time.Sleep(10 * time.Second)
		}
	}
	return results, nil
}

// buildDescheduler builds ./cmd/descheduler of the product module unless
// E2E_DESCHEDULER names a binary.
func buildDescheduler(s *settings, work string) error {
	if len(s.binaries) > 0 {
		return nil
	}
	root, err := productRoot()
	if err != nil {
		return err
	}
	out := filepath.Join(work, "descheduler")
	if _, err := harness.RunOutput(root, "go", "build", "-o", out, "./cmd/descheduler"); err != nil {
		return fmt.Errorf("building the descheduler: %w", err)
	}
	s.binaries = []string{out}
	return nil
}

// productRoot is the directory of the product's go.mod, two levels above
// test/e2e (the benchmark runs from test/e2e).
func productRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
			firstLineIs(string(data), "module github.com/usage-descheduler/descheduler") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no product go.mod above %s", dir)
		}
	}
}

// firstLineIs reports whether the first line starting with "module " is want.
func firstLineIs(goMod, want string) bool {
	for _, line := range strings.Split(goMod, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "module ") {
			return line == want
		}
	}
	return false
}

// parseEntry splits an E2E_DESCHEDULER entry
// BIN[@watchlist][@KEY=VALUE...][@--flag=value...] into the binary, its
// extra environment, its extra flags and whether WatchListClient is on.
func parseEntry(entry string) (bin string, env, flags []string, watchList bool) {
	parts := strings.Split(entry, "@")
	for _, p := range parts[1:] {
		switch {
		case p == "watchlist":
			watchList = true
		case strings.HasPrefix(p, "--"):
			flags = append(flags, p)
		default:
			env = append(env, p)
		}
	}
	return parts[0], env, flags, watchList
}
