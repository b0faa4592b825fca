package predicates

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// nodeInfo builds the NodeInfo of node with pods bound to it.
func nodeInfo(t *testing.T, node *v1.Node, pods ...*v1.Pod) *snapshot.NodeInfo {
	t.Helper()
	for _, p := range pods {
		p.Spec.NodeName = node.Name
	}
	s, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{node}, Pods: pods}, snapshot.Options{Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	ni, ok := s.Node(node.Name)
	if !ok {
		t.Fatalf("node %s not considered", node.Name)
	}
	return ni
}

func podInfo(p *v1.Pod) *snapshot.PodInfo {
	return &snapshot.PodInfo{Pod: p, Requests: resources.PodRequests(p)}
}

func pod(name string) *builders.PodBuilder { return builders.MakePod("default", name) }

func TestMatchesNodeAffinity(t *testing.T) {
	node := builders.MakeNode("n1").Label("pool", "a").Label("zone", "z1").Obj()
	tests := []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{name: "no constraints", pod: pod("p").Obj(), want: true},
		{name: "nodeSelector matches", pod: pod("p").NodeSelector(map[string]string{"pool": "a"}).Obj(), want: true},
		{name: "nodeSelector value differs", pod: pod("p").NodeSelector(map[string]string{"pool": "b"}).Obj(), want: false},
		{name: "nodeSelector label missing", pod: pod("p").NodeSelector(map[string]string{"gpu": "true"}).Obj(), want: false},
		{name: "required affinity matches", pod: pod("p").RequireNodeLabel("zone", "z1", "z2").Obj(), want: true},
		{name: "required affinity does not match", pod: pod("p").RequireNodeLabel("zone", "z3").Obj(), want: false},
		{name: "nodeSelector and affinity must both match", pod: pod("p").NodeSelector(map[string]string{"pool": "a"}).
			RequireNodeLabel("zone", "z3").Obj(), want: false},
		{name: "preferred affinity is ignored", pod: pod("p").PreferNodeLabel(50, "zone", "z9").Obj(), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchesNodeAffinity(tt.pod, node); got != tt.want {
				t.Errorf("MatchesNodeAffinity = %v, want %v", got, tt.want)
			}
		})
	}
}

// UntoleratedTaint and ToleratesHardTaints, which must agree.
func TestUntoleratedTaint(t *testing.T) {
	tests := []struct {
		name      string
		node      *v1.Node
		pod       *v1.Pod
		wantTaint string // "" = every hard taint tolerated
	}{
		{name: "no taints", node: builders.MakeNode("n").Obj(), pod: pod("p").Obj()},
		{name: "NoSchedule not tolerated", node: builders.MakeNode("n").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
			pod: pod("p").Obj(), wantTaint: "dedicated=gpu:NoSchedule"},
		{name: "NoExecute not tolerated", node: builders.MakeNode("n").Taint("maintenance", "", v1.TaintEffectNoExecute).Obj(),
			pod: pod("p").Obj(), wantTaint: "maintenance:NoExecute"},
		{name: "PreferNoSchedule is soft", node: builders.MakeNode("n").Taint("dedicated", "gpu", v1.TaintEffectPreferNoSchedule).Obj(),
			pod: pod("p").Obj()},
		{name: "tolerated by key and value", node: builders.MakeNode("n").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
			pod: pod("p").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()},
		{name: "toleration value differs", node: builders.MakeNode("n").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
			pod: pod("p").Toleration("dedicated", "cpu", v1.TaintEffectNoSchedule).Obj(), wantTaint: "dedicated=gpu:NoSchedule"},
		{name: "toleration effect differs", node: builders.MakeNode("n").Taint("dedicated", "gpu", v1.TaintEffectNoExecute).Obj(),
			pod: pod("p").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(), wantTaint: "dedicated=gpu:NoExecute"},
		{name: "second taint untolerated", node: builders.MakeNode("n").Taint("a", "", v1.TaintEffectNoSchedule).
			Taint("b", "", v1.TaintEffectNoSchedule).Obj(), pod: pod("p").Tolerate("a", v1.TaintEffectNoSchedule).Obj(), wantTaint: "b:NoSchedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			taint, bad := UntoleratedTaint(tt.pod, tt.node)
			got := ""
			if bad {
				got = TaintString(taint)
			}
			if got != tt.wantTaint {
				t.Errorf("untolerated = %q, want %q", got, tt.wantTaint)
			}
			if ok := ToleratesHardTaints(tt.pod, tt.node); ok != (tt.wantTaint == "") {
				t.Errorf("ToleratesHardTaints = %v, want %v", ok, tt.wantTaint == "")
			}
		})
	}
}

func TestFitsRequests(t *testing.T) {
	const gpu = v1.ResourceName("example.com/gpu")
	// Node: 4000m cpu, 8Gi memory, 3 pods, 2 gpus; "used" requests 3000m
	// cpu, 6Gi memory and 1 gpu, one pod.
	node := builders.MakeNode("n1").Capacity("4", "8Gi", 3).Allocatable(gpu, "2").Obj()
	used := pod("used").OwnedBy("ReplicaSet", "u").Req("3", "6Gi").ReqResource(gpu, "1").Obj()
	ni := nodeInfo(t, node, used)
	tests := []struct {
		name string
		req  resources.List
		want bool
	}{
		{name: "nothing asked", req: resources.List{}, want: true},
		{name: "cpu 1000m = 4000m - 3000m free", req: resources.List{MilliCPU: 1000, Pods: 1}, want: true},
		{name: "cpu 1001m > 1000m free", req: resources.List{MilliCPU: 1001, Pods: 1}, want: false},
		{name: "memory 2Gi = 8Gi - 6Gi free", req: resources.List{Memory: 2 << 30, Pods: 1}, want: true},
		{name: "memory 2Gi+1 > 2Gi free", req: resources.List{Memory: 2<<30 + 1, Pods: 1}, want: false},
		{name: "pods 2 = 3 - 1 free", req: resources.List{Pods: 2}, want: true},
		{name: "pods 3 > 2 free", req: resources.List{Pods: 3}, want: false},
		{name: "gpu 1 = 2 - 1 free", req: resources.List{Scalar: map[v1.ResourceName]int64{gpu: 1}}, want: true},
		{name: "gpu 2 > 1 free", req: resources.List{Scalar: map[v1.ResourceName]int64{gpu: 2}}, want: false},
		{name: "resource the node lacks", req: resources.List{Scalar: map[v1.ResourceName]int64{"example.com/fpga": 1}}, want: false},
		{name: "zero amount of a missing resource fits", req: resources.List{Scalar: map[v1.ResourceName]int64{"example.com/fpga": 0}}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FitsRequests(tt.req, ni); got != tt.want {
				t.Errorf("FitsRequests = %v, want %v", got, tt.want)
			}
			if want := resources.Fits(tt.req, Free(ni)); want != tt.want {
				t.Errorf("resources.Fits(req, Free) = %v, disagrees with the expected %v", want, tt.want)
			}
		})
	}
	free := Free(ni)
	if free.MilliCPU != 1000 || free.Memory != 2<<30 || free.Pods != 2 || free.Scalar[gpu] != 1 {
		t.Errorf("Free = %+v, want 1000m cpu, 2Gi memory, 2 pods, 1 gpu", free)
	}
	req := resources.List{MilliCPU: 1, Scalar: map[v1.ResourceName]int64{gpu: 1}}
	if n := testing.AllocsPerRun(100, func() { FitsRequests(req, ni) }); n != 0 {
		t.Errorf("FitsRequests allocates %v times per call, want 0", n)
	}
}

func TestAntiAffinityConflict(t *testing.T) {
	web := map[string]string{"app": "web"}
	host := v1.LabelHostname
	tests := []struct {
		name     string
		node     *v1.Node
		existing *v1.Pod
		incoming *v1.Pod
		want     bool
	}{
		{name: "incoming term selects an existing pod", existing: pod("e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinity(host, web).Obj(), want: true},
		{name: "existing pod's term selects the incoming pod", existing: pod("e").RequiredAntiAffinity(host, web).Obj(),
			incoming: pod("i").Label("app", "web").Obj(), want: true},
		{name: "labels differ", existing: pod("e").Label("app", "db").Obj(),
			incoming: pod("i").RequiredAntiAffinity(host, web).Obj(), want: false},
		{name: "other namespace is not selected by default", existing: builders.MakePod("other", "e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinity(host, web).Obj(), want: false},
		{name: "other namespace listed in the term", existing: builders.MakePod("other", "e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinity(host, web, "other").Obj(), want: true},
		{name: "empty namespaceSelector selects every namespace", existing: builders.MakePod("other", "e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinityNamespaceSelector(host, web, map[string]string{}).Obj(), want: true},
		{name: "non-empty namespaceSelector is treated as selecting nothing", existing: builders.MakePod("other", "e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinityNamespaceSelector(host, web, map[string]string{"team": "x"}).Obj(), want: false},
		{name: "preferred anti-affinity is ignored", existing: pod("e").Label("app", "web").Obj(),
			incoming: pod("i").PreferredAntiAffinity(100, host, web).Obj(), want: false},
		{name: "terminal existing pod is ignored", existing: pod("e").Label("app", "web").Phase(v1.PodSucceeded).Obj(),
			incoming: pod("i").RequiredAntiAffinity(host, web).Obj(), want: false},
		{name: "the pod itself (same UID) is ignored", existing: pod("i").Label("app", "web").RequiredAntiAffinity(host, web).Obj(),
			incoming: pod("i").Label("app", "web").RequiredAntiAffinity(host, web).Obj(), want: false},
		{name: "topologyKey the node lacks cannot be violated", existing: pod("e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinity("topology.kubernetes.io/zone", web).Obj(), want: false},
		{name: "topologyKey the node carries", node: builders.MakeNode("n1").Label("topology.kubernetes.io/zone", "z1").Obj(),
			existing: pod("e").Label("app", "web").Obj(),
			incoming: pod("i").RequiredAntiAffinity("topology.kubernetes.io/zone", web).Obj(), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := tt.node
			if node == nil {
				node = builders.MakeNode("n1").Obj()
			}
			ni := nodeInfo(t, node, tt.existing)
			if got := AntiAffinityConflict(tt.incoming, ni); got != tt.want {
				t.Errorf("AntiAffinityConflict = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTermSelects(t *testing.T) {
	owner := pod("o").Obj()
	target := pod("t").Label("app", "web").Obj()
	tests := []struct {
		name string
		sel  *metav1.LabelSelector
		want bool
	}{
		{name: "nil selector selects nothing", sel: nil, want: false},
		{name: "empty selector selects everything", sel: &metav1.LabelSelector{}, want: true},
		{name: "matchLabels", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, want: true},
		{name: "matchExpressions NotIn", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}}, want: false},
		{name: "invalid selector selects nothing", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: "Near"}}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := &v1.PodAffinityTerm{LabelSelector: tt.sel, TopologyKey: v1.LabelHostname}
			if got := TermSelects(term, owner, target); got != tt.want {
				t.Errorf("TermSelects = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFitsNode(t *testing.T) {
	incoming := func() *builders.PodBuilder { return pod("in").Label("app", "web").Req("1", "1Gi") }
	tests := []struct {
		name     string
		node     *v1.Node
		existing []*v1.Pod
		pod      *v1.Pod
		want     string
	}{
		{name: "fits", node: builders.MakeNode("n1").Obj(), pod: incoming().Obj(), want: ""},
		{name: "unschedulable comes first", node: builders.MakeNode("n1").Unschedulable().Taint("x", "", v1.TaintEffectNoSchedule).Obj(),
			pod: incoming().Obj(), want: "node is unschedulable"},
		{name: "nodeSelector", node: builders.MakeNode("n1").Obj(), pod: incoming().NodeSelector(map[string]string{"pool": "a"}).Obj(),
			want: "node does not match nodeSelector/affinity"},
		{name: "taint", node: builders.MakeNode("n1").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(), pod: incoming().Obj(),
			want: "taint dedicated=gpu:NoSchedule not tolerated"},
		// 4000m - 3500m = 500m free < 1000m.
		{name: "resources", node: builders.MakeNode("n1").Obj(),
			existing: []*v1.Pod{pod("big").OwnedBy("ReplicaSet", "big").Req("3500m", "").Obj()},
			pod:      incoming().Obj(), want: "insufficient free resources"},
		{name: "anti-affinity", node: builders.MakeNode("n1").Obj(),
			existing: []*v1.Pod{pod("web-2").Label("app", "web").Obj()},
			pod:      incoming().RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}).Obj(),
			want:     "required pod anti-affinity conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := nodeInfo(t, tt.node, tt.existing...)
			if got := FitsNode(podInfo(tt.pod), ni); got != tt.want {
				t.Errorf("FitsNode = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsHardTaint(t *testing.T) {
	for effect, want := range map[v1.TaintEffect]bool{
		v1.TaintEffectNoSchedule: true, v1.TaintEffectNoExecute: true, v1.TaintEffectPreferNoSchedule: false,
	} {
		if got := IsHardTaint(&v1.Taint{Key: "k", Effect: effect}); got != want {
			t.Errorf("IsHardTaint(%s) = %v, want %v", effect, got, want)
		}
	}
}
