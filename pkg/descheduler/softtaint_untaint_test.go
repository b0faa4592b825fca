package descheduler

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// untaintNodes: n1 carries a taint of pool-a and one of pool-b (two keys),
// n2 one of pool-a and an admin's PreferNoSchedule taint, n3 a taint whose
// value an admin changed after pool-a put it (no longer pool-a's), n4
// nothing of ours.
func untaintNodes() *fake.Clientset {
	const a, b = "example.com/a", "example.com/b"
	return fake.NewClientset(
		builders.MakeNode("n1").Taint(a, "", v1.TaintEffectPreferNoSchedule).Taint(b, "x", v1.TaintEffectPreferNoSchedule).
			Annotation(SoftTaintOwnersAnnotation, `{"ns/pool-a":{"example.com/a":""},"ns/pool-b":{"example.com/b":"x"}}`).Obj(),
		builders.MakeNode("n2").Taint("admin", "yes", v1.TaintEffectPreferNoSchedule).Taint(a, "", v1.TaintEffectPreferNoSchedule).
			Annotation(SoftTaintOwnersAnnotation, `{"ns/pool-a":{"example.com/a":""}}`).Obj(),
		builders.MakeNode("n3").Taint(a, "admin", v1.TaintEffectPreferNoSchedule).
			Annotation(SoftTaintOwnersAnnotation, `{"ns/pool-a":{"example.com/a":""}}`).Obj(),
		builders.MakeNode("n4").Taint(a, "", v1.TaintEffectNoSchedule).Obj(),
	)
}

func TestUntaint(t *testing.T) {
	const a, b = "example.com/a", "example.com/b"
	cases := []struct {
		name        string
		untaint     Untaint
		wantActions []string
		wantTaints  map[string][]string
		wantOwners  map[string]string // "": no annotation
	}{{
		// n3's taint has another value than pool-a put: the admin's now;
		// only pool-a's stale annotation entry goes.
		name:        "one instance",
		untaint:     Untaint{Instance: "ns/pool-a"},
		wantActions: []string{"n1 ns/pool-a " + a + " done=true", "n2 ns/pool-a " + a + " done=true"},
		wantTaints: map[string][]string{"n1": {b + "=x:PreferNoSchedule"}, "n2": {"admin=yes:PreferNoSchedule"},
			"n3": {a + "=admin:PreferNoSchedule"}, "n4": {a + "=:NoSchedule"}},
		wantOwners: map[string]string{"n1": `{"ns/pool-b":{"example.com/b":"x"}}`, "n2": "", "n3": ""},
	}, {
		name:    "all instances",
		untaint: Untaint{All: true},
		wantActions: []string{"n1 ns/pool-a " + a + " done=true", "n1 ns/pool-b " + b + " done=true",
			"n2 ns/pool-a " + a + " done=true"},
		wantTaints: map[string][]string{"n1": nil, "n2": {"admin=yes:PreferNoSchedule"},
			"n3": {a + "=admin:PreferNoSchedule"}, "n4": {a + "=:NoSchedule"}},
		wantOwners: map[string]string{"n1": "", "n2": "", "n3": ""},
	}, {
		name:    "dry run lists and changes nothing",
		untaint: Untaint{All: true, DryRun: true},
		wantActions: []string{"n1 ns/pool-a " + a + " done=false", "n1 ns/pool-b " + b + " done=false",
			"n2 ns/pool-a " + a + " done=false"},
		wantTaints: map[string][]string{"n1": {a + "=:PreferNoSchedule", b + "=x:PreferNoSchedule"}},
		wantOwners: map[string]string{"n3": `{"ns/pool-a":{"example.com/a":""}}`},
	}, {
		name:       "an instance owning nothing",
		untaint:    Untaint{Instance: "ns/other"},
		wantTaints: map[string][]string{"n2": {"admin=yes:PreferNoSchedule", a + "=:PreferNoSchedule"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := untaintNodes()
			u := tc.untaint
			u.Client = client
			actions, err := u.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range actions {
				if a.Action != TaintRemove {
					t.Errorf("action %+v, want only removals", a)
				}
				got = append(got, fmt.Sprintf("%s %s %s done=%v", a.Node, a.Owner, a.Key, a.Done))
			}
			if !reflect.DeepEqual(got, tc.wantActions) {
				t.Errorf("actions\n got %v\nwant %v", got, tc.wantActions)
			}
			for node, want := range tc.wantTaints {
				if got := taintsOf(t, client, node); !reflect.DeepEqual(got, want) {
					t.Errorf("%s taints %v, want %v", node, got, want)
				}
			}
			for node, want := range tc.wantOwners {
				n, err := client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := n.Annotations[SoftTaintOwnersAnnotation]; got != want {
					t.Errorf("%s owners %q, want %q", node, got, want)
				}
			}
		})
	}
}

func TestUntaintReportsUnreadableAnnotation(t *testing.T) {
	client := fake.NewClientset(builders.MakeNode("n1").Taint(hotKey, "", v1.TaintEffectPreferNoSchedule).
		Annotation(SoftTaintOwnersAnnotation, "{not json").Obj())
	_, err := (&Untaint{Client: client, All: true}).Run(context.Background())
	if err == nil {
		t.Fatal("want an error for the unreadable annotation")
	}
	if got := taintsOf(t, client, "n1"); len(got) != 1 {
		t.Errorf("n1 taints %v, want its taint kept", got)
	}
}
