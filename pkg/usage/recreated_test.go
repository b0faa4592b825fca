package usage

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// A StatefulSet pod recreated with the same name does not inherit its
// predecessor's samples: the series (keyed by namespace/name, as
// metrics-server, Prometheus and snapshot files key them) counts only from
// the pod's creation. The predecessor used 2000m and 4Gi at 300s, 240s,
// 180s and 120s ago; the current pod uses 100m and 1Gi.
func TestRecreatedPodDoesNotInheritSamples(t *testing.T) {
	old := series(2000, 4*gi, 300, 240, 180, 120)
	tests := []struct {
		name    string
		created time.Duration // before now; 0: no creationTimestamp (a hand-written file)
		own     []int         // ages (s) of the current pod's samples
		want    PodUsage
	}{{
		// Created 90s ago, samples at 60s, 30s and 0s: mean 100m, 1Gi.
		name: "recreated 90s ago: its own three samples", created: 90 * time.Second, own: []int{60, 30, 0},
		want: PodUsage{MilliCPU: 100, Memory: gi, Known: true, State: window.StateOK, Samples: 3},
	}, {
		// Created 30s ago, one sample: stale (minSamples 3), not the
		// predecessor's 2000m.
		name: "recreated 30s ago: one sample is too few", created: 30 * time.Second, own: []int{0},
		want: PodUsage{MilliCPU: Unknown, Memory: Unknown, State: window.StateStale, Samples: 1,
			Reason: "1 samples in the last 5m0s, fewer than minSamples 3"},
	}, {
		// Created 10s ago, no sample yet: missing.
		name: "recreated 10s ago: no sample of its own", created: 10 * time.Second,
		want: PodUsage{MilliCPU: Unknown, Memory: Unknown, State: window.StateMissing,
			Reason: "no samples in the last 5m0s"},
	}, {
		// No creation time: every sample in the window counts,
		// (4 x 2000 + 3 x 100) / 7 = 1185.7 -> 1186m; (16 + 3) / 7 Gi = 2914442093.7 -> 2914442094 bytes.
		name: "no creationTimestamp: the whole window", own: []int{60, 30, 0},
		want: PodUsage{MilliCPU: 1186, Memory: 2914442094, Known: true, State: window.StateOK, Samples: 7},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := builders.MakePod("db", "db-0").Node("n1")
			if tc.created > 0 {
				b.Created(now.Add(-tc.created))
			}
			p := b.Obj()
			objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, Pods: []*v1.Pod{p},
				PodMetrics: map[types.NamespacedName]snapshot.Series{pod("db", "db-0"): concat(old, series(100, gi, tc.own...))}}
			snap, err := snapshot.New(objs, snapshot.Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if got := Compute(snap, cfg).Pod(p); got != tc.want {
				t.Errorf("db-0 = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The live path: the collectors' store keys pod series by namespace/name
// (metrics-server PodMetrics and Prometheus' namespace/pod labels carry no
// UID), so its export holds both pods' samples under db/db-0; the cycle's
// snapshot holds the current pod, and only its samples count. Polls every
// 15s: the predecessor at 2000m from 300s to 120s ago (13 samples), the
// current pod (created 60s ago) at 100m from 45s ago to now (4 samples).
func TestRecreatedPodLivePath(t *testing.T) {
	store, err := window.NewStore(5*time.Minute, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	key := pod("db", "db-0")
	var b window.Batch
	for age := 300; age >= 0; age -= 15 {
		cpu := int64(2000)
		switch {
		case age <= 45:
			cpu = 100
		case age < 120:
			continue // neither pod running
		}
		b.Pods = append(b.Pods, window.PodSample{Pod: key,
			Sample: snapshot.Sample{Time: now.Add(-time.Duration(age) * time.Second), MilliCPU: cpu, Memory: gi}})
	}
	store.Ingest(now, &b)
	exp := store.Export(now)
	if n := len(exp.Pods[key]); n != 17 {
		t.Fatalf("exported %d samples of db/db-0, want 13 + 4 = 17", n)
	}
	p := builders.MakePod("db", "db-0").Node("n1").Created(now.Add(-time.Minute)).Obj()
	snap, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, Pods: []*v1.Pod{p},
		PodMetrics: exp.Pods}, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := PodUsage{MilliCPU: 100, Memory: gi, Known: true, State: window.StateOK, Samples: 4}
	if got := Compute(snap, cfg).Pod(p); got != want {
		t.Errorf("db-0 = %+v, want %+v", got, want)
	}
}
