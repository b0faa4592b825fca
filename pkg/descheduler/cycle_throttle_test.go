package descheduler

import (
	"context"
	"reflect"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// pacedExecutor answers throttled for the pods named in throttled and
// success for the others, and counts how often the cycle asked it to pace.
type pacedExecutor struct {
	throttled map[string]bool
	paces     int
	// cancel, when set, is called at the first Pace (a SIGTERM during the
	// wait).
	cancel func()
}

func (e *pacedExecutor) Evict(_ context.Context, ev evictor.Eviction) (evictor.Result, error) {
	if e.throttled[ev.Pod.Name] {
		return evictor.ResultThrottled, nil
	}
	return evictor.ResultSuccess, nil
}

func (e *pacedExecutor) Pace(ctx context.Context) error {
	e.paces++
	if e.cancel != nil {
		e.cancel()
	}
	return ctx.Err()
}

// TestCycleThrottled: the cycle paces every eviction call (the executor
// waits out a throttled answer's Retry-After) and stops evicting after
// MaxThrottledInARow (3) throttled answers in a row; throttled answers with
// a success between them do not stop it.
func TestCycleThrottled(t *testing.T) {
	cases := []struct {
		name      string
		throttled map[string]bool
		cancel    bool
		want      []string
		wantPaces int
	}{{
		// a, b, c throttled in a row: the cycle stops before d and e.
		name:      "three in a row stop the cycle",
		throttled: map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true},
		want:      []string{"a=throttled", "b=throttled", "c=throttled"}, wantPaces: 3,
	}, {
		// b's success resets the count: a, c, d make two in a row at most
		// before e succeeds. The re-plan finds nothing left (a, c, d failed).
		name:      "a success in between",
		throttled: map[string]bool{"a": true, "c": true, "d": true},
		want:      []string{"a=throttled", "b=success", "c=throttled", "d=throttled", "e=success"}, wantPaces: 5,
	}, {
		// Cancelled during the first wait: no call is made.
		name: "cancelled while pacing", cancel: true, wantPaces: 1,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			exec := &pacedExecutor{throttled: tc.throttled}
			if tc.cancel {
				exec.cancel = cancel
			}
			first := &listStrategy{name: "First", node: "n1"}
			c := &Cycle{Profiles: []Profile{{Name: "p1", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{first}}},
				Executor: exec}
			rep := c.Run(ctx, testSnapshot(t, map[string][]string{"n1": {"a", "b", "c", "d", "e"}}))
			if got := names(rep.Records); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records = %v, want %v", got, tc.want)
			}
			if exec.paces != tc.wantPaces {
				t.Errorf("paced %d times, want %d", exec.paces, tc.wantPaces)
			}
		})
	}
}
