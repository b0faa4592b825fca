package e2e

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// upstreamTaintsCase prepares what the upstream-argument cases evict: web
// (2 replicas) crowded on node u1, which then gets a NoSchedule taint that
// web does not tolerate; RemovePodsViolatingNodeTaints moves both to u2.
func upstreamTaintsCase(t *testing.T, name string) (*tcase, string) {
	tc := newCase(t, name)
	tc.addNodes(stdNode("u1", nil), stdNode("u2", nil))
	tc.crowd("u1", []string{"u2"}, workload{name: "web", replicas: 2, cpu: "100m", memory: "100Mi"})
	tc.patchNode("u1", `{"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}}`)
	policy := tc.policy(profile("RemovePodsViolatingNodeTaints", "deschedule", "{}"))
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return tc, file
}

// startUpstream starts the binary with args and the admin kubeconfig in
// $KUBECONFIG (so that args stay exactly upstream's), on a free HTTPS port
// of 127.0.0.1 (the only flags added: parallel suites must not share 10258).
func (tc *tcase) startUpstream(name string, args ...string) (*harness.Process, int) {
	tc.t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		tc.t.Fatal(err)
	}
	args = append(args, "--secure-port="+strconv.Itoa(port), "--bind-address=127.0.0.1")
	logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-%s-%s.log", tc.name, name))
	p, err := harness.StartProcessEnv("descheduler-"+name, logPath, []string{"KUBECONFIG=" + suite.cluster.Kubeconfig},
		suite.descheduler, args...)
	if err != nil {
		tc.t.Fatalf("starting descheduler %s: %v", name, err)
	}
	started := time.Now()
	tc.t.Cleanup(func() {
		p.Stop(5 * time.Second)
		data, _ := os.ReadFile(logPath)
		tc.runs = append(tc.runs, &deschedulerRun{args: args, exitCode: p.ExitCode(), duration: time.Since(started),
			log: string(data)})
	})
	return p, port
}

// httpsGet fetches path from the binary's HTTPS port without verifying its
// self-signed certificate, as upstream chart's probes and ServiceMonitor
// (insecureSkipVerify) do.
func httpsGet(port int, path string) (int, string, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed serving certificate
	resp, err := client.Get("https://127.0.0.1:" + strconv.Itoa(port) + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// sampleRe matches one sample line of the Prometheus text format.
var sampleRe = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)

// labelRe matches one label pair.
var labelRe = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// sample is one parsed series.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSamples parses the text format's sample lines.
func parseSamples(text string) []sample {
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		m := sampleRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		s := sample{name: m[1], labels: map[string]string{}, value: v}
		for _, lp := range labelRe.FindAllStringSubmatch(m[2], -1) {
			s.labels[lp[1]] = lp[2]
		}
		out = append(out, s)
	}
	return out
}

// find returns the samples of name whose labels include want.
func find(samples []sample, name string, want map[string]string) []sample {
	var out []sample
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, s)
		}
	}
	return out
}

// labelNames returns the sorted label names of s.
func labelNames(s sample) []string {
	var out []string
	for k := range s.labels {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Upstream's Helm chart as a Deployment (kind: Deployment, leaderElection
// enabled, cmdOptions v: 3) passes exactly these arguments. The binary
// takes the Lease kube-system/descheduler (upstream's defaults), evicts,
// answers /healthz over HTTPS and exports upstream's series and labels.
func TestUpstreamChartDeploymentArgs(t *testing.T) {
	tc, policy := upstreamTaintsCase(t, "upstream-deploy")
	before, err := tc.pods("web")
	if err != nil {
		t.Fatal(err)
	}
	tc.deleteLease(deployNamespace, defaultLeaseName)
	t.Cleanup(func() { tc.deleteLease(deployNamespace, defaultLeaseName) })
	p, port := tc.startUpstream("chart-deployment", "--policy-config-file="+policy, "--descheduling-interval=5m",
		"--v=3", "--leader-elect=true")

	tc.eventually("/healthz over HTTPS", func() (bool, error) {
		code, body, err := httpsGet(port, "/healthz")
		return err == nil && code == http.StatusOK && body == "ok\n", nil
	})
	if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered 200 on the secure port")
		}
	}
	tc.waitHolder(deployNamespace, defaultLeaseName, holderOf(t, tc))
	tc.eventually("both web pods evicted", func() (bool, error) {
		all, err := tc.pods("web")
		return len(setOf(before).gone(all)) == 2, err
	})
	tc.waitRunning("web", 2)

	var samples []sample
	evicted := map[string]string{"result": "success", "strategy": "RemovePodsViolatingNodeTaints",
		"profile": "removepodsviolatingnodetaints", "namespace": tc.name, "node": tc.nodeName("u1")}
	tc.eventually("descheduler_pods_evicted_total after the evictions", func() (bool, error) {
		code, body, err := httpsGet(port, "/metrics")
		if err != nil || code != http.StatusOK {
			return false, nil
		}
		samples = parseSamples(body)
		got := find(samples, "descheduler_pods_evicted_total", evicted)
		return len(got) == 1 && got[0].value == 2, nil
	})
	want := []string{"namespace", "node", "profile", "result", "strategy"}
	for _, s := range find(samples, "descheduler_pods_evicted_total", nil) {
		if got := labelNames(s); !slices.Equal(got, want) {
			t.Errorf("descheduler_pods_evicted_total labels %v, want upstream's %v", got, want)
		}
	}
	if got := find(samples, "descheduler_loop_duration_seconds_count", nil); len(got) != 1 || got[0].value < 1 {
		t.Errorf("descheduler_loop_duration_seconds_count = %v, want one series >= 1", got)
	}
	strategy := map[string]string{"strategy": "RemovePodsViolatingNodeTaints", "profile": "removepodsviolatingnodetaints"}
	if got := find(samples, "descheduler_strategy_duration_seconds_count", strategy); len(got) != 1 || got[0].value < 1 {
		t.Errorf("descheduler_strategy_duration_seconds_count%v = %v, want >= 1", strategy, got)
	}
	build := find(samples, "descheduler_build_info", nil)
	wantBuild := []string{"AppVersion", "DeschedulerVersion", "GitBranch", "GitSha1", "GoVersion"}
	if len(build) != 1 || !slices.Equal(labelNames(build[0]), wantBuild) || build[0].value != 1 {
		t.Errorf("descheduler_build_info = %v, want one series with upstream's labels %v", build, wantBuild)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15s after SIGTERM")
	}
	if code := p.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	tc.assertReleased(deployNamespace, defaultLeaseName)
}

// holderOf waits for the case's only descheduler to campaign and returns
// its identity from the log (--v=3 text logging).
func holderOf(t *testing.T, tc *tcase) string {
	t.Helper()
	var id string
	tc.eventually("the descheduler campaigning", func() (bool, error) {
		for _, r := range tc.liveLogs() {
			for _, line := range strings.Split(r, "\n") {
				if strings.Contains(line, `"`+msgCampaigning+`"`) {
					if m := identityRe.FindStringSubmatch(line); m != nil {
						id = m[1]
						return true, nil
					}
				}
			}
		}
		return false, nil
	})
	return id
}

// liveLogs returns the logs of the case's descheduler processes so far.
func (tc *tcase) liveLogs() []string {
	matches, _ := filepath.Glob(filepath.Join(suite.cluster.LogDir, "descheduler-"+tc.name+"-*.log"))
	var out []string
	for _, m := range matches {
		if data, err := os.ReadFile(m); err == nil {
			out = append(out, string(data))
		}
	}
	return out
}

// Upstream's chart as a CronJob passes --policy-config-file and the
// cmdOptions; with cmdOptions logging-format: json every line the one-shot
// run writes is a JSON object, and the evictions are among them.
func TestUpstreamChartOneShotJSONLogs(t *testing.T) {
	tc, policy := upstreamTaintsCase(t, "upstream-oneshot")
	p, _ := tc.startUpstream("chart-cronjob", "--policy-config-file="+policy, "--logging-format=json", "--v=3")
	select {
	case <-p.Done():
	case <-time.After(runTimeout):
		t.Fatalf("one-shot run still going after %s", runTimeout)
	}
	if code := p.ExitCode(); code != 0 {
		t.Fatalf("one-shot run exited %d, want 0", code)
	}
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	var evicted []string
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var entry struct {
			Msg string `json:"msg"`
			V   *int   `json:"v"`
			Pod struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"pod"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("log line is not JSON (%v): %s", err, line)
			continue
		}
		lines++
		if entry.Msg == msgEvicted && entry.Pod.Namespace == tc.name {
			evicted = append(evicted, entry.Pod.Name)
		}
	}
	if lines == 0 || len(evicted) != 2 {
		t.Errorf("%d JSON lines, evictions logged %v, want lines and 2 evictions of web", lines, evicted)
	}
}
