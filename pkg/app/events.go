package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// Event reasons and the action of the events.k8s.io/v1 Events on pods.
const (
	// ReasonDescheduled: the pod was evicted (Normal).
	ReasonDescheduled = "Descheduled"
	// ReasonEvictionBlocked: a PodDisruptionBudget refused the eviction
	// (Warning; only with evictionFailureEventNotification).
	ReasonEvictionBlocked = "EvictionBlocked"
	// ReasonEvictionFailed: the eviction call failed (Warning; only with
	// evictionFailureEventNotification).
	ReasonEvictionFailed = "EvictionFailed"
	// EventAction is the Events' action.
	EventAction = "Evict"
	// ReportingController is the Events' reportingController.
	ReportingController = "usage-descheduler"
	// EventInstanceAnnotation names, on each Event, the descheduler
	// instance (--instance-name) that wrote it; the Event's
	// reportingInstance names it too when it fits that field's 128
	// characters. A restarted instance re-derives its history only from
	// its own Events.
	EventInstanceAnnotation = "descheduler.usage.io/instance"
	// maxReportingInstance is the API server's limit on reportingInstance.
	maxReportingInstance = 128
	// maxNoteBytes is the API server's limit on an Event's note.
	maxNoteBytes = 1024
	// eventFlushTimeout bounds how long shutdown waits for queued Events.
	eventFlushTimeout = 5 * time.Second
)

// eventObserver turns eviction records into Events on the pods. It only
// queues them (the recorder is asynchronous), so it never slows a cycle.
type eventObserver struct {
	descheduler.NopObserver
	recorder events.EventRecorder
	// failures turns on Events for blocked and failed evictions
	// (the policy's evictionFailureEventNotification).
	failures bool
	// emitted, when set, is called before each Event is queued.
	emitted func()
}

// EvictionDone implements descheduler.Observer.
func (o *eventObserver) EvictionDone(_ context.Context, rec descheduler.Record) {
	eventType, reason, note := eventFor(rec)
	if reason == "" || (eventType == v1.EventTypeWarning && !o.failures) {
		return
	}
	if o.emitted != nil {
		o.emitted()
	}
	var related runtime.Object // the pod's controller, for re-deriving the history (eventLog)
	if ref := ownerReference(rec.Pod); ref != nil {
		related = ref
	}
	o.recorder.Eventf(rec.Pod, related, eventType, reason, EventAction, "%s", truncateNote(note))
}

// eventFor returns the Event of a record; reason is "" for none (dry run).
func eventFor(rec descheduler.Record) (eventType, reason, note string) {
	origin := fmt.Sprintf("%s (profile %s) from node %s", rec.Strategy, rec.Profile, rec.Node)
	switch rec.Result {
	case evictor.ResultSuccess:
		return v1.EventTypeNormal, ReasonDescheduled, fmt.Sprintf("Evicted by %s: %s", origin, rec.Reason)
	case evictor.ResultBlockedByPDB:
		return v1.EventTypeWarning, ReasonEvictionBlocked,
			fmt.Sprintf("Eviction by %s blocked by a PodDisruptionBudget: %s", origin, rec.Reason)
	case evictor.ResultThrottled:
		return v1.EventTypeWarning, ReasonEvictionFailed, fmt.Sprintf("Eviction by %s failed: throttled by the API server "+
			"(429 without a disruption budget) (wanted because: %s)", origin, rec.Reason)
	case evictor.ResultError:
		return v1.EventTypeWarning, ReasonEvictionFailed,
			fmt.Sprintf("Eviction by %s failed: %v (wanted because: %s)", origin, rec.Err, rec.Reason)
	}
	return "", "", ""
}

// truncateNote cuts note to the API's 1024-byte limit on a rune boundary.
func truncateNote(note string) string {
	if len(note) <= maxNoteBytes {
		return note
	}
	cut := maxNoteBytes - len("...")
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "..."
}

// eventEmitter owns the events.k8s.io/v1 broadcaster and knows how many
// queued Events have not been written yet, so that a one-shot run (Job,
// CronJob) can wait for them before it exits.
type eventEmitter struct {
	*eventObserver
	broadcaster events.EventBroadcaster
	pending     *pendingEvents
	stop        context.CancelFunc
}

// newEventEmitter starts a broadcaster writing to the API, each Event
// naming instance. Its recording outlives ctx so that Events queued during
// shutdown are still written; Close stops it.
func newEventEmitter(ctx context.Context, client kubernetes.Interface, failures bool, instance string) (*eventEmitter, error) {
	pending := &pendingEvents{}
	sink := &trackingSink{inner: &events.EventSinkImpl{Interface: client.EventsV1()}, pending: pending, instance: instance}
	b := events.NewBroadcaster(sink)
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	if err := b.StartRecordingToSinkWithContext(rctx); err != nil {
		stop()
		return nil, fmt.Errorf("starting the event recorder: %w", err)
	}
	obs := &eventObserver{recorder: b.NewRecorder(scheme.Scheme, ReportingController), failures: failures,
		emitted: pending.add}
	return &eventEmitter{eventObserver: obs, broadcaster: b, pending: pending, stop: stop}, nil
}

// Close waits (at most 5s) until the queued Events are written, then stops
// the broadcaster.
func (e *eventEmitter) Close(ctx context.Context) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventFlushTimeout)
	defer cancel()
	if n := e.pending.wait(fctx); n > 0 {
		klog.FromContext(ctx).Info("Gave up waiting for Events to be written", "unwritten", n)
	}
	e.stop()
	e.broadcaster.Shutdown()
}

// pendingEvents counts Events queued but not yet written (or rejected).
// The count is approximate only when the broadcaster merges repeats of
// one Event into a series, which makes wait time out instead of return.
type pendingEvents struct {
	mu sync.Mutex
	n  int
}

func (p *pendingEvents) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
}

func (p *pendingEvents) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n > 0 {
		p.n--
	}
}

func (p *pendingEvents) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// wait polls until nothing is pending or ctx ends; it returns the number
// still pending.
func (p *pendingEvents) wait(ctx context.Context) int {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		n := p.count()
		if n == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
	}
}

// trackingSink marks an Event done when the API answered for good: success
// or an API status error (which the broadcaster does not retry).
// It also stamps each new Event with the instance that writes it.
type trackingSink struct {
	inner    events.EventSink
	pending  *pendingEvents
	instance string
}

// stamped returns a copy of ev naming the instance (client-go's recorder
// sets reportingInstance to the host name, which a restarted pod changes).
func (s *trackingSink) stamped(ev *eventsv1.Event) *eventsv1.Event {
	out := ev.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[EventInstanceAnnotation] = s.instance
	if len(s.instance) <= maxReportingInstance {
		out.ReportingInstance = s.instance
	}
	return out
}

func (s *trackingSink) settle(err error) {
	var status apierrors.APIStatus
	if err == nil || errors.As(err, &status) {
		s.pending.done()
	}
}

// Create implements events.EventSink.
func (s *trackingSink) Create(ctx context.Context, ev *eventsv1.Event) (*eventsv1.Event, error) {
	out, err := s.inner.Create(ctx, s.stamped(ev))
	s.settle(err)
	return out, err
}

// Update implements events.EventSink.
func (s *trackingSink) Update(ctx context.Context, ev *eventsv1.Event) (*eventsv1.Event, error) {
	out, err := s.inner.Update(ctx, s.stamped(ev))
	s.settle(err)
	return out, err
}

// Patch implements events.EventSink. A NotFound is followed by a Create,
// which settles the Event.
func (s *trackingSink) Patch(ctx context.Context, ev *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	out, err := s.inner.Patch(ctx, ev, data)
	if !apierrors.IsNotFound(err) {
		s.settle(err)
	}
	return out, err
}
