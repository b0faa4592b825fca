package snapshot

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// withTemplate gives a workload a pod template and labels, which the
// informers' transform must drop.
func withTemplate(spec *v1.PodTemplateSpec, meta *metav1.ObjectMeta) {
	spec.Labels = map[string]string{"app": "web"}
	spec.Spec.Containers = []v1.Container{{Name: "app", Image: "web:1", Args: []string{"--a-long-flag"}}}
	meta.Labels = map[string]string{"app": "web"}
	meta.Annotations = map[string]string{"deployment.kubernetes.io/revision": "3"}
}

func TestInformerSourceWorkloads(t *testing.T) {
	dep := builders.MakeDeployment("default", "web", 3).Ready(2).MaxUnavailable("50%")
	d, rs := dep.Obj(), dep.ReplicaSetFor("web-rs")
	withTemplate(&d.Spec.Template, &d.ObjectMeta)
	withTemplate(&rs.Spec.Template, &rs.ObjectMeta)
	sts := builders.MakeStatefulSet("default", "db", 2).Obj()
	withTemplate(&sts.Spec.Template, &sts.ObjectMeta)
	two := int32(2)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "report", UID: "uid-Job-report"},
		Spec: batchv1.JobSpec{Parallelism: &two}, Status: batchv1.JobStatus{Ready: &two, Active: 2}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "uid-DaemonSet-agent"},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 4, NumberReady: 4, NumberAvailable: 4, UpdatedNumberScheduled: 4}}
	rc := &v1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Namespace: "legacy", Name: "old", UID: "uid-ReplicationController-old"},
		Spec: v1.ReplicationControllerSpec{Replicas: &two}, Status: v1.ReplicationControllerStatus{ReadyReplicas: 1}}
	client := fake.NewClientset([]runtime.Object{d, rs, sts, job, ds, rc,
		builders.MakeNode("n1").Obj(),
		builders.MakePod("default", "web-1").Node("n1").OwnedBy("ReplicaSet", "web-rs").Obj()}...)
	factory := informers.NewSharedInformerFactory(client, 0)
	src := NewInformerSource(factory)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel()
	if err := src.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	objs, err := src.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Deployments) != 1 || len(objs.ReplicaSets) != 1 || len(objs.StatefulSets) != 1 ||
		len(objs.DaemonSets) != 1 || len(objs.Jobs) != 1 || len(objs.ReplicationControllers) != 1 {
		t.Fatalf("workloads: %d deployments, %d replicasets, %d statefulsets, %d daemonsets, %d jobs, %d rcs; want one each",
			len(objs.Deployments), len(objs.ReplicaSets), len(objs.StatefulSets), len(objs.DaemonSets), len(objs.Jobs),
			len(objs.ReplicationControllers))
	}
	// Trimmed: no templates, labels or annotations; the rest kept.
	gd, grs := objs.Deployments[0], objs.ReplicaSets[0]
	if len(gd.Spec.Template.Spec.Containers) != 0 || len(grs.Spec.Template.Spec.Containers) != 0 ||
		len(objs.StatefulSets[0].Spec.Template.Spec.Containers) != 0 || gd.Labels != nil || gd.Annotations != nil {
		t.Errorf("templates or labels kept: %+v", gd)
	}
	if *gd.Spec.Strategy.RollingUpdate.MaxUnavailable != intstr.FromString("50%") || len(grs.OwnerReferences) != 1 {
		t.Errorf("strategy or owner references lost: %+v %+v", gd.Spec.Strategy, grs.OwnerReferences)
	}
	snap, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ni, _ := snap.Node("n1")
	w, ok := snap.WorkloadOf(ni.Pods[0].Pod)
	// Deployment web: 3 desired, 2 Ready, its own 50%.
	if !ok || w.Ref.Name != "web" || w.Desired != 3 || w.Ready != 2 || w.MaxUnavailable.String() != "50%" {
		t.Errorf("WorkloadOf(web-1) = %+v, %v; want Deployment web, 3 desired, 2 ready, 50%%", w, ok)
	}
	j, ok := snap.Workload(WorkloadRef{Kind: KindJob, Namespace: "batch", Name: "report"})
	if !ok || j.Desired != 2 || j.Ready != 2 {
		t.Errorf("Job = %+v, %v; want 2 desired, 2 ready", j, ok)
	}
}

// The transform is idempotent and passes other objects through.
func TestTrimWorkloadIdempotent(t *testing.T) {
	d := builders.MakeDeployment("default", "web", 3).Obj()
	withTemplate(&d.Spec.Template, &d.ObjectMeta)
	once, _ := trimWorkload(d)
	twice, _ := trimWorkload(once)
	if !equalJSON(t, once, twice) {
		t.Errorf("trim twice differs: %+v vs %+v", once, twice)
	}
	pod := builders.MakePod("a", "p").Obj()
	if got, _ := trimWorkload(pod); got != any(pod) {
		t.Error("a pod was changed")
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
