package evictor

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func pdb(namespace, name string, sel *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
}

// protections builds args from podProtections lists.
func protections(extra []PodProtection, disabled ...PodProtection) DefaultEvictorArgs {
	return DefaultEvictorArgs{PodProtections: PodProtections{ExtraEnabled: extra, DefaultDisabled: disabled}}
}

// withClasses enables PodsWithPVC limited to the given storage classes.
func withClasses(names ...string) DefaultEvictorArgs {
	a := protections([]PodProtection{PodsWithPVC})
	cfg := &PodsWithPVCConfig{}
	for _, n := range names {
		cfg.ProtectedStorageClasses = append(cfg.ProtectedStorageClasses, ProtectedStorageClass{Name: n})
	}
	a.PodProtections.Config = &PodProtectionsConfig{PodsWithPVC: cfg}
	return a
}

func TestFilterPodProtections(t *testing.T) {
	// Claims in "default": data-fast (class fast), data-slow (slow),
	// data-noclass (unset), data-empty (""); data-gone does not exist.
	// PDBs: "web" selects app=web in default; "all" has an empty selector
	// (every pod of namespace all); "none" a nil selector (no pod of
	// namespace none); "broken" an invalid one (no pod of default).
	snap := mustSnapshot(t, snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		PersistentVolumeClaims: []*v1.PersistentVolumeClaim{
			builders.MakePVC("default", "data-fast").StorageClass("fast").Obj(),
			builders.MakePVC("default", "data-slow").StorageClass("slow").Obj(),
			builders.MakePVC("default", "data-noclass").Obj(),
			builders.MakePVC("default", "data-empty").StorageClass("").Obj(),
			builders.MakePVC("other", "data-slow").StorageClass("fast").Obj(),
		},
		PDBs: []*policyv1.PodDisruptionBudget{
			pdb("default", "web", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
			pdb("all", "all", &metav1.LabelSelector{}),
			pdb("none", "none", nil),
			pdb("default", "broken", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}),
		},
	})
	chart := protections([]PodProtection{PodsWithPVC}, PodsWithLocalStorage) // upstream chart default
	noPDB := protections([]PodProtection{PodsWithoutPDB})
	mandatory := DefaultEvictorArgs{NoEvictionPolicy: MandatoryNoEvictionPolicy}
	failedBare := builders.MakePod("default", "p").Phase(v1.PodFailed)
	preferNo := func() *builders.PodBuilder { return rsPod("p").Annotation(PreferNoEvictionAnnotationKey, "true") }
	tests := []struct {
		name string
		args DefaultEvictorArgs
		pod  *v1.Pod
		want []string // Explain reasons; none: Filter passes
	}{
		// Upstream chart default: local storage evictable, PVC pods protected.
		{name: "chart default: emptyDir pod passes", args: chart, pod: rsPod("p").EmptyDir("cache").Obj()},
		{name: "chart default: PVC pod protected", args: chart, pod: rsPod("p").PVC("data").Obj(), want: []string{whyPVCData}},
		{name: "chart default: DaemonSet pod still protected", args: chart,
			pod: builders.MakePod("default", "p").OwnedBy("DaemonSet", "ds").Obj(), want: []string{whyDaemonSet}},
		{name: "defaultDisabled DaemonSetPods", args: protections(nil, DaemonSetPods),
			pod: builders.MakePod("default", "p").OwnedBy("DaemonSet", "ds").Obj()},
		{name: "defaultDisabled SystemCriticalPods ignores priorityThreshold too",
			args: func() DefaultEvictorArgs {
				a := protections(nil, SystemCriticalPods)
				a.PriorityThreshold = &api.PriorityThreshold{Value: i32(10)}
				return a
			}(), pod: rsPod("p").Priority(2000001000, "system-node-critical").Obj()},
		{name: "SystemCriticalPods on: threshold 10 protects priority 5000",
			args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(10)}, PodProtections: PodProtections{
				ExtraEnabled: []PodProtection{PodsWithResourceClaims}}},
			pod: rsPod("p").Priority(5000, "").Obj(), want: []string{whyPriority(5000, 10)}},
		{name: "FailedBarePods on (default): Failed bare pod protected", pod: failedBare.Obj(), want: []string{whyFailedBare}},
		{name: "defaultDisabled FailedBarePods: Failed bare pod passes", args: protections(nil, FailedBarePods), pod: failedBare.Obj()},
		{name: "defaultDisabled FailedBarePods: Running bare pod still protected", args: protections(nil, FailedBarePods),
			pod: builders.MakePod("default", "p").Obj(), want: []string{whyNoOwner}},
		{name: "defaultDisabled PodsWithLocalStorage: hostPath passes", args: protections(nil, PodsWithLocalStorage),
			pod: rsPod("p").HostPath("logs", "/var/log").Obj()},
		// PodsWithResourceClaims.
		{name: "resource claims pass by default", pod: rsPod("p").ResourceClaim("gpu", "gpu-claim").Obj()},
		{name: "PodsWithResourceClaims protects a pod with a claim", args: protections([]PodProtection{PodsWithResourceClaims}),
			pod: rsPod("p").ResourceClaim("gpu", "gpu-claim").Obj(), want: []string{whyClaims}},
		{name: "PodsWithResourceClaims: a pod without claims passes", args: protections([]PodProtection{PodsWithResourceClaims}), pod: rsPod("p").Obj()},
		// PodsWithoutPDB.
		{name: "PodsWithoutPDB: selected by web passes", args: noPDB, pod: rsPod("p").Label("app", "web").Obj()},
		{name: "PodsWithoutPDB: app=db has no PDB", args: noPDB, pod: rsPod("p").Label("app", "db").Obj(), want: []string{whyNoPDB}},
		{name: "PodsWithoutPDB: a PDB of another namespace does not count", args: noPDB,
			pod: builders.MakePod("other", "p").OwnedBy("ReplicaSet", "rs").Label("app", "web").Obj(), want: []string{whyNoPDB}},
		{name: "PodsWithoutPDB: empty selector covers every pod of its namespace", args: noPDB,
			pod: builders.MakePod("all", "p").OwnedBy("ReplicaSet", "rs").Obj()},
		{name: "PodsWithoutPDB: nil selector covers nothing", args: noPDB,
			pod: builders.MakePod("none", "p").OwnedBy("ReplicaSet", "rs").Obj(), want: []string{whyNoPDB}},
		{name: "legacy ignorePodsWithoutPDB is the same rule", args: DefaultEvictorArgs{IgnorePodsWithoutPDB: true},
			pod: rsPod("p").Label("app", "db").Obj(), want: []string{whyNoPDB}},
		{name: "PDBs do not matter when PodsWithoutPDB is off", pod: rsPod("p").Label("app", "db").Obj()},
		// PodsWithPVC limited to storage class fast.
		{name: "classes: claim of class slow passes", args: withClasses("fast"), pod: rsPod("p").PVC("data-slow").Obj()},
		{name: "classes: claim of class fast protected", args: withClasses("fast"), pod: rsPod("p").PVC("data-fast").Obj(),
			want: []string{`PersistentVolumeClaim "data-fast" has protected storage class "fast" (protection PodsWithPVC)`}},
		{name: "classes: slow then fast, the fast claim decides", args: withClasses("fast", "gold"),
			pod:  rsPod("p").PVC("data-slow").PVC("data-fast").Obj(),
			want: []string{`PersistentVolumeClaim "data-fast" has protected storage class "fast" (protection PodsWithPVC)`}},
		{name: "classes: claim without storage class protected", args: withClasses("fast"), pod: rsPod("p").PVC("data-noclass").Obj(),
			want: []string{`PersistentVolumeClaim "data-noclass" has no storage class (protection PodsWithPVC)`}},
		{name: "classes: claim with empty storage class protected", args: withClasses("fast"), pod: rsPod("p").PVC("data-empty").Obj(),
			want: []string{`PersistentVolumeClaim "data-empty" has no storage class (protection PodsWithPVC)`}},
		{name: "classes: a missing claim decides before a protected one", args: withClasses("fast"),
			pod:  rsPod("p").PVC("data-fast").PVC("data-gone").Obj(),
			want: []string{`PersistentVolumeClaim "data-gone" is not in the snapshot, so its storage class is unknown (protection PodsWithPVC)`}},
		{name: "classes: claims are looked up in the pod's namespace", args: withClasses("fast"),
			pod:  builders.MakePod("other", "p").OwnedBy("ReplicaSet", "rs").PVC("data-slow").Obj(),
			want: []string{`PersistentVolumeClaim "data-slow" has protected storage class "fast" (protection PodsWithPVC)`}},
		{name: "classes: generic ephemeral volume does not count", args: withClasses("fast"), pod: rsPod("p").EphemeralVolume("scratch").Obj()},
		{name: "classes: a pod without claims passes", args: withClasses("fast"), pod: rsPod("p").EmptyDir("x").Obj(),
			want: []string{whyLocal}},
		{name: "classes apply with the legacy ignorePvcPods too (upstream reads config either way)",
			args: DefaultEvictorArgs{IgnorePvcPods: true, PodProtections: PodProtections{Config: withClasses("fast").PodProtections.Config}},
			pod:  rsPod("p").PVC("data-slow").Obj()},
		{name: "classes configured but PodsWithPVC off: nothing protected",
			args: DefaultEvictorArgs{PodProtections: PodProtections{Config: withClasses("fast").PodProtections.Config}},
			pod:  rsPod("p").PVC("data-fast").Obj()},
		// noEvictionPolicy.
		{name: "prefer-no-eviction with Mandatory is protected", args: mandatory, pod: preferNo().Obj(), want: []string{whyNoEviction}},
		{name: "prefer-no-eviction with Preferred passes", args: DefaultEvictorArgs{NoEvictionPolicy: PreferredNoEvictionPolicy}, pod: preferNo().Obj()},
		{name: "prefer-no-eviction with no policy passes", pod: preferNo().Obj()},
		{name: "Mandatory: a pod without the annotation passes", args: mandatory, pod: rsPod("p").Obj()},
		{name: "evict annotation wins over Mandatory prefer-no-eviction", args: mandatory,
			pod: preferNo().Annotation(EvictAnnotationKey, "").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mustNew(t, tt.args, snap)
			if got := ev.Explain(tt.pod); !slices.Equal(got, tt.want) {
				t.Errorf("Explain = %q, want %q", got, tt.want)
			}
			if ok := ev.Filter(tt.pod); ok != (len(tt.want) == 0) {
				t.Errorf("Filter = %v, want %v", ok, len(tt.want) == 0)
			}
		})
	}
}

func TestPreEvictionFilterNamespaceLabelSelector(t *testing.T) {
	// Namespaces: team-a {team: a}, team-b {team: b}, plain (no labels);
	// "ghost" is not in the snapshot.
	snap := mustSnapshot(t, snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Namespaces: []*v1.Namespace{
			{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"team": "b"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
		},
	})
	teamA := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	notB := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}}}}
	tests := []struct {
		name      string
		sel       *metav1.LabelSelector
		namespace string
		want      bool
	}{
		{name: "no selector: every namespace", namespace: "team-b", want: true},
		{name: "no selector: a namespace missing from the snapshot", namespace: "ghost", want: true},
		{name: "empty selector selects everything", sel: &metav1.LabelSelector{}, namespace: "ghost", want: true},
		{name: "team=a: team-a", sel: teamA, namespace: "team-a", want: true},
		{name: "team=a: team-b", sel: teamA, namespace: "team-b"},
		{name: "team=a: unlabelled", sel: teamA, namespace: "plain"},
		{name: "team=a: namespace not in the snapshot", sel: teamA, namespace: "ghost"},
		{name: "team notin (b): unlabelled matches", sel: notB, namespace: "plain", want: true},
		{name: "team notin (b): team-b", sel: notB, namespace: "team-b"},
		{name: "team notin (b): missing namespace is not evicted", sel: notB, namespace: "ghost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mustNew(t, DefaultEvictorArgs{NamespaceLabelSelector: tt.sel}, snap)
			pod := builders.MakePod(tt.namespace, "p").Node("n1").OwnedBy("ReplicaSet", "rs").Obj()
			if got := ev.PreEvictionFilter(pod); got != tt.want {
				t.Errorf("PreEvictionFilter = %v, want %v", got, tt.want)
			}
			// The namespace rule is a PreEvictionFilter rule, as upstream:
			// Filter (what strategies plan with) does not apply it.
			if !ev.Filter(pod) {
				t.Errorf("Filter = false, want true (reasons %q)", ev.Explain(pod))
			}
		})
	}
}

func TestFilterDoesNotAllocateWithProtections(t *testing.T) {
	// Every protection on, PVC limited to class fast, Mandatory policy.
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		PersistentVolumeClaims: []*v1.PersistentVolumeClaim{builders.MakePVC("default", "slow").StorageClass("slow").Obj(),
			builders.MakePVC("default", "fast").StorageClass("fast").Obj()},
		PDBs: []*policyv1.PodDisruptionBudget{pdb("default", "web", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}})}})
	args := withClasses("fast")
	args.PodProtections.ExtraEnabled = ExtraPodProtections()
	args.NoEvictionPolicy = MandatoryNoEvictionPolicy
	ev := mustNew(t, args, snap)
	for _, tc := range []struct {
		pod  *v1.Pod
		want bool
	}{
		{rsPod("pass").Label("app", "web").PVC("slow").Obj(), true},
		{rsPod("fast").Label("app", "web").PVC("fast").Obj(), false},
		{rsPod("nopdb").Label("app", "db").Obj(), false},
		{rsPod("prefer").Label("app", "web").Annotation(PreferNoEvictionAnnotationKey, "").Obj(), false},
	} {
		if got := ev.Filter(tc.pod); got != tc.want {
			t.Fatalf("Filter(%s) = %v, want %v (%q)", tc.pod.Name, got, tc.want, ev.Explain(tc.pod))
		}
		if n := testing.AllocsPerRun(100, func() { ev.Filter(tc.pod) }); n != 0 {
			t.Errorf("Filter(%s) allocates %v times per call, want 0", tc.pod.Name, n)
		}
	}
}
