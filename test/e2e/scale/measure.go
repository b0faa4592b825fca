package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memStatus are the memory fields of /proc/PID/status, in KiB.
type memStatus struct {
	rssKiB, hwmKiB int64
}

// parseStatus reads VmRSS and VmHWM from the text of /proc/PID/status.
func parseStatus(text string) (memStatus, error) {
	var m memStatus
	found := 0
	for _, line := range strings.Split(text, "\n") {
		key, rest, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return m, fmt.Errorf("unexpected %s line %q", key, line)
		}
		v, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("parsing %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.rssKiB = v
		} else {
			m.hwmKiB = v
		}
		found++
	}
	if found != 2 {
		return m, fmt.Errorf("VmRSS or VmHWM missing in %d lines", strings.Count(text, "\n"))
	}
	return m, nil
}

func readStatus(pid int) (memStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	return parseStatus(string(data))
}

// parseCPUTicks returns utime+stime (fields 14 and 15) of /proc/PID/stat;
// the command name (field 2) may hold spaces, so fields count from its ')'.
func parseCPUTicks(stat string) (int64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no ')' in %q", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parsing utime/stime %q %q", f[11], f[12])
	}
	return u + s, nil
}

// cpuSeconds is the process's user+system CPU time (USER_HZ is 100 on Linux).
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	t, err := parseCPUTicks(string(data))
	return float64(t) / 100, err
}

// sampler polls a process's memory and CPU time every interval and keeps
// the memory peaks and every CPU sample.
type sampler struct {
	mu       sync.Mutex
	peakRSS  int64      // KiB, highest VmRSS seen
	peakHWM  int64      // KiB, highest VmHWM seen (the kernel's own peak)
	cpus     []cpuPoint // every CPU sample, oldest first
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

func startSampler(pid int, interval time.Duration) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.sample(pid)
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample(pid int) {
	m, err := readStatus(pid)
	if err != nil {
		return // the process is gone; the peaks so far stand
	}
	cpu, cpuErr := cpuSeconds(pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peakRSS = max(s.peakRSS, m.rssKiB)
	s.peakHWM = max(s.peakHWM, m.hwmKiB)
	if cpuErr == nil {
		s.cpus = append(s.cpus, cpuPoint{at: time.Now(), cpu: cpu})
	}
}

// timeline returns the CPU samples taken so far, oldest first.
func (s *sampler) timeline() []cpuPoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]cpuPoint(nil), s.cpus...)
}

// finish stops sampling (after one last sample) and returns the peaks in
// MiB and the last CPU seconds.
func (s *sampler) finish() (peakRSSMiB, peakHWMMiB, cpu float64) {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cpus) > 0 {
		cpu = s.cpus[len(s.cpus)-1].cpu
	}
	return float64(s.peakRSS) / 1024, float64(s.peakHWM) / 1024, cpu
}

// cycle is one "Cycle finished" line of the descheduler's log.
type cycle struct {
	at         time.Time
	duration   time.Duration
	afterUsage bool // LowNodeUtilization found an overutilized node in it or an earlier cycle
	attempted  int  // evictions attempted (dry run: planned)
}

var (
	klogHeader  = regexp.MustCompile(`^[IWE](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})`)
	durationKV  = regexp.MustCompile(`\bduration="?([0-9.]+[a-zµ]+)"?`)
	attemptedKV = regexp.MustCompile(`\battempted=([0-9]+)`)
	msgCycle    = `"Cycle finished"`
	msgClassify = `"Nodes classified"`
	lnuHot      = regexp.MustCompile(`strategy="LowNodeUtilization".* overutilized=([0-9]+)`)
)

// hotNodesFound reports whether line is LowNodeUtilization's "Nodes
// classified" with at least one overutilized node: from that cycle on the
// strategy plans evictions, the full cost of a cycle.
func hotNodesFound(line string) bool {
	if !strings.Contains(line, msgClassify) {
		return false
	}
	m := lnuHot.FindStringSubmatch(line)
	return m != nil && m[1] != "0"
}

// parseCycles returns the cycles of a klog text log; year and location
// complete klog's "mmdd hh:mm:ss.uuuuuu" header.
func parseCycles(logText string, year int, loc *time.Location) ([]cycle, error) {
	var cycles []cycle
	usage := false
	sc := bufio.NewScanner(strings.NewReader(logText))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if hotNodesFound(line) {
			usage = true
		}
		if !strings.Contains(line, msgCycle) {
			continue
		}
		h := klogHeader.FindStringSubmatch(line)
		d := durationKV.FindStringSubmatch(line)
		if h == nil || d == nil {
			return nil, fmt.Errorf("cycle line without a klog header or duration: %q", line)
		}
		at, err := time.ParseInLocation("2006 0102 15:04:05.000000", strconv.Itoa(year)+" "+h[1], loc)
		if err != nil {
			return nil, fmt.Errorf("parsing the time of %q: %w", line, err)
		}
		dur, err := time.ParseDuration(d[1])
		if err != nil {
			return nil, fmt.Errorf("parsing the duration of %q: %w", line, err)
		}
		c := cycle{at: at, duration: dur, afterUsage: usage}
		if a := attemptedKV.FindStringSubmatch(line); a != nil {
			c.attempted, _ = strconv.Atoi(a[1])
		}
		cycles = append(cycles, c)
	}
	return cycles, sc.Err()
}

// percentile returns the p-th percentile (0-100, nearest rank) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// requestCounts sums the series of metric (apiserver_request_total, or the
// gauge apiserver_longrunning_requests) of a Prometheus text exposition
// with the given verb by "group/resource" (group empty for core).
func requestCounts(text, metric, verb string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, metric+"{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		labels := parseLabels(line[len(metric)+1 : end])
		if labels["verb"] != verb {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil {
			continue
		}
		out[labels["group"]+"/"+labels["resource"]] += v
	}
	return out
}

// parseLabels parses `a="x",b="y"` (values without escaped quotes, as the
// API server's labels are).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		k, rest, ok := strings.Cut(s, `="`)
		if !ok {
			break
		}
		v, rest, _ := strings.Cut(rest, `"`)
		out[k] = v
		s = strings.TrimPrefix(rest, ",")
	}
	return out
}

// diffCounts returns after-before per key, keeping positive differences.
func diffCounts(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// formatCounts prints "total (k1 n1, k2 n2)" with keys sorted.
func formatCounts(c map[string]float64) string {
	keys := make([]string, 0, len(c))
	total := 0.0
	for k, v := range c {
		keys = append(keys, k)
		total += v
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, c[k]))
	}
	return fmt.Sprintf("%.0f (%s)", total, strings.Join(parts, ", "))
}
