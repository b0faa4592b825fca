package descheduler

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// taintStrategy plans nothing and wants its soft taint (Key=Value) on the
// considered nodes listed in want.
type taintStrategy struct {
	key, value string
	enabled    bool
	want       []string
}

func (s *taintStrategy) Name() string { return "Taints" }

func (s *taintStrategy) Plan(context.Context, *snapshot.Snapshot, framework.Evictor) ([]framework.Candidate, error) {
	return nil, nil
}

func (s *taintStrategy) SoftTaint() (bool, string, string) { return s.enabled, s.key, s.value }

func (s *taintStrategy) WantTainted(_ context.Context, snap *snapshot.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, n := range s.want {
		if _, ok := snap.Node(n); ok {
			out[n] = true
		}
	}
	return out
}

// clientSource serves the nodes of a fake client as they are now.
type clientSource struct{ client *fake.Clientset }

func (s clientSource) Objects() (snapshot.Objects, error) {
	list, err := s.client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return snapshot.Objects{}, err
	}
	var objs snapshot.Objects
	for i := range list.Items {
		objs.Nodes = append(objs.Nodes, &list.Items[i])
	}
	return objs, nil
}

// process is one descheduler process: its instance name, policy
// nodeSelector and profiles.
type process struct {
	instance string
	selector string
	profiles []Profile
}

// profilesOf returns one profile per strategy.
func profilesOf(strategies ...*taintStrategy) []Profile {
	var out []Profile
	for _, s := range strategies {
		out = append(out, Profile{Name: s.key, EvictorArgs: defaultArgs(), Balance: []framework.Strategy{s}})
	}
	return out
}

// run runs one cycle of p on client, as a fresh process would.
func (p process) run(t *testing.T, client *fake.Clientset) {
	t.Helper()
	sel, err := labels.Parse(p.selector)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Source: clientSource{client}, NodeSelector: sel,
		Clock:  clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)),
		Cycle:  &Cycle{Executor: evictor.DryRunExecutor{}, Profiles: p.profiles},
		Memory: &Memory{State: &State{}, Taints: tainterFor(client, p)}}
	if _, err := r.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSoftTaintOwnership runs processes one after the other on one
// cluster and checks every node's taints after the last one.
func TestSoftTaintOwnership(t *testing.T) {
	const keyA, keyB = "example.com/hot-a", "example.com/hot-b"
	poolA := process{instance: "ns/pool-a", selector: "pool=a"}
	poolB := process{instance: "ns/pool-b", selector: "pool=b"}
	hot := func(key string, nodes ...string) *taintStrategy {
		return &taintStrategy{key: key, enabled: true, want: nodes}
	}
	with := func(p process, profiles []Profile) process { p.profiles = profiles; return p }
	cases := []struct {
		name      string
		runs      []process
		wantTaint map[string][]string
	}{{
		// Each instance taints its own pool's hot node; neither removes
		// the other's, whatever the order.
		name: "sharded instances keep each other's taints",
		runs: []process{with(poolA, profilesOf(hot(hotKey, "a1"))), with(poolB, profilesOf(hot(hotKey, "b1"))),
			with(poolA, profilesOf(hot(hotKey, "a1")))},
		wantTaint: map[string][]string{"a1": {hotKey + "=:PreferNoSchedule"}, "b1": {hotKey + "=:PreferNoSchedule"},
			"a2": nil, "b2": {hotKey + "=admin:PreferNoSchedule"}},
	}, {
		// b2 carries an administrator's PreferNoSchedule taint with the
		// same key: pool b wants it neither removed nor replaced.
		name:      "an admin taint with the same key is never touched",
		runs:      []process{with(poolB, profilesOf(hot(hotKey, "b1")))},
		wantTaint: map[string][]string{"b1": {hotKey + "=:PreferNoSchedule"}, "b2": {hotKey + "=admin:PreferNoSchedule"}},
	}, {
		name:      "an admin taint is not replaced when the node is hot",
		runs:      []process{with(poolB, profilesOf(&taintStrategy{key: hotKey, value: "v", enabled: true, want: []string{"b2"}}))},
		wantTaint: map[string][]string{"b2": {hotKey + "=admin:PreferNoSchedule"}},
	}, {
		name: "every profile's key is applied",
		runs: []process{with(poolA, profilesOf(hot(keyA, "a1"), hot(keyB, "a2")))},
		wantTaint: map[string][]string{"a1": {keyA + "=:PreferNoSchedule"}, "a2": {keyB + "=:PreferNoSchedule"},
			"b1": nil},
	}, {
		name:      "a changed key sweeps the old one at the next start",
		runs:      []process{with(poolA, profilesOf(hot(keyA, "a1"))), with(poolA, profilesOf(hot(keyB, "a1")))},
		wantTaint: map[string][]string{"a1": {keyB + "=:PreferNoSchedule"}},
	}, {
		name: "the policy turns the soft taint off",
		runs: []process{with(poolA, profilesOf(hot(keyA, "a1"))),
			with(poolA, profilesOf(&taintStrategy{key: keyA, want: []string{"a1"}}))},
		wantTaint: map[string][]string{"a1": nil},
	}, {
		name:      "the policy drops the strategy",
		runs:      []process{with(poolA, profilesOf(hot(keyA, "a1"))), poolA},
		wantTaint: map[string][]string{"a1": nil},
	}, {
		// The selector changes so that a1 is no longer considered: the
		// taint this instance owns there is removed all the same.
		name: "an owned taint on a node no longer selected is removed",
		runs: []process{with(poolA, profilesOf(hot(keyA, "a1"))),
			with(process{instance: poolA.instance, selector: "pool=b"}, profilesOf(hot(keyA)))},
		wantTaint: map[string][]string{"a1": nil},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(shardNodes()...)
			for _, p := range tc.runs {
				p.run(t, client)
			}
			for node, want := range tc.wantTaint {
				if got := taintsOf(t, client, node); !reflect.DeepEqual(got, want) {
					t.Errorf("%s taints %v, want %v", node, got, want)
				}
			}
		})
	}
}

// shardNodes are two pools: a1, a2 (pool=a), b1, b2 (pool=b); b2 carries an
// administrator's PreferNoSchedule taint with the default soft-taint key.
func shardNodes() []runtime.Object {
	return []runtime.Object{
		builders.MakeNode("a1").Label("pool", "a").Obj(),
		builders.MakeNode("a2").Label("pool", "a").Obj(),
		builders.MakeNode("b1").Label("pool", "b").Obj(),
		builders.MakeNode("b2").Label("pool", "b").Taint(hotKey, "admin", v1.TaintEffectPreferNoSchedule).Obj(),
	}
}

// tainterFor builds the process's Tainter as the live descheduler does.
func tainterFor(client *fake.Clientset, p process) Tainter {
	return &SoftTaint{Client: client, Instance: p.instance}
}

// TestSoftTaintRelistFindsTaintsOfAnotherLeader: while this process was a
// standby, another process of the same instance tainted a2, which is now
// not Ready (excluded). Only after Relist (becoming the leader again) does
// Sync list the nodes and find it.
func TestSoftTaintRelistFindsTaintsOfAnotherLeader(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(builders.MakeNode("a1").Obj())
	st := &SoftTaint{Client: client, Instance: me}
	snap := func() *snapshot.Snapshot {
		objs, err := clientSource{client}.Objects()
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.New(objs, snapshot.Options{Now: histT0})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := st.Sync(ctx, snap(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Nodes().Create(ctx, owned("a2", "").NotReady().Obj(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, relist := range []bool{false, true} {
		if relist {
			st.Relist()
		}
		actions, err := st.Sync(ctx, snap(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if relist {
			want = []string{"a2 remove " + hotKey + " done=true"}
		}
		if got := actionList(actions); !reflect.DeepEqual(got, want) {
			t.Errorf("relist=%v: actions %v, want %v", relist, got, want)
		}
	}
}

// TestNodeTaintsSync checks the ownership rules on one node, as pure
// changes of its taints and owners annotation.
func TestNodeTaintsSync(t *testing.T) {
	const other = `"ns/other":{"example.com/b":"x"}`
	cases := []struct {
		name       string
		node       *v1.Node
		want       map[string]string
		wantKeys   keyChanges
		wantTaints []v1.Taint
		wantOwners string // "": no annotation
	}{{
		name: "the policy changes the value: ours is updated",
		node: owned("n", "old").Obj(), want: map[string]string{hotKey: "new"},
		wantKeys:   keyChanges{Added: []string{hotKey}},
		wantTaints: []v1.Taint{{Key: hotKey, Value: "new", Effect: v1.TaintEffectPreferNoSchedule}},
		wantOwners: ownersOf("new"),
	}, {
		// An admin set the value to "mine" after us: no longer ours.
		name: "a value changed by hand is left alone and the entry dropped",
		node: builders.MakeNode("n").Taint(hotKey, "mine", v1.TaintEffectPreferNoSchedule).
			Annotation(SoftTaintOwnersAnnotation, ownersOf("")).Obj(),
		want:       map[string]string{hotKey: ""},
		wantKeys:   keyChanges{Foreign: []string{hotKey}},
		wantTaints: []v1.Taint{{Key: hotKey, Value: "mine", Effect: v1.TaintEffectPreferNoSchedule}},
	}, {
		name: "an entry whose taint was removed by hand is dropped, and the taint added again when wanted",
		node: builders.MakeNode("n").Annotation(SoftTaintOwnersAnnotation, ownersOf("")).Obj(),
		want: map[string]string{hotKey: ""}, wantKeys: keyChanges{Added: []string{hotKey}},
		wantTaints: []v1.Taint{{Key: hotKey, Effect: v1.TaintEffectPreferNoSchedule}},
		wantOwners: ownersOf(""),
	}, {
		name: "another instance's taint and entry stay when ours goes",
		node: builders.MakeNode("n").Taint(hotKey, "", v1.TaintEffectPreferNoSchedule).
			Taint("example.com/b", "x", v1.TaintEffectPreferNoSchedule).
			Annotation(SoftTaintOwnersAnnotation, `{`+other+`,"`+me+`":{"`+hotKey+`":""}}`).Obj(),
		wantKeys:   keyChanges{Removed: []string{hotKey}},
		wantTaints: []v1.Taint{{Key: "example.com/b", Value: "x", Effect: v1.TaintEffectPreferNoSchedule}},
		wantOwners: `{` + other + `}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.node.DeepCopy()
			nt, err := newNodeTaints(tc.node)
			if err != nil {
				t.Fatal(err)
			}
			if keys := nt.sync(me, tc.want); !reflect.DeepEqual(keys, tc.wantKeys) {
				t.Errorf("changes %+v, want %+v", keys, tc.wantKeys)
			}
			if !reflect.DeepEqual(nt.taints, tc.wantTaints) {
				t.Errorf("taints %v, want %v", nt.taints, tc.wantTaints)
			}
			owners, err := nt.owners.encode()
			if err != nil {
				t.Fatal(err)
			}
			if got := deref(owners); got != tc.wantOwners {
				t.Errorf("owners %q, want %q", got, tc.wantOwners)
			}
			if !reflect.DeepEqual(tc.node, before) {
				t.Error("the node object was modified")
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
