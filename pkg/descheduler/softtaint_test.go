package descheduler

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const (
	hotKey = DefaultSoftTaintKey
	// me is the instance of the soft-taint tests.
	me = "kube-system/descheduler"
)

// ownersOf is the owners annotation saying me owns hotKey=value.
func ownersOf(value string) string {
	return `{"` + me + `":{"` + hotKey + `":"` + value + `"}}`
}

// owned returns a node builder for name carrying hotKey=value, owned by me.
func owned(name, value string) *builders.NodeBuilder {
	return builders.MakeNode(name).Taint(hotKey, value, v1.TaintEffectPreferNoSchedule).
		Annotation(SoftTaintOwnersAnnotation, ownersOf(value))
}

// taintNodes are the cluster of the soft-taint tests:
//
//	n1  no taints
//	n2  our taint
//	n3  foreign dedicated=gpu:NoSchedule and our key with NoSchedule (an admin's, not ours)
//	n4  our taint with an old value
//	n5  our taint, NotReady (excluded from the snapshot)
func taintNodes() []*v1.Node {
	return []*v1.Node{
		builders.MakeNode("n1").Obj(),
		owned("n2", "true").Obj(),
		builders.MakeNode("n3").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Taint(hotKey, "admin", v1.TaintEffectNoSchedule).Obj(),
		owned("n4", "old").Obj(),
		owned("n5", "true").NotReady().Obj(),
	}
}

// wantHot wants hotKey=true on nodes.
func wantHot(nodes map[string]bool) []TaintWant {
	return []TaintWant{{Key: hotKey, Value: "true", Nodes: nodes}}
}

func taintSetup(t *testing.T, nodes []*v1.Node) (*fake.Clientset, *snapshot.Snapshot) {
	t.Helper()
	objs := make([]runtime.Object, len(nodes))
	for i, n := range nodes {
		objs[i] = n
	}
	snap, err := snapshot.New(snapshot.Objects{Nodes: nodes}, snapshot.Options{Now: histT0})
	if err != nil {
		t.Fatal(err)
	}
	return fake.NewClientset(objs...), snap
}

// taintsOf renders the node's taints as key=value:effect.
func taintsOf(t *testing.T, client *fake.Clientset, name string) []string {
	t.Helper()
	n, err := client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tn := range n.Spec.Taints {
		out = append(out, fmt.Sprintf("%s=%s:%s", tn.Key, tn.Value, tn.Effect))
	}
	return out
}

func actionList(actions []TaintAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, fmt.Sprintf("%s %s %s done=%v", a.Node, a.Action, a.Key, a.Done))
	}
	return out
}

func TestSoftTaintSync(t *testing.T) {
	ours := hotKey + "=true:PreferNoSchedule"
	foreign := []string{"dedicated=gpu:NoSchedule", hotKey + "=admin:NoSchedule"}
	cases := []struct {
		name        string
		want        map[string]bool
		dryRun      bool
		wantActions []string
		wantTaints  map[string][]string
	}{{
		// n1, n3 gain it; n4's value is corrected; n2 (not in want) and
		// n5 (excluded, found by the initial list) lose it.
		name: "hot nodes gain it, others lose it",
		want: map[string]bool{"n1": true, "n3": true, "n4": true},
		wantActions: []string{"n1 add " + hotKey + " done=true", "n2 remove " + hotKey + " done=true", "n3 add " + hotKey + " done=true", "n4 add " + hotKey + " done=true",
			"n5 remove " + hotKey + " done=true"},
		wantTaints: map[string][]string{"n1": {ours}, "n2": nil, "n3": append(foreign, ours), "n4": {ours}, "n5": nil},
	}, {
		name:        "feature off: an empty want removes it everywhere, other taints stay",
		want:        map[string]bool{},
		wantActions: []string{"n2 remove " + hotKey + " done=true", "n4 remove " + hotKey + " done=true", "n5 remove " + hotKey + " done=true"},
		wantTaints:  map[string][]string{"n1": nil, "n2": nil, "n3": foreign, "n4": nil, "n5": nil},
	}, {
		name:        "already as wanted, except the excluded n5",
		want:        map[string]bool{"n2": true, "n4": false},
		wantActions: []string{"n4 remove " + hotKey + " done=true", "n5 remove " + hotKey + " done=true"},
		wantTaints:  map[string][]string{"n2": {ours}, "n3": foreign},
	}, {
		// Dry run cannot list, so it does not know n5 is tainted.
		name: "dry run only reports", dryRun: true,
		want:        map[string]bool{"n1": true},
		wantActions: []string{"n1 add " + hotKey + " done=false", "n2 remove " + hotKey + " done=false", "n4 remove " + hotKey + " done=false"},
		wantTaints:  map[string][]string{"n1": nil, "n2": {ours}, "n4": {hotKey + "=old:PreferNoSchedule"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client, snap := taintSetup(t, taintNodes())
			st := &SoftTaint{Client: client, Instance: me, DryRun: tc.dryRun}
			actions, err := st.Sync(context.Background(), snap, wantHot(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if got := actionList(actions); !reflect.DeepEqual(got, tc.wantActions) {
				t.Errorf("actions\n got %v\nwant %v", got, tc.wantActions)
			}
			if tc.dryRun && len(client.Actions()) != 0 {
				t.Errorf("dry run made API calls: %v", client.Actions())
			}
			for node, want := range tc.wantTaints {
				if got := taintsOf(t, client, node); !reflect.DeepEqual(got, want) {
					t.Errorf("%s taints %v, want %v", node, got, want)
				}
			}
		})
	}
}

func TestSoftTaintListsOnceAndRemembers(t *testing.T) {
	ctx := context.Background()
	nodes := taintNodes()[:2] // n1, n2 (tainted)
	client, snap := taintSetup(t, nodes)
	st := &SoftTaint{Client: client, Instance: me}
	if _, err := st.Sync(ctx, snap, wantHot(map[string]bool{"n1": true, "n2": true})); err != nil {
		t.Fatal(err)
	}
	// n1 (tainted by us in the first Sync) goes NotReady: excluded. It
	// must lose the taint, found from memory, without a second list.
	n1 := owned("n1", "true").NotReady().Obj()
	snap2, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{n1, nodes[1]}}, snapshot.Options{Now: histT0})
	if err != nil {
		t.Fatal(err)
	}
	actions, err := st.Sync(ctx, snap2, wantHot(map[string]bool{"n1": true, "n2": true}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionList(actions), []string{"n1 remove " + hotKey + " done=true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("actions %v, want %v", got, want)
	}
	lists := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" {
			lists++
		}
	}
	if lists != 1 || taintsOf(t, client, "n1") != nil {
		t.Errorf("%d lists (want 1), n1 taints %v (want none)", lists, taintsOf(t, client, "n1"))
	}
}

func TestSoftTaintConflictKeepsConcurrentChange(t *testing.T) {
	client, snap := taintSetup(t, taintNodes()[:1])
	// Between our read and our patch, someone adds maintenance=soon to n1.
	patches := 0
	client.PrependReactor("patch", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		patches++
		if patches > 1 {
			return false, nil, nil
		}
		n := builders.MakeNode("n1").Taint("maintenance", "soon", v1.TaintEffectNoSchedule).Obj()
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, n, ""); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "n1", fmt.Errorf("modified"))
	})
	st := &SoftTaint{Client: client, Instance: me}
	actions, err := st.Sync(context.Background(), snap, wantHot(map[string]bool{"n1": true}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionList(actions), []string{"n1 add " + hotKey + " done=true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("actions %v, want %v", got, want)
	}
	want := []string{"maintenance=soon:NoSchedule", hotKey + "=true:PreferNoSchedule"}
	if got := taintsOf(t, client, "n1"); !reflect.DeepEqual(got, want) || patches != 2 {
		t.Errorf("taints %v after %d patches, want %v after 2", got, patches, want)
	}
}

func TestSoftTaintPatchCarriesResourceVersion(t *testing.T) {
	n1 := builders.MakeNode("n1").Obj()
	n1.ResourceVersion = "42"
	client, snap := taintSetup(t, []*v1.Node{n1})
	var body string
	client.PrependReactor("patch", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		body = string(p.GetPatch())
		return true, n1, nil
	})
	st := &SoftTaint{Client: client, Instance: me}
	wants := []TaintWant{{Key: "example.com/hot", Value: "yes", Nodes: map[string]bool{"n1": true}}}
	if _, err := st.Sync(context.Background(), snap, wants); err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"42","annotations":{"` + SoftTaintOwnersAnnotation + `":` +
		`"{\"kube-system/descheduler\":{\"example.com/hot\":\"yes\"}}"}},` +
		`"spec":{"taints":[{"key":"example.com/hot","value":"yes","effect":"PreferNoSchedule"}]}}`
	if body != want {
		t.Errorf("patch\n got %s\nwant %s", body, want)
	}
}

func TestSoftTaintFailures(t *testing.T) {
	cases := []struct {
		name       string
		patchErr   error
		wantAction string
		wantErr    string // "": Sync returns no error
	}{
		{name: "vanished node is not an error", patchErr: apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "n1"),
			wantAction: "n1 add " + hotKey + " done=false"},
		{name: "other errors are reported", patchErr: apierrors.NewInternalError(fmt.Errorf("etcd down")),
			wantAction: "n1 add " + hotKey + " done=false", wantErr: "soft taints of " + me + " on node n1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client, snap := taintSetup(t, taintNodes()[:1])
			client.PrependReactor("patch", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.patchErr
			})
			actions, err := (&SoftTaint{Client: client, Instance: me}).Sync(context.Background(), snap,
				wantHot(map[string]bool{"n1": true}))
			if got := actionList(actions); !reflect.DeepEqual(got, []string{tc.wantAction}) {
				t.Errorf("actions %v, want [%s]", got, tc.wantAction)
			}
			switch {
			case tc.wantErr == "" && (err != nil || actions[0].Err != nil):
				t.Errorf("error %v / %v, want none", err, actions[0].Err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || actions[0].Err == nil):
				t.Errorf("error %v / %v, want one containing %q", err, actions[0].Err, tc.wantErr)
			}
		})
	}
}
