package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// evictorPolicy: PodLifeTime evicts every pod older than an hour, unless
// the DefaultEvictor keeps it: PodsWithPVC limited to storage class fast,
// and only namespaces labelled team=a.
const evictorPolicy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: p
    pluginConfig:
      - name: DefaultEvictor
        args:
          namespaceLabelSelector: {matchLabels: {team: a}}
          podProtections:
            extraEnabled: [PodsWithPVC]
            config:
              PodsWithPVC:
                protectedStorageClasses: [{name: fast}]
      - name: PodLifeTime
        args: {maxPodLifeTimeSeconds: 3600}
    plugins:
      deschedule:
        enabled: [PodLifeTime]
`

// TestSimulateDefaultEvictorPodProtections runs simulate on a snapshot
// file with PersistentVolumeClaims and labelled Namespaces: the claims and
// the namespace labels reach the DefaultEvictor through the file loader.
func TestSimulateDefaultEvictorPodProtections(t *testing.T) {
	old := t0.Add(-2 * time.Hour)
	pod := func(ns, name string) *builders.PodBuilder {
		return builders.MakePod(ns, name).Node("n1").OwnedBy("ReplicaSet", "rs").Created(old).Started(old)
	}
	objs := snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Namespaces: []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"team": "a"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: map[string]string{"team": "b"}}}},
		PersistentVolumeClaims: []*v1.PersistentVolumeClaim{builders.MakePVC("a", "fast").StorageClass("fast").Obj(),
			builders.MakePVC("a", "slow").StorageClass("slow").Obj(), builders.MakePVC("b", "slow").StorageClass("slow").Obj()},
		Pods: []*v1.Pod{
			pod("a", "on-fast").PVC("fast").Obj(),    // protected: class fast
			pod("a", "on-slow").PVC("slow").Obj(),    // evicted: class slow is not protected
			pod("a", "on-missing").PVC("gone").Obj(), // protected: the claim is not in the snapshot
			pod("a", "no-claim").Obj(),               // evicted
			pod("b", "other-team").PVC("slow").Obj(), // kept: namespace b is not team=a
		},
	}
	dir := t.TempDir()
	snap, policy := filepath.Join(dir, "snap.json"), filepath.Join(dir, "policy.yaml")
	if err := snapshot.WriteFile(snap, objs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(policy, []byte(evictorPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "simulate", "--policy", policy, "--snapshot", snap, "--now", t0.Format(time.RFC3339), "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatalf("simulate output: %v", err)
	}
	var got []string
	for _, e := range sim.Evictions {
		got = append(got, e.Pod)
	}
	slices.Sort(got)
	if want := []string{"a/no-claim", "a/on-slow"}; !slices.Equal(got, want) {
		t.Errorf("evicted %v, want %v", got, want)
	}
}
