package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func record(name string, res evictor.Result, err error) descheduler.Record {
	return descheduler.Record{Eviction: evictor.Eviction{
		Pod:  builders.MakePod("shop", name).Node("n1").OwnedBy("ReplicaSet", "rs").Obj(),
		Node: "n1", Strategy: "LowNodeUtilization", Profile: "default", Reason: "node n1 cpu 80% > target 50%",
	}, Result: res, Err: err}
}

func TestEventObserver(t *testing.T) {
	apiErr := errors.New("etcd timeout")
	cases := []struct {
		name     string
		rec      descheduler.Record
		failures bool
		want     string // "" for no Event
	}{
		{"success", record("a", evictor.ResultSuccess, nil), false,
			"Normal Descheduled Evicted by LowNodeUtilization (profile default) from node n1: node n1 cpu 80% > target 50%"},
		{"dry run", record("a", evictor.ResultDryRun, nil), true, ""},
		{"blocked, notification off", record("a", evictor.ResultBlockedByPDB, nil), false, ""},
		{"blocked, notification on", record("a", evictor.ResultBlockedByPDB, nil), true,
			"Warning EvictionBlocked Eviction by LowNodeUtilization (profile default) from node n1 blocked by a " +
				"PodDisruptionBudget: node n1 cpu 80% > target 50%"},
		{"throttled, notification on", record("a", evictor.ResultThrottled, nil), true,
			"Warning EvictionFailed Eviction by LowNodeUtilization (profile default) from node n1 failed: throttled by the " +
				"API server (429 without a disruption budget) (wanted because: node n1 cpu 80% > target 50%)"},
		{"error, notification off", record("a", evictor.ResultError, apiErr), false, ""},
		{"error, notification on", record("a", evictor.ResultError, apiErr), true,
			"Warning EvictionFailed Eviction by LowNodeUtilization (profile default) from node n1 failed: etcd timeout " +
				"(wanted because: node n1 cpu 80% > target 50%)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(1)
			o := &eventObserver{recorder: rec, failures: tc.failures}
			o.EvictionDone(context.Background(), tc.rec)
			var got string
			select {
			case got = <-rec.Events:
			default:
			}
			if got != tc.want {
				t.Errorf("event = %q\nwant    %q", got, tc.want)
			}
		})
	}
}

func TestTruncateNote(t *testing.T) {
	short := "évincé"
	if got := truncateNote(short); got != short {
		t.Errorf("short note changed: %q", got)
	}
	// 1020 ASCII bytes + "é" (2 bytes) x 10 = 1040 bytes > 1024: cut to at
	// most 1021 bytes on a rune boundary, plus "...".
	long := strings.Repeat("x", 1020) + strings.Repeat("é", 10)
	got := truncateNote(long)
	if len(got) > maxNoteBytes || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, strings.Repeat("x", 1020)) {
		t.Errorf("truncated note has %d bytes, suffix %q", len(got), got[len(got)-5:])
	}
	if !strings.HasSuffix(strings.TrimSuffix(got, "..."), "x") {
		t.Errorf("cut inside a rune: %q", got[1015:])
	}
}

// TestEventEmitterWritesEventsBeforeClose checks that Events queued just
// before shutdown reach the API (the one-shot Job case).
func TestEventEmitterWritesEventsBeforeClose(t *testing.T) {
	client := fake.NewClientset()
	ctx := context.Background()
	e, err := newEventEmitter(ctx, client, true, me)
	if err != nil {
		t.Fatal(err)
	}
	e.EvictionDone(ctx, record("a", evictor.ResultSuccess, nil))
	e.EvictionDone(ctx, record("b", evictor.ResultBlockedByPDB, nil))
	e.EvictionDone(ctx, record("c", evictor.ResultDryRun, nil)) // no Event
	e.Close(ctx)

	list, err := client.EventsV1().Events("shop").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ev := range list.Items {
		got[ev.Regarding.Name] = ev.Reason
		if ev.ReportingController != ReportingController || ev.Action != EventAction || ev.Regarding.Kind != "Pod" {
			t.Errorf("event %s: controller %q action %q kind %q", ev.Name, ev.ReportingController, ev.Action, ev.Regarding.Kind)
		}
		if ev.Reason == ReasonDescheduled && ev.Type != v1.EventTypeNormal {
			t.Errorf("Descheduled event has type %q", ev.Type)
		}
	}
	want := map[string]string{"a": ReasonDescheduled, "b": ReasonEvictionBlocked}
	if len(got) != len(want) || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Errorf("events by pod = %v, want %v", got, want)
	}
	if n := e.pending.count(); n != 0 {
		t.Errorf("%d events still pending after Close", n)
	}
}
