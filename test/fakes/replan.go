package fakes

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// CheckReplan checks that a strategy re-planning on a working snapshot
// (the snapshot of objs without the pods of remove, derived by
// WithoutPods after a first plan, so whatever the strategy memoized for
// the lineage is reused) plans exactly what it plans on a snapshot built
// fresh from the objects left: the same pods, nodes and reasons in the
// same order. ev is used for every plan, opts for every snapshot.
func CheckReplan(t *testing.T, s framework.Strategy, objs snapshot.Objects, opts snapshot.Options, remove []*v1.Pod,
	ev framework.Evictor) {
	t.Helper()
	ctx := context.Background()
	origin, err := snapshot.New(objs, opts)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := s.Plan(ctx, origin, ev); err != nil {
		t.Fatalf("first plan: %v", err)
	}
	rest := objs
	rest.Pods = slices.DeleteFunc(slices.Clone(objs.Pods), func(p *v1.Pod) bool { return slices.Contains(remove, p) })
	fresh, err := snapshot.New(rest, opts)
	if err != nil {
		t.Fatalf("snapshot without the removed pods: %v", err)
	}
	got, err := s.Plan(ctx, origin.WithoutPods(remove...), ev)
	if err != nil {
		t.Fatalf("re-plan: %v", err)
	}
	want, err := s.Plan(ctx, fresh, ev)
	if err != nil {
		t.Fatalf("fresh plan: %v", err)
	}
	if g, w := describe(got), describe(want); !slices.Equal(g, w) {
		t.Errorf("re-plan on the working snapshot:\n%q\nplan on a fresh snapshot of the pods left:\n%q", g, w)
	}
}

// describe renders candidates as "namespace/name@node: reason".
func describe(cands []framework.Candidate) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = Key(c.Pod) + "@" + c.Node + ": " + c.Reason
	}
	return out
}
