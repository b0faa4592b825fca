package app

import (
	"runtime/debug"
	"testing"
	"testing/fstest"
)

func TestMemoryLimitDefault(t *testing.T) {
	file := func(name, data string) fstest.MapFS { return fstest.MapFS{name: {Data: []byte(data)}} }
	cases := []struct {
		name           string
		env            string
		root           fstest.MapFS
		wantGo, wantCg int64
		wantErr        bool
	}{
		// 1 GiB = 1073741824; 90% = 966367641.6, truncated.
		{name: "cgroup v2 limit", root: file(cgroupV2MemoryMax, "1073741824\n"), wantGo: 966367641, wantCg: 1 << 30},
		{name: "cgroup v2 no limit", root: file(cgroupV2MemoryMax, "max\n")},
		// 2 GiB = 2147483648; 90% = 1932735283.2.
		{name: "cgroup v1 limit", root: file(cgroupV1MemoryLimit, "2147483648\n"), wantGo: 1932735283, wantCg: 2 << 30},
		{name: "cgroup v1 unlimited", root: file(cgroupV1MemoryLimit, "9223372036854771712\n")},
		{name: "no cgroup files", root: fstest.MapFS{}},
		{name: "GOMEMLIMIT set wins", env: "800MiB", root: file(cgroupV2MemoryMax, "1073741824\n")},
		{name: "GOMEMLIMIT=off wins", env: "off", root: file(cgroupV2MemoryMax, "1073741824\n")},
		{name: "garbage", root: file(cgroupV2MemoryMax, "lots\n"), wantErr: true},
		{name: "zero", root: file(cgroupV2MemoryMax, "0\n"), wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.env
				}
				return ""
			}
			gotGo, gotCg, err := memoryLimitDefault(getenv, tc.root)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if gotGo != tc.wantGo || gotCg != tc.wantCg {
				t.Errorf("memoryLimitDefault = %d, %d; want %d, %d", gotGo, gotCg, tc.wantGo, tc.wantCg)
			}
		})
	}
}

// TestCollectHarderWhileSyncing: with GOGC unset the initial sync runs at
// syncGCPercent and the previous setting (here 120) comes back after it;
// with GOGC set nothing changes.
func TestCollectHarderWhileSyncing(t *testing.T) {
	orig := debug.SetGCPercent(120)
	defer debug.SetGCPercent(orig)
	restore := collectHarderWhileSyncing(func(string) string { return "" })
	if during := debug.SetGCPercent(syncGCPercent); during != syncGCPercent {
		t.Errorf("GOGC unset: %d%% during the sync, want %d%%", during, syncGCPercent)
	}
	restore()
	if after := debug.SetGCPercent(120); after != 120 {
		t.Errorf("GOGC unset: %d%% after the sync, want 120%% back", after)
	}
	restore = collectHarderWhileSyncing(func(k string) string { return map[string]string{"GOGC": "200"}[k] })
	if during := debug.SetGCPercent(120); during != 120 {
		t.Errorf("GOGC set: %d%% during the sync, want it untouched (120%%)", during)
	}
	restore()
	if after := debug.SetGCPercent(120); after != 120 {
		t.Errorf("GOGC set: %d%% after the sync, want 120%%", after)
	}
}
