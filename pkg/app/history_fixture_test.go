package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// exampleHistoryFile is the bundled example history the documentation
// shows with `descheduler history --file`.
var exampleHistoryFile = filepath.Join("..", "..", "docs", "examples", "history.json")

func ptrTo[T any](v T) *T { return &v }

// evictionBuilder builds a snapshot.Eviction and its follow-up.
type evictionBuilder struct{ e snapshot.Eviction }

// evicted starts an eviction of namespace/pod from node by strategy at t,
// planned to relieve milliCPU millicores.
func evicted(t time.Time, strategy, namespace, pod, node string, milliCPU int64) *evictionBuilder {
	return &evictionBuilder{snapshot.Eviction{Time: t, Strategy: strategy, Namespace: namespace, Pod: pod, Node: node,
		MilliCPU: milliCPU, Memory: 512 << 20}}
}

// owner sets the pod's controller.
func (b *evictionBuilder) owner(kind, name string) *evictionBuilder {
	b.e.OwnerKind, b.e.OwnerName, b.e.OwnerUID = kind, name, types.UID("uid-"+kind+"-"+name)
	return b
}

// followed starts the follow-up: profile, cpu target and the source's
// usage when the eviction was planned (< 0: unknown).
func (b *evictionBuilder) followed(profile string, target, sourceBefore float64) *evictionBuilder {
	b.e.FollowUp = &snapshot.FollowUp{Profile: profile, Cycle: b.e.Time, Target: target}
	if sourceBefore >= 0 {
		b.e.FollowUp.SourceBefore = ptrTo(sourceBefore)
	}
	return b
}

// replaced records the replacement, Ready on node 30s after the eviction
// (node "": pending), where node's usage was destinationBefore.
func (b *evictionBuilder) replaced(replacement, node string, destinationBefore float64) *evictionBuilder {
	f := b.e.FollowUp
	f.Replacement, f.Destination = replacement, node
	if node != "" {
		f.ReplacementReady = b.e.Time.Add(30 * time.Second)
		f.DestinationBefore = ptrTo(destinationBefore)
	}
	return b
}

// judged records the outcome, one 5m window after the replacement became
// Ready (5m30s after the eviction), with both nodes' usage then (< 0:
// unknown) and the measured relief (nil: unknown).
func (b *evictionBuilder) judged(o string, sourceAfter, destinationAfter float64, measured *int64) *evictionBuilder {
	f := b.e.FollowUp
	f.Outcome, f.Judged, f.MeasuredMilliCPU = o, b.e.Time.Add(5*time.Minute+30*time.Second), measured
	if sourceAfter >= 0 {
		f.SourceAfter = ptrTo(sourceAfter)
	}
	if destinationAfter >= 0 {
		f.DestinationAfter = ptrTo(destinationAfter)
	}
	return b
}

func (b *evictionBuilder) obj() snapshot.Eviction { return b.e }

// exampleHistory is docs/examples/history.json: LowNodeUtilization's
// usage evictions on the nodes of deploy/examples/hotspot-cluster.yaml
// (8 cpus each, so 1% is 80m) under hotspot-metrics-server.yaml (target
// 70%). The cycle at 12:00 is the one `simulate --cycles` plans for the
// example; the others are made up to show each outcome.
func exampleHistory() []snapshot.Eviction {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lnu := func(at time.Duration, pod, node string, milliCPU int64) *evictionBuilder {
		return evicted(day.Add(at), "LowNodeUtilization", "shop", pod, node, milliCPU).
			owner("ReplicaSet", "checkout-6b8").followed("hotspots", 70, map[string]float64{
			"hot-node-1": 88, "hot-node-2": 76.1, "hot-node-3": 79.5, "hot-node-4": 74.4}[node])
	}
	return []snapshot.Eviction{
		// hot-node-1 fell from 88% to 60.7%: 27.3% = 2184m, shared 1149:1139
		// between the two evictions (1097m and 1087m), as simulated.
		lnu(12*time.Hour, "checkout-1-5", "hot-node-1", 1149).replaced("checkout-6b8-9d67k", "hot-node-7", 34.8).
			judged(outcome.Relieved, 60.7, 49.2, ptrTo[int64](1097)).obj(),
		lnu(12*time.Hour, "checkout-1-4", "hot-node-1", 1139).replaced("checkout-6b8-84dsl", "hot-node-5", 34.9).
			judged(outcome.Relieved, 60.7, 49.1, ptrTo[int64](1087)).obj(),
		// hot-node-3 fell from 79.5% to 66%: 13.5% = 1080m, shared 1020:980
		// (551m and 529m); hot-node-2 went from 64.8% to 72.6%, over the
		// target: destination_hot.
		lnu(13*time.Hour+10*time.Minute, "checkout-3-2", "hot-node-3", 1020).replaced("checkout-6b8-q7wzp", "hot-node-6", 41.3).
			judged(outcome.Relieved, 66, 53.8, ptrTo[int64](551)).obj(),
		lnu(13*time.Hour+10*time.Minute, "checkout-3-7", "hot-node-3", 980).replaced("checkout-6b8-m2xrt", "hot-node-2", 64.8).
			judged(outcome.DestinationHot, 66, 72.6, ptrTo[int64](529)).obj(),
		// hot-node-2 fell from 76.1% to 72.9%: 256m of the 720m planned,
		// still over the target.
		lnu(14*time.Hour+20*time.Minute, "checkout-2-1", "hot-node-2", 720).replaced("checkout-6b8-5gk8d", "hot-node-8", 38.2).
			judged(outcome.PartlyRelieved, 72.9, 46.9, ptrTo[int64](256)).obj(),
		// Still followed: the replacement is Ready, the window not refreshed.
		lnu(15*time.Hour+30*time.Minute, "checkout-4-0", "hot-node-4", 890).replaced("checkout-6b8-hx9vn", "hot-node-8", 47).obj(),
	}
}

// mixedHistoryNow is the clock of the tests reading mixedHistory.
var mixedHistoryNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mixedHistory has every kind of row: each outcome, open follow-ups with
// and without a replacement, and evictions that are not followed.
func mixedHistory() []snapshot.Eviction {
	at := func(hour, minute int) time.Time { return time.Date(2026, 3, 1, hour, minute, 0, 0, time.UTC) }
	lnu := func(t time.Time, pod string, milliCPU int64) *evictionBuilder {
		return evicted(t, "LowNodeUtilization", "web", pod, "n1", milliCPU).owner("ReplicaSet", "api-7d9").
			followed("default", 70, 85)
	}
	return []snapshot.Eviction{
		// Listed out of order: the output is oldest first.
		evicted(at(11, 55), "RemovePodsHavingTooManyRestarts", "web", "crashy", "n4", 100).obj(),
		lnu(at(9, 0), "api-7d9-a", 500).replaced("api-7d9-x1", "n3", 30).
			judged(outcome.Relieved, 66, 36, ptrTo[int64](480)).obj(),
		lnu(at(9, 0), "api-7d9-b", 450).replaced("api-7d9-x2", "n2", 62).
			judged(outcome.DestinationHot, 66, 71.5, ptrTo[int64](300)).obj(),
		evicted(at(10, 0), "RemoveDuplicates", "web", "dup-1", "n2", 200).owner("ReplicaSet", "dup").obj(),
		// The node's other load grew: a negative measured relief.
		evicted(at(10, 30), "HighNodeUtilization", "batch", "worker-0", "n4", 250).owner("StatefulSet", "worker").
			followed("packing", 20, 18).replaced("worker-0", "n2", 55).
			judged(outcome.NotRelieved, 18.5, 58, ptrTo[int64](-40)).obj(),
		lnu(at(11, 0), "api-7d9-c", 400).replaced("api-7d9-x3", "", 0).
			judged(outcome.ReplacementPending, 71, -1, nil).obj(),
		lnu(at(11, 0), "api-7d9-d", 380).replaced("api-7d9-x4", "n3", 40).
			judged(outcome.Unknown, -1, 45, nil).obj(),
		lnu(at(11, 40), "api-7d9-e", 420).replaced("api-7d9-x5", "n3", 44).obj(),
		lnu(at(11, 50), "api-7d9-f", 410).obj(),
	}
}

// TestExampleHistoryFile: docs/examples/history.json is exampleHistory as
// descheduler.EncodeHistory writes it (-update rewrites it).
func TestExampleHistoryFile(t *testing.T) {
	data, _, err := descheduler.EncodeHistory(exampleHistory(), nil, descheduler.DefaultHistoryMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(exampleHistoryFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(exampleHistoryFile)
	if err != nil {
		t.Fatalf("reading %s (run go test ./pkg/app -update): %v", exampleHistoryFile, err)
	}
	if string(data) != string(want) {
		t.Errorf("%s is not the encoding of exampleHistory; rerun with -update if intended", exampleHistoryFile)
	}
}
