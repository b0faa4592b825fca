package snapshot

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// requested is the part of resources.List the tests compare.
type requested struct {
	MilliCPU, Memory, Pods int64
}

// summary is what a test case expects of a snapshot.
type summary struct {
	nodes     []string
	excluded  []ExcludedNode
	requested map[string]requested
	podsOn    map[string][]string
	pending   []string
}

func summarize(s *Snapshot) summary {
	out := summary{requested: map[string]requested{}, podsOn: map[string][]string{}}
	for _, n := range s.Nodes() {
		out.nodes = append(out.nodes, n.Name())
		out.requested[n.Name()] = requested{n.Requested.MilliCPU, n.Requested.Memory, n.Requested.Pods}
		pods := []string{}
		for _, p := range n.Pods {
			pods = append(pods, p.Pod.Namespace+"/"+p.Pod.Name)
		}
		out.podsOn[n.Name()] = pods
	}
	out.excluded = s.Excluded()
	for _, p := range s.PendingPods() {
		out.pending = append(out.pending, p.Namespace+"/"+p.Name)
	}
	return out
}

const (
	gi  = int64(1) << 30
	mi  = int64(1) << 20
	n1  = "n1"
	n2  = "n2"
	ns1 = "ns1"
)

func TestNew(t *testing.T) {
	poolA := labels.SelectorFromSet(labels.Set{"pool": "a"})
	tests := []struct {
		name    string
		objs    Objects
		opts    Options
		want    summary
		wantErr string
	}{
		{
			name: "not-ready and selector-excluded nodes have reasons, sorted considered nodes",
			objs: Objects{Nodes: []*v1.Node{
				builders.MakeNode("n3").Label("pool", "a").Obj(),
				builders.MakeNode(n2).Label("pool", "a").NotReady().Obj(),
				builders.MakeNode("n4").Label("pool", "b").Obj(),
				// Both reasons apply: the selector is checked first.
				builders.MakeNode("n5").Label("pool", "b").NotReady().Obj(),
				builders.MakeNode(n1).Label("pool", "a").Obj(),
			}},
			opts: Options{NodeSelector: poolA},
			want: summary{
				nodes: []string{n1, "n3"},
				excluded: []ExcludedNode{
					{Name: n2, Reason: "not Ready"},
					{Name: "n4", Reason: "does not match the policy nodeSelector"},
					{Name: "n5", Reason: "does not match the policy nodeSelector"},
				},
				requested: map[string]requested{n1: {}, "n3": {}},
				podsOn:    map[string][]string{n1: {}, "n3": {}},
			},
		},
		{
			name: "nil selector considers every ready node; no Ready condition is not ready",
			objs: Objects{Nodes: []*v1.Node{builders.MakeNode(n1).Obj(), noConditions(n2)}},
			want: summary{
				nodes:     []string{n1},
				excluded:  []ExcludedNode{{Name: n2, Reason: "not Ready"}},
				requested: map[string]requested{n1: {}},
				podsOn:    map[string][]string{n1: {}},
			},
		},
		{
			name: "requests sum excludes Succeeded and Failed pods but lists them",
			objs: Objects{
				Nodes: []*v1.Node{builders.MakeNode(n1).Obj()},
				Pods: []*v1.Pod{
					builders.MakePod(ns1, "running").Node(n1).Req("500m", "1Gi").Obj(),
					builders.MakePod(ns1, "pending-phase").Node(n1).Req("250m", "512Mi").Phase(v1.PodPending).Obj(),
					builders.MakePod(ns1, "done").Node(n1).Req("1", "1Gi").Phase(v1.PodSucceeded).Obj(),
					builders.MakePod("ns0", "failed").Node(n1).Req("2", "2Gi").Phase(v1.PodFailed).Obj(),
				},
			},
			want: summary{
				nodes: []string{n1},
				// cpu: 500m + 250m = 750m; memory: 1Gi + 512Mi; 2 non-terminal pods.
				requested: map[string]requested{n1: {MilliCPU: 750, Memory: gi + 512*mi, Pods: 2}},
				podsOn:    map[string][]string{n1: {"ns0/failed", "ns1/done", "ns1/pending-phase", "ns1/running"}},
			},
		},
		{
			name: "pods on excluded or unknown nodes are left out, unbound pods are pending",
			objs: Objects{
				Nodes: []*v1.Node{builders.MakeNode(n1).Obj(), builders.MakeNode(n2).NotReady().Obj()},
				Pods: []*v1.Pod{
					builders.MakePod(ns1, "on-n2").Node(n2).Req("1", "1Gi").Obj(),
					builders.MakePod(ns1, "on-gone").Node("gone").Req("1", "1Gi").Obj(),
					builders.MakePod(ns1, "unbound-b").Req("1", "1Gi").Phase(v1.PodPending).Obj(),
					builders.MakePod(ns1, "on-n1").Node(n1).Req("100m", "").Obj(),
					builders.MakePod(ns1, "unbound-a").Phase(v1.PodPending).Obj(),
				},
			},
			want: summary{
				nodes:     []string{n1},
				excluded:  []ExcludedNode{{Name: n2, Reason: "not Ready"}},
				requested: map[string]requested{n1: {MilliCPU: 100, Pods: 1}},
				podsOn:    map[string][]string{n1: {"ns1/on-n1"}},
				// Pending pods keep input order.
				pending: []string{"ns1/unbound-b", "ns1/unbound-a"},
			},
		},
		{
			name:    "duplicate node",
			objs:    Objects{Nodes: []*v1.Node{builders.MakeNode(n1).Obj(), builders.MakeNode(n1).NotReady().Obj()}},
			wantErr: `node "n1" appears twice`,
		},
		{
			name: "duplicate pod, even when unbound",
			objs: Objects{Pods: []*v1.Pod{
				builders.MakePod(ns1, "p").Obj(), builders.MakePod(ns1, "p").Node(n1).Obj()}},
			wantErr: "pod ns1/p appears twice",
		},
		{
			name: "same pod name in two namespaces is not a duplicate",
			objs: Objects{Pods: []*v1.Pod{builders.MakePod("a", "p").Obj(), builders.MakePod("b", "p").Obj()}},
			want: summary{requested: map[string]requested{}, podsOn: map[string][]string{}, pending: []string{"a/p", "b/p"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.objs, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			if got := summarize(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("snapshot =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func noConditions(name string) *v1.Node {
	n := builders.MakeNode(name).Obj()
	n.Status.Conditions = nil
	return n
}

func TestNewLookupsAndSortedSeries(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	nodeSeries := Series{{Time: t0.Add(30 * time.Second), MilliCPU: 3}, {Time: t0, MilliCPU: 1}, {Time: t0.Add(15 * time.Second), MilliCPU: 2}}
	pod := types.NamespacedName{Namespace: ns1, Name: "p"}
	objs := Objects{
		Nodes:           []*v1.Node{builders.MakeNode(n1).Obj()},
		PDBs:            []*policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Namespace: ns1, Name: "pdb"}}},
		PriorityClasses: []*schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}},
		Namespaces:      []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: ns1}}},
		NodeMetrics:     map[string]Series{n1: nodeSeries},
		PodMetrics:      map[types.NamespacedName]Series{pod: {{Time: t0.Add(time.Minute), Memory: 2}, {Time: t0, Memory: 1}}},
	}
	now := t0.Add(time.Hour)
	s, err := New(objs, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Now.Equal(now) {
		t.Errorf("Now = %v, want %v", s.Now, now)
	}
	if got := cpuOf(s.NodeSamples(n1)); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Errorf("NodeSamples(n1) cpu = %v, want oldest first [1 2 3]", got)
	}
	if got := cpuOf(nodeSeries); !reflect.DeepEqual(got, []int64{3, 1, 2}) {
		t.Errorf("input series was reordered to %v", got)
	}
	if got := s.PodSamples(ns1, "p"); len(got) != 2 || got[0].Memory != 1 || got[1].Memory != 2 {
		t.Errorf("PodSamples = %+v, want memory 1 then 2", got)
	}
	if got := s.NodeSamples("other"); got != nil {
		t.Errorf("NodeSamples(other) = %v, want nil", got)
	}
	if pc, ok := s.PriorityClass("high"); !ok || pc.Value != 1000 {
		t.Errorf("PriorityClass(high) = %v, %v", pc, ok)
	}
	if _, ok := s.PriorityClass("low"); ok {
		t.Error("PriorityClass(low) found")
	}
	if _, ok := s.Namespace(ns1); !ok {
		t.Error("Namespace(ns1) not found")
	}
	if len(s.PDBs()) != 1 || s.PDBs()[0].Name != "pdb" {
		t.Errorf("PDBs() = %v", s.PDBs())
	}
	if _, ok := s.Node(n2); ok {
		t.Error("Node(n2) found")
	}
}

func cpuOf(s Series) []int64 {
	var out []int64
	for _, x := range s {
		out = append(out, x.MilliCPU)
	}
	return out
}

func TestWithoutPods(t *testing.T) {
	p1 := builders.MakePod(ns1, "p1").Node(n1).Req("500m", "1Gi").Obj()
	p2 := builders.MakePod(ns1, "p2").Node(n1).Req("250m", "256Mi").Obj()
	p3 := builders.MakePod(ns1, "p3").Node(n1).Req("1", "1Gi").Phase(v1.PodFailed).Obj()
	p4 := builders.MakePod(ns1, "p4").Node(n2).Req("100m", "128Mi").Obj()
	objs := Objects{Nodes: []*v1.Node{builders.MakeNode(n1).Obj(), builders.MakeNode(n2).Obj()},
		Pods: []*v1.Pod{p1, p2, p3, p4}}
	// Before: n1 = p1 + p2 = 750m, 1Gi + 256Mi, 2 pods (p3 is Failed).
	before := requested{MilliCPU: 750, Memory: gi + 256*mi, Pods: 2}
	tests := []struct {
		name     string
		remove   []*v1.Pod
		wantN1   requested
		wantPods []string
		n1Shared bool
	}{
		{
			name:     "subtracts a running pod's requests",
			remove:   []*v1.Pod{p1},
			wantN1:   requested{MilliCPU: 250, Memory: 256 * mi, Pods: 1}, // 750m - 500m, 1.25Gi - 1Gi
			wantPods: []string{"p2", "p3"},
		},
		{
			name:     "a terminal pod disappears without changing requests",
			remove:   []*v1.Pod{p3},
			wantN1:   before,
			wantPods: []string{"p1", "p2"},
		},
		{
			name:     "several pods and one on another node",
			remove:   []*v1.Pod{p2, p4, p1},
			wantN1:   requested{}, // 750m - 250m - 500m = 0
			wantPods: []string{"p3"},
		},
		{
			name:     "n1 untouched is shared",
			remove:   []*v1.Pod{p4},
			wantN1:   before,
			wantPods: []string{"p1", "p2", "p3"},
			n1Shared: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, err := New(objs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			origN1, _ := orig.Node(n1)
			origN2, _ := orig.Node(n2)
			got := orig.WithoutPods(tt.remove...)
			gotN1, _ := got.Node(n1)
			if r := summarize(got).requested[n1]; r != tt.wantN1 {
				t.Errorf("n1 requested = %+v, want %+v", r, tt.wantN1)
			}
			if names := podNames(gotN1); !reflect.DeepEqual(names, tt.wantPods) {
				t.Errorf("n1 pods = %v, want %v", names, tt.wantPods)
			}
			if (gotN1 == origN1) != tt.n1Shared {
				t.Errorf("n1 shared = %v, want %v", gotN1 == origN1, tt.n1Shared)
			}
			if got.Nodes()[0] != gotN1 {
				t.Error("Nodes() and Node() disagree")
			}
			removesP4 := len(tt.remove) > 1 || tt.remove[0] == p4
			if gotN2, _ := got.Node(n2); (gotN2 == origN2) == removesP4 {
				t.Errorf("n2 shared = %v, want %v", gotN2 == origN2, !removesP4)
			}
			// The original snapshot is unchanged.
			if r := summarize(orig).requested[n1]; r != before {
				t.Errorf("original n1 requested = %+v, want %+v", r, before)
			}
			if names := podNames(origN1); !reflect.DeepEqual(names, []string{"p1", "p2", "p3"}) {
				t.Errorf("original n1 pods = %v", names)
			}
		})
	}
}

func TestWithoutPodsNoneReturnsSame(t *testing.T) {
	s, err := New(Objects{Nodes: []*v1.Node{builders.MakeNode(n1).Obj()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.WithoutPods() != s {
		t.Error("WithoutPods() with no pods should return the same snapshot")
	}
}

func podNames(n *NodeInfo) []string {
	var out []string
	for _, p := range n.Pods {
		out = append(out, p.Pod.Name)
	}
	return out
}

func TestNewGivesUIDlessPodsDistinctUIDs(t *testing.T) {
	a := builders.MakePod("ns", "a").Node("n1").Obj()
	b := builders.MakePod("ns", "b").Node("n1").Obj()
	a.UID, b.UID = "", ""
	snap, err := New(Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, Pods: []*v1.Pod{a, b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ni, _ := snap.Node("n1")
	if len(ni.Pods) != 2 || ni.Pods[0].Pod.UID == "" || ni.Pods[0].Pod.UID == ni.Pods[1].Pod.UID {
		t.Errorf("pods need distinct non-empty UIDs, got %q and %q", ni.Pods[0].Pod.UID, ni.Pods[1].Pod.UID)
	}
	if a.UID != "" {
		t.Error("the input pod must not be modified")
	}
}
