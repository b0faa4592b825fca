package evictor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func i32(v int32) *int32 { return &v }

// rsPod is a Running pod on n1 owned by ReplicaSet rs: it passes every rule
// under the default args.
func rsPod(name string) *builders.PodBuilder {
	return builders.MakePod("default", name).Node("n1").OwnedBy("ReplicaSet", "rs")
}

func mustSnapshot(t *testing.T, objs snapshot.Objects) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatalf("snapshot.New: %v", err)
	}
	return s
}

func mustNew(t *testing.T, args DefaultEvictorArgs, snap *snapshot.Snapshot) *DefaultEvictor {
	t.Helper()
	args.Default()
	if errs := args.Validate(nil); len(errs) > 0 {
		t.Fatalf("invalid test args: %v", errs.ToAggregate())
	}
	ev, err := New(&args, snap)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return ev
}

// Reason texts, to keep the table readable.
const (
	whyTerminating = "pod is terminating"
	whyMirror      = "pod is a mirror pod"
	whyStatic      = "pod is a static pod"
	whyDaemonSet   = "pod is owned by a DaemonSet (protection DaemonSetPods)"
	whyNoOwner     = "pod has no owner references and is not Failed"
	whyFailedBare  = "pod is Failed and has no owner references (protection FailedBarePods)"
	whyLocal       = "pod has local storage, hostPath or emptyDir (protection PodsWithLocalStorage)"
	whyPVCData     = `pod mounts PersistentVolumeClaim "data" (protection PodsWithPVC)`
	whyNoEviction  = "pod has the descheduler.alpha.kubernetes.io/prefer-no-eviction annotation and noEvictionPolicy is Mandatory"
	whyClaims      = "pod has resource claims (protection PodsWithResourceClaims)"
	whyNoPDB       = "no PodDisruptionBudget selects the pod (protection PodsWithoutPDB)"
)

// whyPriority is the priority rule's reason.
func whyPriority(priority, threshold int32) string {
	return fmt.Sprintf("pod priority %d >= threshold %d (protection SystemCriticalPods)", priority, threshold)
}

func TestFilterRules(t *testing.T) {
	snap := mustSnapshot(t, snapshot.Objects{
		Nodes:           []*v1.Node{builders.MakeNode("n1").Obj()},
		PriorityClasses: []*schedulingv1.PriorityClass{builders.MakePriorityClass("batch-high", 500)},
	})
	tests := []struct {
		name string
		args DefaultEvictorArgs
		pod  *v1.Pod
		// want are the Explain reasons; none means Filter lets the pod through.
		want []string
	}{
		{name: "ReplicaSet pod passes", pod: rsPod("p").Obj()},
		{name: "DaemonSet pod", pod: builders.MakePod("default", "p").OwnedBy("DaemonSet", "ds").Obj(), want: []string{whyDaemonSet}},
		{name: "DaemonSet pod with evictDaemonSetPods", args: DefaultEvictorArgs{EvictDaemonSetPods: true},
			pod: builders.MakePod("default", "p").OwnedBy("DaemonSet", "ds").Obj()},
		{name: "mirror pod", pod: builders.MakePod("kube-system", "etcd").OwnedBy("Node", "n1").Mirror().Obj(), want: []string{whyMirror}},
		{name: "static pod (config.source file)", pod: builders.MakePod("kube-system", "api").OwnedBy("Node", "n1").
			Annotation(ConfigSourceAnnotationKey, "file").Obj(), want: []string{whyStatic}},
		{name: "config.source api is not static", pod: rsPod("p").Annotation(ConfigSourceAnnotationKey, "api").Obj()},
		{name: "terminating pod", pod: rsPod("p").Terminating(now).Obj(), want: []string{whyTerminating}},
		{name: "bare running pod", pod: builders.MakePod("default", "p").Obj(), want: []string{whyNoOwner}},
		{name: "bare failed pod without evictFailedBarePods", pod: builders.MakePod("default", "p").Phase(v1.PodFailed).Obj(),
			want: []string{whyFailedBare}},
		{name: "bare failed pod with evictFailedBarePods", args: DefaultEvictorArgs{EvictFailedBarePods: true},
			pod: builders.MakePod("default", "p").Phase(v1.PodFailed).Obj()},
		{name: "bare running pod with evictFailedBarePods", args: DefaultEvictorArgs{EvictFailedBarePods: true},
			pod: builders.MakePod("default", "p").Obj(), want: []string{whyNoOwner}},
		{name: "emptyDir", pod: rsPod("p").EmptyDir("cache").Obj(), want: []string{whyLocal}},
		{name: "emptyDir medium Memory", pod: rsPod("p").EmptyDirMemory("shm").Obj(), want: []string{whyLocal}},
		{name: "hostPath", pod: rsPod("p").HostPath("logs", "/var/log").Obj(), want: []string{whyLocal}},
		{name: "local storage with evictLocalStoragePods", args: DefaultEvictorArgs{EvictLocalStoragePods: true},
			pod: rsPod("p").EmptyDir("cache").HostPath("logs", "/var/log").Obj()},
		{name: "PVC pod by default", pod: rsPod("p").PVC("data").Obj()},
		{name: "PVC pod with ignorePvcPods", args: DefaultEvictorArgs{IgnorePvcPods: true}, pod: rsPod("p").PVC("data").Obj(), want: []string{whyPVCData}},
		// Upstream counts only persistentVolumeClaim volumes: a generic
		// ephemeral volume's claim lives and dies with the pod.
		{name: "generic ephemeral volume with ignorePvcPods is not protected", args: DefaultEvictorArgs{IgnorePvcPods: true},
			pod: rsPod("p").EphemeralVolume("scratch").Obj()},
		// Default threshold: system-cluster-critical, 2000000000.
		{name: "system-cluster-critical priority protected by default", pod: rsPod("p").Priority(2000000000, "system-cluster-critical").Obj(),
			want: []string{whyPriority(2000000000, 2000000000)}},
		{name: "system-node-critical priority protected by default", pod: rsPod("p").Priority(2000001000, "system-node-critical").Obj(),
			want: []string{whyPriority(2000001000, 2000000000)}},
		{name: "just below system-cluster-critical passes", pod: rsPod("p").Priority(1999999999, "").Obj()},
		{name: "threshold value: equal priority protected", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(1000)}},
			pod: rsPod("p").Priority(1000, "").Obj(), want: []string{whyPriority(1000, 1000)}},
		{name: "threshold value: lower priority passes", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(1000)}},
			pod: rsPod("p").Priority(999, "").Obj()},
		{name: "threshold value: no priority passes", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(1000)}},
			pod: rsPod("p").Obj()},
		// Upstream: a pod without spec.priority is never protected by priority.
		{name: "threshold value 0: no priority still passes", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(0)}},
			pod: rsPod("p").Obj()},
		{name: "threshold value 0: priority 0 is protected", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(0)}},
			pod: rsPod("p").Priority(0, "").Obj(), want: []string{whyPriority(0, 0)}},
		{name: "negative threshold protects priority 0", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(-10)}},
			pod: rsPod("p").Priority(0, "").Obj(), want: []string{whyPriority(0, -10)}},
		{name: "threshold above system-critical still protects system-critical pods",
			args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(2100000000)}},
			pod:  rsPod("p").Priority(2000000000, "").Obj(), want: []string{whyPriority(2000000000, 2000000000)}},
		{name: "threshold by class name (batch-high = 500): 500 protected",
			args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "batch-high"}},
			pod:  rsPod("p").Priority(500, "batch-high").Obj(), want: []string{whyPriority(500, 500)}},
		{name: "threshold by class name (batch-high = 500): 499 passes",
			args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "batch-high"}},
			pod:  rsPod("p").Priority(499, "").Obj()},
		{name: "evictSystemCriticalPods lets system-node-critical through", args: DefaultEvictorArgs{EvictSystemCriticalPods: true},
			pod: rsPod("p").Priority(2000001000, "system-node-critical").Obj()},
		{name: "evictSystemCriticalPods disables the configured threshold too",
			args: DefaultEvictorArgs{EvictSystemCriticalPods: true, PriorityThreshold: &api.PriorityThreshold{Value: i32(10)}},
			pod:  rsPod("p").Priority(5000, "").Obj()},
		{name: "labelSelector matches", args: DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			pod: rsPod("p").Label("app", "web").Obj()},
		{name: "labelSelector does not match", args: DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			pod: rsPod("p").Label("app", "db").Obj(), want: []string{`pod labels do not match labelSelector "app=web"`}},
		{name: "labelSelector expression NotIn", args: DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"prod"}}}}},
			pod: rsPod("p").Label("env", "prod").Obj(), want: []string{`pod labels do not match labelSelector "env notin (prod)"`}},
		{name: "empty labelSelector selects every pod", args: DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{}}, pod: rsPod("p").Obj()},
		{name: "every failing rule is reported, in order",
			pod:  builders.MakePod("kube-system", "p").OwnedBy("DaemonSet", "ds").Terminating(now).Priority(2000001000, "").EmptyDir("x").Obj(),
			want: []string{whyTerminating, whyDaemonSet, whyPriority(2000001000, 2000000000), whyLocal}},
		{name: "evict annotation overrides every rule",
			args: DefaultEvictorArgs{IgnorePvcPods: true, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			pod: builders.MakePod("kube-system", "p").OwnedBy("DaemonSet", "ds").Mirror().Terminating(now).Priority(2000001000, "").
				EmptyDir("x").PVC("data").Annotation(EvictAnnotationKey, "").Obj()},
		{name: "evict annotation on a bare pod", pod: builders.MakePod("default", "p").Annotation(EvictAnnotationKey, "true").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mustNew(t, tt.args, snap)
			got := ev.Explain(tt.pod)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Explain = %q, want %q", got, tt.want)
			}
			if ok := ev.Filter(tt.pod); ok != (len(tt.want) == 0) {
				t.Errorf("Filter = %v, want %v", ok, len(tt.want) == 0)
			}
		})
	}
}

func TestFilterMinReplicas(t *testing.T) {
	// ReplicaSet "two" has 2 pods (n1, n2) plus "shared", which has a
	// second owner reference and so is counted for "two" (3) but never
	// checked; "three" has 3 (n1, n2 and one pending); "orphan" is only a
	// non-controller owner reference (1 pod).
	pods := []*v1.Pod{
		builders.MakePod("default", "two-a").Node("n1").OwnedBy("ReplicaSet", "two").Obj(),
		builders.MakePod("default", "two-b").Node("n2").OwnedBy("ReplicaSet", "two").Obj(),
		builders.MakePod("default", "three-a").Node("n1").OwnedBy("ReplicaSet", "three").Obj(),
		builders.MakePod("default", "three-b").Node("n2").OwnedBy("ReplicaSet", "three").Obj(),
		builders.MakePod("default", "three-c").OwnedBy("ReplicaSet", "three").Obj(),
		builders.MakePod("default", "loose").Node("n1").OwnerRef("ReplicaSet", "orphan").Obj(),
		builders.MakePod("default", "shared").Node("n1").OwnedBy("ReplicaSet", "two").OwnerRef("ConfigMap", "x").Obj(),
	}
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()}, Pods: pods})
	tests := []struct {
		name        string
		minReplicas uint
		pod         *v1.Pod
		want        []string
	}{
		{name: "3 pods (one with two owners) >= minReplicas 3", minReplicas: 3, pod: pods[0]},
		{name: "3 pods < minReplicas 4 (two-a)", minReplicas: 4, pod: pods[0], want: []string{"owner has 3 pods < minReplicas 4"}},
		{name: "3 pods (one pending) >= minReplicas 3", minReplicas: 3, pod: pods[2]},
		{name: "3 pods < minReplicas 4", minReplicas: 4, pod: pods[3], want: []string{"owner has 3 pods < minReplicas 4"}},
		// Upstream counts by the single owner reference, controller or not:
		// "orphan" has 1 pod < 3.
		{name: "single non-controller owner counts", minReplicas: 3, pod: pods[5], want: []string{"owner has 1 pods < minReplicas 3"}},
		{name: "two owner references: rule does not apply (upstream)", minReplicas: 3, pod: pods[6]},
		{name: "minReplicas 1 is off", minReplicas: 1, pod: pods[0]},
		{name: "minReplicas 0 is off", minReplicas: 0, pod: pods[0]},
		{name: "evict annotation overrides minReplicas", minReplicas: 4,
			pod: builders.MakePod("default", "two-a").Node("n1").OwnedBy("ReplicaSet", "two").Annotation(EvictAnnotationKey, "").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mustNew(t, DefaultEvictorArgs{MinReplicas: tt.minReplicas}, snap)
			if got := ev.Explain(tt.pod); !slices.Equal(got, tt.want) {
				t.Errorf("Explain = %q, want %q", got, tt.want)
			}
			if ok := ev.Filter(tt.pod); ok != (len(tt.want) == 0) {
				t.Errorf("Filter = %v, want %v", ok, len(tt.want) == 0)
			}
		})
	}
}

func TestFilterMinPodAge(t *testing.T) {
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}})
	fiveMin := &metav1.Duration{Duration: 5 * time.Minute}
	tests := []struct {
		name      string
		minPodAge *metav1.Duration
		pod       *v1.Pod
		want      []string
	}{
		{name: "started 4m ago < 5m", minPodAge: fiveMin, pod: rsPod("p").Started(now.Add(-4 * time.Minute)).Obj(),
			want: []string{"pod age 4m0s < minPodAge 5m0s"}},
		{name: "started exactly 5m ago is old enough", minPodAge: fiveMin, pod: rsPod("p").Started(now.Add(-5 * time.Minute)).Obj()},
		{name: "start time wins over an older creation time", minPodAge: fiveMin,
			pod:  rsPod("p").Created(now.Add(-time.Hour)).Started(now.Add(-time.Minute)).Obj(),
			want: []string{"pod age 1m0s < minPodAge 5m0s"}},
		{name: "no start time: creation 10m ago is old enough", minPodAge: fiveMin, pod: rsPod("p").Created(now.Add(-10 * time.Minute)).Obj()},
		{name: "unknown age is protected", minPodAge: fiveMin, pod: rsPod("p").Obj(), want: []string{"pod age unknown (no startTime or creationTimestamp), minPodAge 5m0s"}},
		{name: "no minPodAge: a brand new pod passes", pod: rsPod("p").Started(now).Obj()},
		{name: "minPodAge 0 is off", minPodAge: &metav1.Duration{}, pod: rsPod("p").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mustNew(t, DefaultEvictorArgs{MinPodAge: tt.minPodAge}, snap)
			if got := ev.Explain(tt.pod); !slices.Equal(got, tt.want) {
				t.Errorf("Explain = %q, want %q", got, tt.want)
			}
			if ok := ev.Filter(tt.pod); ok != (len(tt.want) == 0) {
				t.Errorf("Filter = %v, want %v", ok, len(tt.want) == 0)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		PriorityClasses: []*schedulingv1.PriorityClass{builders.MakePriorityClass("exists", 7)}})
	tests := []struct {
		name string
		args *DefaultEvictorArgs
		want string // substring of the error; "" = no error
	}{
		{name: "nil args are the defaults", args: nil},
		{name: "existing class", args: &DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "exists"}}},
		{name: "missing class is a run-time error", args: &DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "nope"}},
			want: `priority class "nope" not found`},
		{name: "value and name", args: &DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "exists", Value: i32(1)}},
			want: "only one of value and name"},
		{name: "bad labelSelector", args: &DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "a", Operator: "Near"}}}}, want: "labelSelector"},
		{name: "bad nodeSelector with nodeFit", args: &DefaultEvictorArgs{NodeFit: true, NodeSelector: "a in (b"}, want: "nodeSelector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.args, snap)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("New error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestNilArgsUseDefaultThreshold(t *testing.T) {
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}})
	ev, err := New(nil, snap)
	if err != nil {
		t.Fatal(err)
	}
	// 2000000000 >= 2000000000 (system-cluster-critical) is protected, one below is not.
	if ev.Filter(rsPod("a").Priority(2000000000, "").Obj()) || !ev.Filter(rsPod("b").Priority(1999999999, "").Obj()) {
		t.Error("nil args must protect priority >= 2000000000 and nothing below")
	}
}

func TestFilterDoesNotAllocate(t *testing.T) {
	pods := []*v1.Pod{rsPod("pass").Label("app", "web").Started(now.Add(-time.Hour)).Obj(),
		rsPod("other").Label("app", "web").Started(now.Add(-time.Hour)).Obj()}
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, Pods: pods})
	ev := mustNew(t, DefaultEvictorArgs{MinReplicas: 2, MinPodAge: &metav1.Duration{Duration: time.Minute},
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}}}}}, snap)
	blocked := builders.MakePod("default", "ds").OwnedBy("DaemonSet", "ds").Priority(2000001000, "").EmptyDir("x").Obj()
	for _, p := range []*v1.Pod{pods[0], blocked} {
		want := p == pods[0]
		if got := ev.Filter(p); got != want {
			t.Fatalf("Filter(%s) = %v, want %v", p.Name, got, want)
		}
		if n := testing.AllocsPerRun(100, func() { ev.Filter(p) }); n != 0 {
			t.Errorf("Filter(%s) allocates %v times per call, want 0", p.Name, n)
		}
	}
}
