package app

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// TestEventLogKeepsOwnInstance: instances pool-a and pool-b write their
// Descheduled Events into one cluster, next to an Event of an older
// release that names no instance. Each Event names its instance in
// reportingInstance and in an annotation, and each instance re-derives
// only its own evictions: another instance's, or one nobody can attribute,
// must not drive its cooldowns or be persisted into its history.
func TestEventLogKeepsOwnInstance(t *testing.T) {
	client := fake.NewClientset()
	ctx := context.Background()
	before := time.Now().Add(-time.Second)
	for _, e := range []struct{ instance, pod string }{{"ops/pool-a", "a"}, {"ops/pool-b", "b"}} {
		em, err := newEventEmitter(ctx, client, false, e.instance)
		if err != nil {
			t.Fatal(err)
		}
		em.EvictionDone(ctx, record(e.pod, evictor.ResultSuccess, nil))
		em.Close(ctx)
	}
	legacy := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy"},
		Reason: ReasonDescheduled, ReportingController: ReportingController, EventTime: metav1.NewMicroTime(time.Now()),
		Regarding: v1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "c"},
		Note:      "Evicted by LowNodeUtilization (profile default) from node n1: hot"}
	if _, err := client.EventsV1().Events("shop").Create(ctx, legacy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	list, err := client.EventsV1().Events("shop").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range list.Items {
		if ev.Name == "legacy" {
			continue
		}
		want := map[string]string{"a": "ops/pool-a", "b": "ops/pool-b"}[ev.Regarding.Name]
		if ev.ReportingInstance != want || ev.Annotations[EventInstanceAnnotation] != want {
			t.Errorf("Event on %s: reportingInstance %q, annotation %q; want both %q", ev.Regarding.Name,
				ev.ReportingInstance, ev.Annotations[EventInstanceAnnotation], want)
		}
	}
	for instance, pod := range map[string]string{"ops/pool-a": "a", "ops/pool-b": "b"} {
		got, err := (&eventLog{Client: client, Instance: instance}).Evictions(ctx, before)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Pod != pod {
			t.Errorf("instance %s re-derived %+v, want only its eviction of %s", instance, got, pod)
		}
	}
}
