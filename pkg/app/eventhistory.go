package app

import (
	"context"
	"fmt"
	"regexp"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// eventListPage is the page size when listing Descheduled Events.
const eventListPage = 500

// descheduledNote parses the note eventFor writes for a successful
// eviction: strategy, profile and node.
var descheduledNote = regexp.MustCompile(`^Evicted by (\S+) \(profile (.*?)\) from node (\S+): `)

// eventLog re-derives the evictions of this descheduler from its
// events.k8s.io/v1 Events with reason Descheduled, for the history a
// killed process had no time to save (descheduler.Memory.Evictions). It
// needs RBAC verb list on events.k8s.io events.
type eventLog struct {
	// Client reads the Events.
	Client kubernetes.Interface
	// Instance is this descheduler's instance name: only Events that name
	// it (EventInstanceAnnotation) are its evictions. Another instance's
	// must not drive this one's cooldowns, and an Event that names no
	// instance (written by a release before Events named theirs) cannot be
	// attributed, so it is left out too.
	Instance string
}

var _ descheduler.EvictionLog = (*eventLog)(nil)

// Evictions lists, in every namespace, the Descheduled Events of
// ReportingController and of Instance on pods last observed at or after
// since, as
// evictions: namespace and pod from the Event's regarding object,
// strategy and node from its note, owner from its related object. The
// weight (what the eviction took off the node) is not in the Event and is
// left zero. Events of another format are skipped.
func (l *eventLog) Evictions(ctx context.Context, since time.Time) ([]snapshot.Eviction, error) {
	opts := metav1.ListOptions{Limit: eventListPage,
		FieldSelector: fields.OneTermEqualSelector("reason", ReasonDescheduled).String()}
	var out []snapshot.Eviction
	for {
		list, err := l.Client.EventsV1().Events(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing %s Events: %w", ReasonDescheduled, err)
		}
		for i := range list.Items {
			if list.Items[i].Annotations[EventInstanceAnnotation] != l.Instance {
				continue
			}
			if e, ok := evictionFromEvent(&list.Items[i]); ok && !e.Time.Before(since) {
				out = append(out, e)
			}
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// evictionFromEvent turns one Descheduled Event of this descheduler into
// an eviction; false when it is not one.
func evictionFromEvent(ev *eventsv1.Event) (snapshot.Eviction, bool) {
	if ev.Reason != ReasonDescheduled || ev.ReportingController != ReportingController || ev.Regarding.Kind != "Pod" {
		return snapshot.Eviction{}, false
	}
	m := descheduledNote.FindStringSubmatch(ev.Note)
	if m == nil {
		return snapshot.Eviction{}, false
	}
	e := snapshot.Eviction{Time: eventTime(ev).UTC(), Namespace: ev.Regarding.Namespace, Pod: ev.Regarding.Name,
		Strategy: m[1], Node: m[3]}
	if r := ev.Related; r != nil && r.Name != "" {
		e.OwnerKind, e.OwnerName, e.OwnerUID = r.Kind, r.Name, r.UID
	}
	return e, !e.Time.IsZero()
}

// eventTime is when the Event was last observed: its series' last
// observation, else its eventTime, else the deprecated timestamp.
func eventTime(ev *eventsv1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	default:
		return ev.DeprecatedLastTimestamp.Time
	}
}

// ownerReference is the related object of a pod's Events: its controller,
// so that a restarted descheduler knows which workload lost the pod; nil
// for a pod without one.
func ownerReference(pod *v1.Pod) *v1.ObjectReference {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return nil
	}
	return &v1.ObjectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID,
		Namespace: pod.Namespace}
}
