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

// me is the instance name of the tests' event emitters and logs.
const me = "kube-system/descheduler"

// TestEventLogRoundTrip: the Events the emitter writes for successful
// evictions are read back as evictions with the pod, node, strategy and
// owning ReplicaSet; blocked and failed evictions are not evictions.
func TestEventLogRoundTrip(t *testing.T) {
	client := fake.NewClientset()
	ctx := context.Background()
	e, err := newEventEmitter(ctx, client, true, me)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	e.EvictionDone(ctx, record("a", evictor.ResultSuccess, nil))
	e.EvictionDone(ctx, record("b", evictor.ResultBlockedByPDB, nil))
	e.EvictionDone(ctx, record("c", evictor.ResultError, context.DeadlineExceeded))
	e.Close(ctx)

	got, err := (&eventLog{Client: client, Instance: me}).Evictions(ctx, before)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("re-derived %d evictions %+v, want only a's", len(got), got)
	}
	ev := got[0]
	if ev.Namespace != "shop" || ev.Pod != "a" || ev.Node != "n1" || ev.Strategy != "LowNodeUtilization" ||
		ev.OwnerKind != "ReplicaSet" || ev.OwnerName != "rs" || ev.Time.Before(before) {
		t.Errorf("re-derived %+v, want shop/a from n1 by LowNodeUtilization, owner ReplicaSet rs, after %v", ev, before)
	}
	// Nothing at or after a later horizon.
	if got, _ := (&eventLog{Client: client, Instance: me}).Evictions(ctx, time.Now().Add(time.Minute)); len(got) != 0 {
		t.Errorf("evictions after the horizon: %+v", got)
	}
}

func TestEvictionFromEvent(t *testing.T) {
	at := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	base := func() *eventsv1.Event {
		return &eventsv1.Event{Reason: ReasonDescheduled, ReportingController: ReportingController,
			EventTime: metav1.NewMicroTime(at),
			Regarding: v1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-1"},
			Note:      "Evicted by LowNodeUtilization (profile default) from node n1: node n1 cpu 80% > target 50%"}
	}
	tests := []struct {
		name     string
		mutate   func(*eventsv1.Event)
		wantOK   bool
		wantTime time.Time
	}{
		{name: "ours", mutate: func(*eventsv1.Event) {}, wantOK: true, wantTime: at},
		{name: "series: last observation", mutate: func(e *eventsv1.Event) {
			e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(at.Add(time.Minute))}
		}, wantOK: true, wantTime: at.Add(time.Minute)},
		{name: "another controller", mutate: func(e *eventsv1.Event) { e.ReportingController = "other" }},
		{name: "another reason", mutate: func(e *eventsv1.Event) { e.Reason = ReasonEvictionFailed }},
		{name: "not a pod", mutate: func(e *eventsv1.Event) { e.Regarding.Kind = "Node" }},
		{name: "foreign note", mutate: func(e *eventsv1.Event) { e.Note = "evicted" }},
		{name: "no time", mutate: func(e *eventsv1.Event) { e.EventTime = metav1.MicroTime{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := base()
			tt.mutate(ev)
			got, ok := evictionFromEvent(ev)
			if ok != tt.wantOK {
				t.Fatalf("evictionFromEvent ok = %v, want %v (%+v)", ok, tt.wantOK, got)
			}
			if ok && (!got.Time.Equal(tt.wantTime) || got.Strategy != "LowNodeUtilization" || got.Node != "n1") {
				t.Errorf("got %+v, want time %v, strategy LowNodeUtilization, node n1", got, tt.wantTime)
			}
		})
	}
}
