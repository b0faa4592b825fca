package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
)

// The cgroup files that hold the container's memory limit, relative to
// the filesystem root: cgroup v2, then v1.
const (
	cgroupV2MemoryMax   = "sys/fs/cgroup/memory.max"
	cgroupV1MemoryLimit = "sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// cgroupV1Unlimited: cgroup v1 reports "no limit" as the largest page
// multiple below 2^63; any value from 2^62 up is taken as no limit.
const cgroupV1Unlimited = int64(1) << 62

// memoryLimitShare is the part of the container's memory limit given to
// the Go runtime as its soft memory limit, leaving room for memory the
// runtime does not count (stacks of cgo threads, the binary, page cache
// charged to the container).
const memoryLimitShare = 0.9

// cgroupMemoryLimit returns the memory limit of the cgroup the process runs
// in, read from root (os.DirFS("/") live): cgroup v2's memory.max, else
// cgroup v1's memory.limit_in_bytes. ok is false when neither file exists
// or the limit is "max" (v2) or unlimited (v1).
func cgroupMemoryLimit(root fs.FS) (limit int64, ok bool, err error) {
	for _, name := range []string{cgroupV2MemoryMax, cgroupV1MemoryLimit} {
		data, err := fs.ReadFile(root, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false, fmt.Errorf("reading /%s: %w", name, err)
		}
		s := strings.TrimSpace(string(data))
		if s == "max" {
			return 0, false, nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v <= 0 {
			return 0, false, fmt.Errorf("/%s: %q is not a memory limit in bytes", name, s)
		}
		if v >= cgroupV1Unlimited {
			return 0, false, nil
		}
		return v, true, nil
	}
	return 0, false, nil
}

// memoryLimitDefault decides the Go memory limit: none (0) when GOMEMLIMIT
// is set (the runtime applies it; GOMEMLIMIT=off disables any limit) or
// the container has no memory limit, else memoryLimitShare of the limit.
func memoryLimitDefault(getenv func(string) string, root fs.FS) (goLimit, cgroupLimit int64, err error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, 0, nil
	}
	limit, ok, err := cgroupMemoryLimit(root)
	if err != nil || !ok {
		return 0, 0, err
	}
	return int64(float64(limit) * memoryLimitShare), limit, nil
}

// setDefaultMemoryLimit sets the Go runtime's soft memory limit to 90% of
// the container's cgroup memory limit unless GOMEMLIMIT is set, and logs
// what it did; a limit that cannot be read is logged and ignored.
func setDefaultMemoryLimit(ctx context.Context) {
	logger := klog.FromContext(ctx)
	goLimit, cgroupLimit, err := memoryLimitDefault(os.Getenv, os.DirFS("/"))
	switch {
	case err != nil:
		logger.Error(err, "Not setting the Go memory limit from the container's memory limit")
	case goLimit > 0:
		debug.SetMemoryLimit(goLimit)
		logger.Info("Set the Go memory limit from the container's memory limit (GOMEMLIMIT unset; GOMEMLIMIT=off disables it)",
			"containerLimitBytes", cgroupLimit, "goMemLimitBytes", goLimit)
	}
}

// syncGCPercent is the Go collector's target heap growth (GOGC) while the
// informer caches fill for the first time. Everything decoded then is
// garbage as soon as the informer transform has trimmed it, so at the
// default 100% the heap grows to about twice the trimmed cache before a
// collection: the process's peak memory at 5,000 nodes came from the
// start-up, not from the cycles (docs/benchmarks.md, "Live 5,000 nodes").
const syncGCPercent = 50

// collectHarderWhileSyncing sets GOGC to syncGCPercent for the initial
// cache sync unless GOGC is set, and returns what restores the previous
// setting and collects the start-up's garbage.
func collectHarderWhileSyncing(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(syncGCPercent)
	return func() {
		debug.SetGCPercent(prev)
		runtime.GC()
	}
}
